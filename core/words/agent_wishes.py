"""Every wish of a trip plan in words (issue 31): the agent's accounting (core/models/agent_wishes.py) → one sentence
per wish, in the reply's language, from locales/*/LC_MESSAGES/agent.po. Cuisines, drinks, diets and the children's
need are named as the half-day planner names them (core/words/halfday_wishes.py); a dropped place's reason is the
itinerary's own sentence; a wish not understood is quoted in the person's words and never said as met."""

from __future__ import annotations

from core.i18n import Lang, join_words, t
from core.models.agent_wishes import TripWishOutcome
from core.models.halfday.goal import Wish
from core.models.itinerary_result import ItineraryResult
from core.models.region import RegionPack
from core.words.agent import name_of
from core.words.halfday_wishes import wish_label as halfday_label
from core.words.itinerary import MEAL_KEYS, reason_sentence

#: the interests the agent reads (core/agent/trip_wishes.py INTERESTS, and animals)
INTERESTS = ("museum", "history", "art", "nature", "science", "night_view", "temple", "shopping", "quiet", "photo",
             "animals")  # fmt: skip
#: a status and reason → the key of its sentence
OUTCOMES: dict[tuple[str, str], str] = {
    ("met", "served"): "agent.wish.met",
    ("met", "paced"): "agent.wish.met_paced",
    ("met", "kept"): "agent.wish.met_kept",
    ("partly", "some_stops"): "agent.wish.partly",
    ("not_met", "dropped"): "agent.wish.not_met.dropped",
    ("not_met", "not_in_plan"): "agent.wish.not_met.not_in_plan",
    ("not_met", "none_in_data"): "agent.wish.not_met.none_in_data",
    ("not_met", "no_meal"): "agent.wish.not_met.no_meal",
    ("not_met", "not_at_meal"): "agent.wish.not_met.not_at_meal",
    ("unread", "not_understood"): "agent.wish.unread",
    ("not_met", "not_found"): "agent.wish.not_met.not_found",
}

_BY_STATUS = {"met": "agent.wish.met_kept", "partly": "agent.wish.partly", "not_met": "agent.wish.not_met.not_in_plan",
              "unread": "agent.wish.unread"}  # fmt: skip


def wish_label(outcome: TripWishOutcome, pack: RegionPack, lang: Lang) -> str:
    """What the wish asks for, as a noun in ``lang``."""
    wish = outcome.wish
    if wish.kind in ("cuisine", "drink", "diet"):
        return halfday_label(Wish(kind=wish.kind, code=wish.code, phrase=wish.phrase), lang)
    if wish.kind == "kids":
        return halfday_label(Wish(kind="kids", code="child_suitable"), lang)
    if wish.kind == "interest" and wish.code in INTERESTS:
        return t(f"agent.wish.interest.{wish.code}", lang)
    if wish.kind == "pace" and wish.code in ("relaxed", "tight"):
        return t(f"agent.wish.pace.{wish.code}", lang)
    if wish.kind == "place":
        return name_of(pack, wish.code, wish.phrase, lang)
    if wish.kind == "place_not_found":  # in the person's own words: the data has no name of it to give
        return t("agent.wish.as_said", lang, phrase=wish.phrase)
    return halfday_label(Wish(kind="unread", phrase=wish.phrase or wish.code), lang)


def wish_lines(
    outcomes: list[TripWishOutcome], result: ItineraryResult, pack: RegionPack, lang: Lang, *, reasons_above: bool
) -> list[str]:
    """The heading and one line per wish (none when the message said no wish). ``reasons_above``: the answer already
    says why each dropped place was left out (the plan's own lines), so a dropped place's wish points there."""
    if not outcomes:
        return []
    dropped = {d.key: d for d in result.dropped_items}
    lines = [t("agent.wish.heading", lang)]
    for o in outcomes:
        names = join_words([name_of(pack, pid, pid, lang) for pid in o.place_ids], lang)
        item = dropped.get(o.place_ids[0]) if o.reason == "dropped" and o.place_ids else None
        reason = reason_sentence(item, result, lang) if item is not None else ""
        key = OUTCOMES.get((o.status, o.reason), _BY_STATUS[o.status])
        if o.reason == "dropped" and reasons_above:
            key = "agent.wish.not_met.dropped_above"
        if o.reason == "not_found" and o.place_ids:
            key = "agent.wish.not_met.not_found_like"  # with the places that really resemble it, offered
        if o.status == "met" and o.reason == "served":
            key = "agent.wish.met_place" if o.wish.kind == "place" else key if o.place_ids else "agent.wish.met_kept"
        meal = t(MEAL_KEYS[o.meal], lang) if o.meal in MEAL_KEYS else ""
        if meal and key == "agent.wish.met":
            key = "agent.wish.met_meal"  # the restaurant is the meal: say which
        lines.append(t(key, lang, wish=wish_label(o, pack, lang), places=names, reason=reason, meal=meal))
    return lines
