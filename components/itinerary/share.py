"""The itinerary's trip in its URL (``?trip=``, issue 12 §4; components/share.py, core/share.py).

The link carries the TripRequest that Optimise built, the edits applied to its plan, in order, and the plan's day
orders (each day's visits by place key), so the days come back as they were, positions included. A new session on
that link (a shared one, or a reload) gets the trip in the form and the place table, the link's region in the
sidebar, and one plan on that run: the request optimised, then each edit applied as the page applied it (a plan
kept on this server is reused). A link the form cannot hold (a place the region lacks, a rule broken, a damaged
or foreign token) leaves the form empty and says why. ``render_link`` runs after the plan: the URL follows the
plan on screen (edits and undo included), the plan is kept for a reload, and the address to copy is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st
from pydantic import TypeAdapter, ValidationError

from components import share
from components.frame import active_provider
from components.itinerary import form, state
from core.app import RequestContext
from core.app.itinerary import replay_trip
from core.errors import OmniError
from core.i18n import Lang
from core.models.itinerary import TripRequest, UserEdit
from core.models.itinerary_result import ItineraryResult
from core.share import DayOrders, ShareError, trip_data, trip_from_token, trip_token

PARAM = "trip"
PAGE = "itinerary"
SEEN = "it_share_seen"  # the token this session has restored or published (restored once)
ERROR = "it_share_error"  # the code of a link that could not be opened
SWITCHED = "it_share_region"  # the token whose region the sidebar was switched to
KEPT_FOR = "it_share_kept"  # (token, id of the result) last kept on the server
ORDERS = "it_share_orders"  # the restored link's day orders, for the plan of this run
_EDITS = TypeAdapter(list[UserEdit])
Linked = tuple[TripRequest, list[dict[str, Any]], DayOrders | None]


def form_request(request: TripRequest, region: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The form's values and place selection for ``request``; ShareError(SHARE_INVALID) when the form cannot hold
    it exactly (a place this region lacks, a place given by coordinates, a start place per day…)."""
    catalog = state.cached_catalog(region)
    trip = request.model_dump(mode="json")
    values, selection = state.trip_form_values(trip, catalog, name=request.trip_name)
    try:
        rebuilt = form.trip_request(values, selection, catalog, region)
    except (ValidationError, OmniError) as exc:
        raise ShareError(f"the form cannot hold the link's trip: {exc}", code="SHARE_INVALID") from None
    wanted = request.model_copy(update={"region": request.region or region})
    if rebuilt.model_dump() != wanted.model_dump():
        raise ShareError("the form cannot hold the link's trip exactly", code="SHARE_INVALID")
    return values, selection


def restore_from_url() -> list[dict[str, Any]] | None:
    """Fill the form from ``?trip=`` once per session and token (components/share.py ``read_link``: the form must
    hold the link's trip exactly); the link's edits (maybe ``[]``) when this run should plan it, else None."""

    def decode(token: str) -> tuple[Linked, str | None]:
        request, edits, orders = trip_from_token(token)
        return (request, edits, orders), request.region

    def check(linked: Linked, region: str) -> None:
        form_request(linked[0], region)

    linked = share.read_link(PARAM, decode, seen=SEEN, error=ERROR, switched=SWITCHED, check=check)
    if linked is None:
        return None
    request, edits, orders = linked
    region = request.region or state.current_region()
    state.fill_form_from_trip(request.model_dump(mode="json"), region, name=request.trip_name)
    st.session_state[ORDERS] = orders
    return edits


def render_error(lang: Lang) -> None:
    """Why the link's trip could not be opened (until a plan is made)."""
    if st.session_state.get(ERROR):
        share.render_error(st.session_state[ERROR], lang, key="it_share_error")


def _key(request: TripRequest, edits: list[dict[str, Any]], orders: DayOrders | None, provider: Any) -> str:
    return share.plan_key(PARAM, trip_data(request, edits, orders=orders), provider)


def plan(
    request: TripRequest,
    edits: list[dict[str, Any]] | None,
    *,
    ctx: RequestContext,
    progress: Callable[[str, float], None] | None = None,
) -> ItineraryResult:
    """The plan of ``request`` with ``edits`` applied one by one as the page applies them and the restored link's
    day orders (``core.app.itinerary.replay_trip``), kept on this server; with ``edits`` given (a restored link,
    ``[]`` included) a kept plan is reused. ``edits=None`` is Optimise: it always plans, in the solver's orders."""
    applied = list(edits or [])
    orders: DayOrders | None = st.session_state.pop(ORDERS, None) if edits is not None else None

    def compute() -> ItineraryResult:
        typed = _EDITS.validate_python(applied)
        return replay_trip(ctx, request, typed, orders=orders, progress=progress)

    return share.plan_and_keep(_key(request, applied, orders, ctx.providers), compute, reuse=edits is not None)


def render_link(lang: Lang) -> None:
    """After the plan: the URL carries the request and its edits; the plan on screen is kept for a reload; the
    address to copy is shown with a sentence."""
    base: TripRequest | None = st.session_state.get(state.BASE_REQUEST)
    result = st.session_state.get(state.RESULT)
    if base is None or result is None:
        if not st.session_state.get(state.ERROR):  # a failed plan keeps its link: a reload tries again
            share.publish(PARAM, None)
        return
    edits = list(st.session_state.get(state.EDITS) or [])
    orders = result.day_orders()
    try:
        token = trip_token(base, edits, orders=orders)
    except (ShareError, ValidationError):
        share.publish(PARAM, None)
        share.render_too_long(lang, key="it_share_link")
        return
    if st.session_state.get(KEPT_FOR) != (token, id(result)):  # a new plan on screen (an edit, an undo)
        provider, _ = active_provider()
        share.keep(_key(base, edits, orders, provider), result)
        st.session_state[KEPT_FOR] = (token, id(result))
    st.session_state.pop(ERROR, None)
    st.session_state[SEEN] = token
    share.publish(PARAM, token)
    share.render_link(PARAM, token, page=PAGE, lang=lang, key="it_share_link")
