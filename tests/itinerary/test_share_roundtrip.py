"""A shared itinerary link reproduces the plan on screen in a new session (issue 32, X8): every kind of edit, in
the order made, and the days' orders as place keys, so the day and the position of a reorder or an add, the locks,
the removals and the additions come back, even where the new session's solver answers another order."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from core.app import AppServices
from core.app import itinerary as itinerary_app
from core.app.itinerary import edit_itinerary, plan_itinerary, replay_trip
from core.itinerary.shaping import lay_out_link
from core.models.itinerary import TripRequest, UserEdit
from core.share import trip_from_token, trip_token
from tests.support.clock import SUITE_NOW
from tests.support.itinerary_packs import MONDAY, TUESDAY, trip

PLACES = ["i-bund", "i-pearl", "i-xintiandi", "i-jingan", "i-tianzifang", "i-grid-0", "i-grid-7", "i-grid-3"]
EDITS = TypeAdapter(list[UserEdit])


@pytest.fixture(scope="module")
def ctx(settings):
    services = AppServices(settings.model_copy(update={"provider": "offline", "cache_dir": None}))
    return services.context(region="itintest", lang="en", clock=lambda: SUITE_NOW)


def _session(ctx):
    """A person's session: the plan, then one edit of each kind, each made on the plan before it (as the page
    does), the edits kept as the page keeps them; the edits chosen from the plan on screen, never by its keys."""
    base = TripRequest.model_validate(trip(PLACES, days=[MONDAY, TUESDAY]))
    result = plan_itinerary(ctx, base)
    made: list[dict] = []
    steps = [
        lambda o: {"kind": "reorder", "key": o[0][-1], "day_index": 0, "position": 0},  # within its day, as the page
        lambda o: {"kind": "add", "place": {"place_id": "i-century"}, "day_index": 1, "position": 1},
        lambda o: {"kind": "remove", "key": o[1][-1]},
        lambda o: {"kind": "lock", "key": o[0][1], "day_index": 0, "start_time": "11:00"},
        lambda o: {"kind": "move", "key": o[1][0], "day_index": 0},
        lambda o: {"kind": "unlock", "key": o[0][1]},
        lambda o: {"kind": "reorder", "key": o[0][0], "day_index": 1, "position": 0},  # to another day
        lambda o: {"kind": "add", "place": {"place_id": "i-museum"}, "day_index": 0},  # where it costs least
    ]
    sessions = []
    for step in steps:
        edit = step(result.day_orders())
        outcome = edit_itinerary(ctx, result, EDITS.validate_python([*made, edit]), base=base)
        if outcome.status == "applied":
            result, made = outcome.result, [*made, edit]
        sessions.append((list(made), result))
    return base, sessions


def _shape(result):
    removed = sorted(d.key for d in result.dropped_items if d.reason_code == "REMOVED_BY_USER")
    locks = {
        p.key: (p.fixed_day, p.fixed_start) for p in result.request.places if p.fixed_day is not None or p.fixed_start
    }
    times = [[(e.key, e.start) for e in day.entries if e.kind == "visit"] for day in result.days]
    return result.day_orders(), sorted(p.key for p in result.request.places), removed, locks, times


def _opened(ctx, token):
    request, edits, orders = trip_from_token(token)
    return replay_trip(ctx, request, EDITS.validate_python(edits), orders=orders)


def test_a_link_opened_in_a_new_session_is_the_plan_on_screen_after_each_kind_of_edit(ctx):
    base, sessions = _session(ctx)
    kinds = {e["kind"] for e in sessions[-1][0]}
    assert kinds == {"reorder", "add", "remove", "lock", "move", "unlock"}, kinds  # every kind was applied
    for made, on_screen in sessions:
        token = trip_token(base, made, orders=on_screen.day_orders())
        assert _shape(_opened(ctx, token)) == _shape(on_screen), made[-1]


def test_the_link_lays_the_days_out_as_they_were_where_the_new_sessions_solver_answers_otherwise(ctx, monkeypatch):
    base, sessions = _session(ctx)
    made, on_screen = sessions[1]  # a reorder and an add at a position, made on the plan's orders
    token = trip_token(base, made, orders=on_screen.day_orders())
    real = itinerary_app.plan_itinerary

    def another_solver(ctx, request, **kw):  # another machine, another load: the same trip in other orders
        planned = real(ctx, request, **kw)
        flipped = [order[::-1] for order in planned.day_orders()]
        return lay_out_link(request, [], flipped, provider=ctx.providers, settings=ctx.settings) or planned

    monkeypatch.setattr(itinerary_app, "plan_itinerary", another_solver)
    request, edits, _ = trip_from_token(token)
    without_orders = replay_trip(ctx, request, EDITS.validate_python(edits))
    assert without_orders.day_orders() != on_screen.day_orders()  # the edits alone do not pin the positions
    assert _shape(_opened(ctx, token)) == _shape(on_screen)


def test_orders_that_are_not_the_plans_visits_leave_the_replayed_plan(ctx):
    base, sessions = _session(ctx)
    made, on_screen = sessions[1]
    orders = on_screen.day_orders()
    stranger = [[*orders[0], "i-far"], orders[1]]  # a place the plan does not visit: the link is not trusted there
    token = trip_token(base, made, orders=stranger)
    assert _opened(ctx, token).day_orders() == orders
