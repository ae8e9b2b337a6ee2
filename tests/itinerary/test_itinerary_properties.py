"""Property tests on random small trips (hypothesis).

1. Every result passes the critic.
2. No must-visit is dropped when a feasible plan keeping all must-visits exists, checked by an
   independent brute force (every assignment of musts to days, every order, every lunch slot)
   written here from the rules, not from the optimiser's code.
"""

from __future__ import annotations

import itertools
import math
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from core.config import Settings
from core.geo.base import LonLat
from core.geo.registry import make_provider
from core.itinerary.critic import check_itinerary
from core.itinerary.opening import opening_windows
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest
from tests.support.itinerary_packs import MONDAY, independent_robust_minutes, trip, write_itinerary_pack

POOL = [
    "i-bund",
    "i-pearl",
    "i-yuyuan",
    "i-museum",
    "i-jingan",
    "i-xintiandi",
    "i-morning",
    "i-tiny",
    "i-grid-0",
    "i-grid-8",
    "i-grid-20",
    "i-century",
]
HOURS = [
    None,
    "24/7",
    "Mo-Su 09:00-12:00",
    "Tu-Su 13:00-18:00; Mo off",
    "Mo-Su 10:00-14:00,16:00-20:00",
    "Mo,We 10:00-17:00",
    "Mo-Su 18:00-23:00",
]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    settings = Settings(data_dir=write_itinerary_pack(tmp_path_factory.mktemp("data")), region="itintest")
    return settings, make_provider("offline", settings=settings)


place_st = st.fixed_dictionaries(
    {
        "place_id": st.sampled_from(POOL),
        "priority": st.sampled_from(["must", "must", "should", "nice"]),
        "visit_minutes": st.sampled_from([30, 45, 60, 90, 120, 180, 240]),
        "opening_hours": st.sampled_from(HOURS),
    }
)

pytestmark = pytest.mark.slow


@st.composite
def trips(draw):
    n_days = draw(st.integers(1, 2))
    first = MONDAY + timedelta(days=draw(st.integers(0, 2)))
    days = []
    for i in range(n_days):
        start = draw(st.integers(8, 11))
        end = draw(st.integers(15, 22))
        days.append(
            {
                "date": (first + timedelta(days=i)).isoformat(),
                "start_time": f"{start:02d}:00",
                "end_time": f"{end:02d}:00",
            }
        )
    places = draw(st.lists(place_st, min_size=1, max_size=4, unique_by=lambda p: p["place_id"]))
    places = [{k: v for k, v in p.items() if v is not None} for p in places]
    return trip(
        places,
        days=days,
        pacing=draw(st.sampled_from(["relaxed", "normal", "tight"])),
        lunch={"enabled": draw(st.booleans())},
    )


# --- the independent brute force -----------------------------------------------------------------
def clock(t) -> int:
    return t.hour * 60 + t.minute


def musts_feasible(request: TripRequest, provider, settings) -> bool:
    pack = provider.region
    factor = max(1.0, settings.robust_travel_factor[request.mode] * settings.pacing_factor_multiplier[request.pacing])
    buffer = settings.robust_travel_buffer_min[request.mode] + settings.pacing_buffer_extra_min[request.pacing]
    visit_factor = settings.pacing_visit_factor[request.pacing]
    hotel = pack.place_by_id(request.hotel.place_id)
    musts = [p for p in request.places if p.priority == "must"]
    pts = [LonLat(hotel.lon, hotel.lat)] + [
        LonLat(pack.place_by_id(p.place_id).lon, pack.place_by_id(p.place_id).lat) for p in musts
    ]
    m = provider.matrix(pts, mode=request.mode)
    R = [
        [
            0 if i == j else independent_robust_minutes(m.durations_s[i][j], factor=factor, buffer_min=buffer)
            for j in range(len(pts))
        ]
        for i in range(len(pts))
    ]
    visit = [math.ceil(p.visit_minutes * visit_factor - 1e-9) for p in musts]
    dates = [d.date for d in request.days]
    on_site_min = settings.itinerary_lunch_on_site_min_visit_min
    opens = []
    for p in musts:
        expr = p.opening_hours if p.opening_hours is not None else pack.place_by_id(p.place_id).opening_hours
        ow = opening_windows(expr, dates, timezone=pack.timezone, country=pack.country)
        opens.append([[(iv.start, iv.end) for iv in ow.by_date[d]] for d in dates])

    def day_ok(d: int, members: list[int]) -> bool:
        day = request.days[d]
        ds, de = clock(day.start_time), clock(day.end_time)
        lunch = request.lunch
        lo, hi = max(ds, clock(lunch.window_start)), min(de, clock(lunch.window_end)) - lunch.duration_min
        # after: 0 = lunch before the gap's travel, 1 = after it, 2 = on site inside the visit that follows
        lunch_options = (
            [(g, after) for g in range(len(members) + 1) for after in (0, 1, 2)]
            if (lunch.enabled and lo <= hi)
            else [(None, 0)]
        )
        for order in itertools.permutations(members):
            for gap, after in lunch_options:
                if simulate(order, gap, after, ds, de, lo, hi, lunch.duration_min, d):
                    return True
        return False

    def simulate(order, gap, after, ds, de, lo, hi, dur, d) -> bool:
        if after == 2 and gap == len(order):
            return False  # no visit after the last gap to host the lunch
        t, loc = ds, 0
        for g in range(len(order) + 1):
            nxt = order[g] + 1 if g < len(order) else 0
            if gap == g and not after:
                t = max(t, lo)
                if t > hi:
                    return False
                t += dur
            t += R[loc][nxt]
            loc = nxt
            if gap == g and after == 1:
                t = max(t, lo)
                if t > hi:
                    return False
                t += dur
            if g < len(order):
                k = order[g]
                if gap == g and after == 2:
                    # lunch on site: long visits only; it starts strictly inside the visit, within its window,
                    # and the visit (now dur longer) still ends in the same opening interval and the day
                    if visit[k] < on_site_min or not on_site_min:
                        return False
                    starts = [
                        s
                        for s in (max(t, o) for o, c in opens[k][d])
                        if any(o <= s and s + visit[k] + dur <= min(c, de) for o, c in opens[k][d])
                        and max(lo, s + 1) <= min(hi, s + visit[k] - 1)
                    ]
                    if not starts:
                        return False
                    t = min(starts) + visit[k] + dur
                    continue
                starts = [max(t, o) for o, c in opens[k][d] if max(t, o) + visit[k] <= min(c, de)]
                if not starts:
                    return False
                t = min(starts) + visit[k]
        return t <= de

    allowed = [[d for d in range(len(dates)) if musts[k].fixed_day in (None, d)] for k in range(len(musts))]
    for assignment in itertools.product(*allowed):
        if all(day_ok(d, [k for k in range(len(musts)) if assignment[k] == d]) for d in range(len(dates))):
            return True
    return False


@hsettings(
    max_examples=60,
    deadline=None,
    # the same 60 trips every run, so CI is reproducible. Random searches (derandomize=False, run by hand) found the
    # cases in the @examples below; after their fixes 4,500 random trips of this strategy passed, and 3,200 more from
    # wider ones (2-3 days, up to 6 places, mostly musts, a long must beside musts open on one day only).
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(payload=trips())
# Two musts open only 09:00-12:00 fit day 1's morning together only if one of them goes to day 2's start
# (11:13 there, before the 11:15 latest start); a cross-day repair that never displaced a must dropped one.
@example(
    payload=trip(
        [
            {"place_id": "i-bund", "priority": "must", "visit_minutes": 30},
            {"place_id": "i-pearl", "priority": "must", "visit_minutes": 45, "opening_hours": "Mo-Su 09:00-12:00"},
            {"place_id": "i-museum", "priority": "must", "visit_minutes": 120, "opening_hours": "Mo,We 10:00-17:00"},
            {"place_id": "i-jingan", "priority": "must", "visit_minutes": 45, "opening_hours": "Mo-Su 09:00-12:00"},
        ],
        days=[
            {"date": "2025-06-03", "start_time": "10:00", "end_time": "15:00"},
            {"date": "2025-06-04", "start_time": "11:00", "end_time": "15:00"},
        ],
        pacing="normal",
        lunch={"enabled": False},
    )
)
# The same, one step further: the displaced must only fits day 2 if a 'should' gives way there.
@example(
    payload=trip(
        [
            {"place_id": "i-bund", "priority": "must", "visit_minutes": 30},
            {"place_id": "i-pearl", "priority": "must", "visit_minutes": 30, "opening_hours": "Mo-Su 09:00-12:00"},
            {"place_id": "i-yuyuan", "priority": "should", "visit_minutes": 180, "opening_hours": "Mo,We 10:00-17:00"},
            {"place_id": "i-museum", "priority": "must", "visit_minutes": 60, "opening_hours": "Mo-Su 09:00-12:00"},
        ],
        days=[
            {"date": "2025-06-03", "start_time": "10:00", "end_time": "15:00"},
            {"date": "2025-06-04", "start_time": "11:00", "end_time": "15:00"},
        ],
        pacing="normal",
        lunch={"enabled": False},
    )
)
# Found by a random search: the 240-min must (pack hours 07:00-18:00) fits Tuesday beside the museum (closed on
# Mondays) only if Yu Garden (open all week) goes to Monday with the Bund (open Monday only). Forcing Century Park
# into Tuesday displaced the museum, which no other day takes, so the repair gave up and dropped the park.
@example(
    payload=trip(
        [
            {"place_id": "i-bund", "priority": "must", "visit_minutes": 45, "opening_hours": "Mo,We 10:00-17:00"},
            {"place_id": "i-yuyuan", "priority": "must", "visit_minutes": 30, "opening_hours": "24/7"},
            {"place_id": "i-museum", "priority": "must", "visit_minutes": 60},
            {"place_id": "i-century", "priority": "must", "visit_minutes": 240},
        ],
        days=[
            {"date": "2025-06-02", "start_time": "08:00", "end_time": "15:00"},
            {"date": "2025-06-03", "start_time": "08:00", "end_time": "16:00"},
        ],
        pacing="normal",
        lunch={"enabled": True},
    )
)
# The same family, one step further (found by a random search aimed at it): Tuesday must hold the museum, Yu Garden
# and the 180-min park, the two short musts go to Monday. The park forced into Tuesday displaced Yu Garden, which
# Monday cannot take; with both forced the solver's first-solution heuristic found nothing though an order exists.
@example(
    payload=trip(
        [
            {"place_id": "i-century", "priority": "must", "visit_minutes": 180},
            {"place_id": "i-bund", "priority": "must", "visit_minutes": 45, "opening_hours": "Mo,We 10:00-17:00"},
            {"place_id": "i-museum", "priority": "must", "visit_minutes": 30},
            {
                "place_id": "i-yuyuan",
                "priority": "must",
                "visit_minutes": 120,
                "opening_hours": "Mo-Su 10:00-14:00,16:00-20:00",
            },
            {"place_id": "i-pearl", "priority": "must", "visit_minutes": 30},
            {"place_id": "i-xintiandi", "priority": "must", "visit_minutes": 30},
        ],
        days=[
            {"date": "2025-06-02", "start_time": "08:00", "end_time": "14:00"},
            {"date": "2025-06-03", "start_time": "08:00", "end_time": "18:00"},
        ],
        pacing="normal",
        lunch={"enabled": True},
    )
)
# A chain of moves (random search aimed at the family): the 180-min park (216 relaxed) fits Tuesday only if Yu Garden
# goes to Wednesday, which has room for it only if the museum comes back to Tuesday. The repair moves a stop and
# re-homes what it displaces, one step; the exact search over the musts' days (must_assignment) finds the chain.
@example(
    payload=trip(
        [
            {"place_id": "i-century", "priority": "must", "visit_minutes": 180},
            {"place_id": "i-bund", "priority": "must", "visit_minutes": 60, "opening_hours": "Mo,We 10:00-17:00"},
            {"place_id": "i-museum", "priority": "must", "visit_minutes": 60},
            {"place_id": "i-yuyuan", "priority": "must", "visit_minutes": 90},
        ],
        days=[
            {"date": "2025-06-03", "start_time": "08:00", "end_time": "16:00"},
            {"date": "2025-06-04", "start_time": "08:00", "end_time": "14:00"},
        ],
        pacing="relaxed",
        lunch={"enabled": True},
    )
)
def test_random_small_trips_pass_the_critic_and_keep_feasible_musts(env, payload):
    settings, provider = env
    request = TripRequest.model_validate(payload)
    result = plan_itinerary(request, provider=provider, settings=settings)

    report = check_itinerary(result, request=request, pack=provider.region, settings=settings)
    assert report.passed, [(v.code, v.message) for v in report.violations]

    feasible = musts_feasible(request, provider, settings)
    if feasible:
        assert result.totals.must_dropped == 0, [(x.key, x.reason_code) for x in result.dropped_items]
        assert result.status == "ready"
    else:
        assert result.totals.must_dropped > 0 and result.error_code == "PLANNER_INFEASIBLE_HARD_NODES"
