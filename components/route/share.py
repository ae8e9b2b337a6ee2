"""The route planner's trip in its URL (``?route=``, issue 12 §4; components/share.py, core/share.py).

``restore_from_url`` runs before the form draws: a new session opened on a link (a shared one, or a reload) gets
the link's request in the form, the places chosen in "Did you mean…" included (their POI ids), the link's region
in the sidebar, and one plan on that run (a plan kept on this server is reused). A link that cannot be read leaves
the form empty and says why. ``render_link`` runs after the plan: the URL follows the plan on screen and the
address to copy is shown.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from components import share
from components.route import errors as route_errors
from components.route import form
from components.route.places import PLACES
from core.i18n import Lang
from core.models.route import RoutePlanRequest
from core.share import ShareError, route_from_token, route_token

PARAM = "route"
PAGE = "route_planner"
SEEN = "route_share_seen"  # the token this session has restored or published (restored once)
ERROR = "route_share_error"  # the code of a link that could not be opened
SWITCHED = "route_share_region"  # the token whose region the sidebar was switched to
RESTORING = "route_share_restoring"  # the plan of this run answers a link: a kept plan may be reused


def chosen_places(request: RoutePlanRequest) -> dict[str, dict[str, Any]]:
    """The request's POI ids as the places chosen in "Did you mean…" (places.PLACES), by form field."""
    places: dict[str, dict[str, Any]] = {}
    ends = [("origin_address", request.origin_stop()), ("destination_address", request.destination_stop())]
    for field, stop in [*ends, *((f"stops.{i}", s) for i, s in enumerate(request.stops))]:
        if stop is not None and stop.poi_id:
            places[field] = {"name": stop.name or "", "address": stop.address, "poi_id": stop.poi_id}
    return places


def restore_from_url() -> bool:
    """Fill the form from ``?route=`` once per session and token (components/share.py ``read_link``); True when
    this run should plan it."""
    request = share.read_link(PARAM, route_from_token, seen=SEEN, error=ERROR, switched=SWITCHED)
    if request is None:
        return False
    form.fill_form_from_request(request)
    st.session_state[form.KEEP_ORDER] = request.keep_order  # the person's order: the stops as the link lists them
    places = chosen_places(request)
    if request.round_trip and not st.session_state.get("destination_address"):
        places.pop("destination_address", None)  # the round trip's end is the origin: its fields stay blank
    st.session_state[PLACES] = places
    st.session_state[RESTORING] = True
    return True


def render_error(lang: Lang) -> None:
    """Why the link's trip could not be opened (until a plan is made)."""
    if st.session_state.get(ERROR):
        share.render_error(st.session_state[ERROR], lang, key="route_share_error")


def plan(key_request: RoutePlanRequest, provider: Any, compute: Any) -> Any:
    """The plan of ``key_request`` (``compute()``), kept on this server; a restored link reuses a kept plan."""
    reuse = bool(st.session_state.pop(RESTORING, False))
    key = share.plan_key(PARAM, key_request.model_dump(mode="json"), provider)
    return share.plan_and_keep(key, compute, reuse=reuse)


def render_link(lang: Lang) -> None:
    """After the plan: the URL carries the plan's request; the address to copy is shown with a sentence."""
    st.session_state.pop(RESTORING, None)
    request = st.session_state.get(form.REQUEST)
    result = st.session_state.get(form.RESULT)
    if request is None or result is None:
        if not st.session_state.get(route_errors.ERROR):  # a failed plan keeps its link: a reload tries again
            share.publish(PARAM, None)
        return
    try:
        token: str | None = route_token(request, region=result.region or st.session_state.get("region"))
    except ShareError:
        token = None
    share.offer(PARAM, token, page=PAGE, lang=lang, key="route_share_link", seen=SEEN, error=ERROR)
