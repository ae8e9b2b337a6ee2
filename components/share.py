"""A planned trip in the page's URL (issue 12 §4), the parts every page shares: the link people copy, the sentence
for a link that cannot be read, and the server's memory of plans by request so that a reload is instant.

The token itself is core/share.py's (pure, tested there). A page keeps its trip in its own query parameter
(``?route=`` on the route planner, ``?trip=`` on the itinerary) beside ``?lang=`` (components/language.py). The
session's identity is in no URL (a browser cookie, components/identity.py): the link offered for copying carries
the language and the trip, and so does the address bar; whoever opens either gets their own identity, not the
sender's reservations. A reload keeps the URL (and the cookie keeps the identity).

Plans are kept by core/app/kept_plans.py (six hours; a process alone keeps the last 64 in memory, a team with
``OMNI_REDIS_URL`` keeps them in Redis, where every dashboard process finds them) under a key of the canonical
request, the provider's name, the region pack and its data date, the data folder and the settings that planning
reads (``NOT_PLANNING`` lists those it does not). A click on Plan always plans (and keeps what it got, replacing an
older plan); only a trip restored from the URL may take a kept plan.

``read_link`` is what every page does first with its parameter: read the token once per session, refuse a link
whose region is not on this server, switch the sidebar to the link's region, remember the token. What the trip
then fills in is the page's own (route/share.py, itinerary/share.py, halfday/share.py).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlencode

import streamlit as st

from components.frame import KEPT, cached_regions
from components.language import QUERY as LANG_QUERY
from components.language import t
from components.services import app_services
from components.services import settings as current_settings
from core.app.kept_plans import KeptPlans, kept_plans
from core.i18n import Lang
from core.share import ShareError, cache_key

T = TypeVar("T")
#: a link that could not be read → its words (common.po); any other code reads as damaged
ERROR_WORDS = {
    "SHARE_CORRUPT": "common.share.error.corrupt",
    "SHARE_VERSION": "common.share.error.version",
    "SHARE_TOO_LONG": "common.share.error.too_large",
    "SHARE_TOO_LARGE": "common.share.error.too_large",
    "SHARE_KIND": "common.share.error.kind",
    "SHARE_INVALID": "common.share.error.invalid",
    "SHARE_REGION": "common.share.error.region",
}


#: settings a plan does not depend on (where things are stored, who asks, other features, secrets): left out of
#: a plan's key, so that a reload finds its plan whatever they are
NOT_PLANNING = {
    "amap_key",
    "llm_api_key",
    "api_keys",
    "cache_dir",
    "db_url",
    "redis_url",
    "dashboard_user",
    "agent_event_log",
    "kb_dir",
    "online_tiles",
    "tiles_url",
    "tiles_attribution",
    "llm_base_url",
    "llm_model",
    "llm_timeout_s",
    "llm_router_arbitration",
    "llm_plan_proposals",
    "router_execute_threshold",
    "router_ask_threshold",
    "api_max_body_bytes",
    "browse_allowlist",
    "venues_serve",
    "browse_timeout_s",
    "browse_max_bytes",
    "halfday_mock_tools",
    "halfday_solver",
    "halfday_reference_cost",
    "halfday_breaker_map_fail_max",
    "halfday_breaker_map_reset_s",
    "halfday_breaker_weather_fail_max",
    "halfday_breaker_weather_reset_s",
    "halfday_breaker_payment_fail_max",
    "halfday_breaker_payment_reset_s",
    "halfday_degraded_default",
    "halfday_degraded_wait_s",
    "halfday_support_contact",
    "dry_run_ttl_s",
    "i18n_strict",
    "dask_scheduler",
}


def _plans() -> KeptPlans:
    """This server's kept plans: the team's, in Redis, when ``OMNI_REDIS_URL`` is set (a reload that reaches another
    dashboard process finds the plan), else this process's (core/app/kept_plans.py)."""
    url = current_settings().redis_url
    return app_services().once(f"kept_plans {url}", lambda: kept_plans(url))


def plan_key(kind: str, request: Any, provider: Any) -> str:
    """The key of a plan: the request (a JSON-able value, canonicalised), the provider, its region pack and data
    date, the data folder and the settings."""
    pack = getattr(provider, "region", None)
    settings = current_settings()
    return cache_key(
        kind,
        request,
        getattr(provider, "name", str(provider)),
        getattr(pack, "name", None),
        getattr(pack, "data_date", None),
        str(settings.data_dir),
        settings.model_dump(mode="json", exclude=NOT_PLANNING),
    )


def kept_plan(key: str) -> Any | None:
    """The plan kept under ``key`` on this server, or None."""
    return _plans().get(key)


def plan_and_keep(key: str, compute: Callable[[], T], *, reuse: bool) -> T:
    """``compute()``, kept under ``key``; with ``reuse`` (a trip restored from the URL) a kept plan is returned
    without planning again."""
    if reuse:
        found = kept_plan(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
    return keep(key, compute())


def keep(key: str, plan: T) -> T:
    """Keep ``plan`` under ``key`` (replacing a plan kept before under that key)."""
    _plans().put(key, plan)
    return plan


def link(param: str, token: str, *, page: str, lang: Lang) -> str:
    """The address to copy: this page in the browser (``st.context.url``, else the page's path) with the language
    and the trip, without the session's identity."""
    try:
        base = st.context.url
    except (AttributeError, RuntimeError):
        base = None
    query = urlencode({LANG_QUERY: lang, param: token})
    return f"{base or '/' + page}?{query}"


#: The address box: a read-only field (select it, or press the button at its right) in plain HTML - ``st.code``
#: would load and run the browser's syntax highlighter on every plan (~230 ms), even for plain text.
LINK_BOX = """<style>
.omni-share-link {{ display: flex; gap: .5rem; align-items: center; }}
.omni-share-link input {{ flex: 1; min-width: 0; font-family: monospace; font-size: .85rem; color: inherit; }}
.omni-share-link input, .omni-share-link button {{
  padding: .4rem .6rem; border: 1px solid rgba(128, 128, 128, .4); border-radius: .5rem; background: transparent;
}}
.omni-share-link button {{ color: inherit; cursor: pointer; white-space: nowrap; }}
</style>
<div class="omni-share-link">
<input readonly value="{url}" aria-label="{title}" onfocus="this.select()">
<button type="button">{title}</button>
</div>
<script>
for (const box of document.querySelectorAll(".omni-share-link")) {{
  const field = box.querySelector("input"), button = box.querySelector("button");
  button.onclick = () => {{
    field.select();
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(field.value);
    else document.execCommand("copy");
  }};
}}
</script>"""


def render_link(param: str, token: str, *, page: str, lang: Lang, key: str) -> None:
    """“Share this trip”: one sentence and the address in a read-only box with a copy button at its right."""
    title = t("common.share.link_title", lang)
    with st.container(key=key):
        st.markdown("**" + title + "**")
        st.caption(t("common.share.link_intro", lang))
        url = link(param, token, page=page, lang=lang)
        st.html(
            LINK_BOX.format(url=html.escape(url, quote=True), title=html.escape(title, quote=True)),
            unsafe_allow_javascript=True,
        )


def read_link(
    param: str,
    decode: Callable[[str], tuple[T, str | None]],
    *,
    seen: str,
    error: str,
    switched: str,
    check: Callable[[T, str], None] | None = None,
) -> T | None:
    """The trip of the page's ``?param=`` link, once per session and token: ``decode(token)`` gives the trip and its
    region (None: the sidebar's), ``check(trip, region)`` any check of the page's own; either raises ShareError.

    Returns the trip, or None when there is nothing new to read or the link cannot be opened. A link that cannot be
    opened (a damaged token, a region not on this server, a failed check) leaves its code in ``error`` (the page's
    ``render_error`` says why, in the reader's language, with ``error_sentence``) and goes from the URL. A link to
    another region than the sidebar's switches the sidebar (drawn already on this run: it takes the region on the
    next run, ``frame._restore``) and reruns once (``switched`` remembers the token). ``seen`` remembers the token
    read, so it is read once."""
    token = st.query_params.get(param)
    if not token or st.session_state.get(seen) == token:
        return None
    try:
        trip, linked = decode(token)
        region = linked or st.session_state.get("region") or current_settings().region
        if linked and linked not in cached_regions():
            raise ShareError(f"region {linked} is not on this server", code="SHARE_REGION")
        if check is not None:
            check(trip, region)
    except ShareError as exc:
        st.session_state[seen] = token
        st.session_state[error] = exc.code
        publish(param, None)
        return None
    if linked and linked != st.session_state.get("region") and st.session_state.get(switched) != token:
        st.session_state[switched] = token
        st.session_state[KEPT.format("region")] = linked
        st.rerun()
    st.session_state[seen] = token
    st.session_state.pop(error, None)
    return trip


def error_sentence(code: str | None, lang: Lang) -> str:
    """Why a link's trip could not be opened, in ``lang``."""
    return t(ERROR_WORDS.get(str(code), "common.share.error.corrupt"), lang)


def render_error(code: str | None, lang: Lang, *, key: str) -> None:
    """A link that could not be opened: why, in ``lang``."""
    with st.container(key=key):
        st.warning(error_sentence(code, lang), icon=":material/link_off:")


def render_too_long(lang: Lang, *, key: str) -> None:
    """A plan too large for a link: it stays on the page, unshared."""
    with st.container(key=key):
        st.caption(t("common.share.too_long", lang))


def offer(param: str, token: str | None, *, page: str, lang: Lang, key: str, seen: str, error: str) -> None:
    """After a plan: the URL carries ``token`` and the address to copy is shown (``seen`` remembers the token,
    the link ``error`` of an earlier link goes); a plan too large for a link (``token`` None) stays on the page,
    unshared, and says so."""
    if token is None:
        publish(param, None)
        render_too_long(lang, key=key)
        return
    st.session_state.pop(error, None)
    st.session_state[seen] = token
    publish(param, token)
    render_link(param, token, page=page, lang=lang, key=key)


def publish(param: str, token: str | None) -> None:
    """Put ``token`` into the URL (or take the page's parameter away when there is none)."""
    if token is None:
        if param in st.query_params:
            del st.query_params[param]
    elif st.query_params.get(param) != token:
        st.query_params[param] = token
