"""How much of a half day may be spent getting about: a budget of travel time relative to the window, stricter with
small children, older people or a mobility need. A leg between two stops longer than its cap is refused by both
composers (greedy and CP-SAT), and so is a plan whose travel would pass the total; a leg from the origin cannot be
refused (the person starts there), so a plan says it (risk ``TRAVEL_OVER_BUDGET``, score.py).

              a leg at most                  all travel at most
  usually     15 % of the window (≥ 15 min)  30 % of the window
  careful     10 % of the window (≥ 10 min)  20 % of the window   (children under 7, seniors, wheelchair, stroller…)
A 4-hour afternoon allows legs of 36 minutes (24 with a small child): no 20 km drive inside it.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.models.halfday.plans import Profile, TimeSlots

LEG_SHARE, LEG_FLOOR_MIN = 0.15, 15
TOTAL_SHARE = 0.30
CAREFUL_LEG_SHARE, CAREFUL_LEG_FLOOR_MIN = 0.10, 10
CAREFUL_TOTAL_SHARE = 0.20
SMALL_CHILD_AGE = 7


@dataclass(frozen=True)
class TravelCaps:
    """The longest leg and the most travel (robust minutes) a half day allows, and whether the party is careful."""

    leg_min: int
    total_min: int
    careful: bool


def careful_party(profile: Profile) -> bool:
    return bool(
        profile.party.seniors
        or any(a < SMALL_CHILD_AGE for a in profile.child_ages)
        or (profile.party.children and not profile.child_ages)
        or profile.constraints.mobility
    )


def travel_caps(profile: Profile, slots: TimeSlots) -> TravelCaps:
    window = max(1, slots.minutes)
    careful = careful_party(profile)
    if careful:
        leg = max(CAREFUL_LEG_FLOOR_MIN, round(CAREFUL_LEG_SHARE * window))
        total = round(CAREFUL_TOTAL_SHARE * window)
    else:
        leg = max(LEG_FLOOR_MIN, round(LEG_SHARE * window))
        total = round(TOTAL_SHARE * window)
    if profile.constraints.max_leg_minutes is not None:  # the person's own limit, when stricter
        leg = min(leg, profile.constraints.max_leg_minutes)
    return TravelCaps(leg_min=leg, total_min=max(total, leg), careful=careful)
