"""An itinerary's dropped places in words (issue 12 §1): why each place is not on the plan and the smallest change
that would fit it, in ``lang`` from the reason codes and facts of core/itinerary/drop_reasons.py (itinerary.po:
itinerary.reason.*, itinerary.fix.*). The itinerary page (components/itinerary/words.py) and the agent's replies
(core/words/agent.py) both say them from here, so they say the same thing and no code is shown."""

from __future__ import annotations

import re
from collections.abc import Callable

from core.i18n import Lang, join_words, t
from core.models.itinerary_result import DroppedItem, ItineraryResult, SmallestFix, Violation

#: why a place is not on the plan (core.models.itinerary.DROP_REASONS) → its sentence (itinerary.po)
REASON_KEYS = {
    "CLOSED_ON_DAY": "itinerary.reason.closed_on_day",
    "OUTSIDE_OPENING_HOURS": "itinerary.reason.outside_opening_hours",
    "UNREACHABLE_IN_WINDOW": "itinerary.reason.unreachable_in_window",
    "PAST_DAY_END": "itinerary.reason.past_day_end",
    "BEFORE_DAY_START": "itinerary.reason.before_day_start",
    "LUNCH_CONFLICT": "itinerary.reason.lunch_conflict",
    "MEAL_TIME_CLOSED": "itinerary.reason.meal_time_closed",
    "LUNCH_TAKEN": "itinerary.reason.lunch_taken",
    "DAY_TOO_FULL": "itinerary.reason.day_too_full",
    "LOW_PRIORITY_TRADEOFF": "itinerary.reason.low_priority_tradeoff",
    "REMOVED_BY_USER": "itinerary.reason.removed_by_user",
}
WEEKDAYS = (
    "itinerary.weekday.mon",
    "itinerary.weekday.tue",
    "itinerary.weekday.wed",
    "itinerary.weekday.thu",
    "itinerary.weekday.fri",
    "itinerary.weekday.sat",
    "itinerary.weekday.sun",
)
#: a meal stop's meal (core.models.itinerary.Meal) → its word
MEAL_KEYS = {"lunch": "itinerary.meal.lunch", "dinner": "itinerary.meal.dinner"}
PRIORITY_KEYS = {
    "must": "itinerary.priority.must",
    "should": "itinerary.priority.should",
    "nice": "itinerary.priority.nice",
}
#: per-day reasons that say the place belongs to another day rather than why this day cannot hold it
ELSEWHERE = {"CLOSED_ON_DAY", "LOCKED_TO_OTHER_DAY"}

PlaceName = Callable[[str], str]  # a place key → its name in the reply's language


def reason_days(item: DroppedItem) -> list[int]:
    """The days a dropped place's reason is about (0-based), as the core's explanation chooses them."""
    code = item.reason_code
    if code in {"CLOSED_ON_DAY", "LUNCH_CONFLICT"}:
        return sorted(d for d, v in item.per_day_reasons.items() if v == code)
    return sorted(d for d, v in item.per_day_reasons.items() if v not in ELSEWHERE)


def _day(index: int, result: ItineraryResult, lang: Lang) -> str:
    if 0 <= index < len(result.days):
        weekday = t(WEEKDAYS[result.days[index].date.weekday()], lang)
        return t("itinerary.day.short", lang, n=index + 1, weekday=weekday)
    return t("itinerary.day.number", lang, n=index + 1)


def reason_sentence(item: DroppedItem, result: ItineraryResult, lang: Lang) -> str:
    """Why ``item`` is not on the plan, in ``lang`` (a code this build does not know gets a general sentence)."""
    days = [_day(d, result, lang) for d in reason_days(item)]
    lunch = result.lunch
    facts = item.facts
    if item.reason_code in {"LOW_PRIORITY_TRADEOFF", "DAY_TOO_FULL"} and "planned_on_day" in facts:
        key = (
            "itinerary.reason.low_priority_tradeoff_day"
            if item.reason_code == "LOW_PRIORITY_TRADEOFF"
            else "itinerary.reason.day_too_full_day"
        )
        return t(
            key,
            lang,
            day=_day(int(facts.get("best_day") or 0), result, lang),
            planned=facts["planned_on_day"],
            higher=facts.get("higher_on_day", 0),
            visit=facts.get("visit_min", ""),
        )
    key = REASON_KEYS.get(item.reason_code, "itinerary.reason.other")
    if item.reason_code == "OUTSIDE_OPENING_HOURS" and facts.get("start") and facts.get("open_hours"):
        key = "itinerary.reason.outside_opening_hours_at"  # a lock at a time: the hours it falls outside
    elif item.reason_code in {"PAST_DAY_END", "BEFORE_DAY_START"} and not facts.get("start"):
        key += "_any"  # no locked time among the facts: the day's bound alone
    best = int(facts.get("best_day") or 0)
    day = result.days[best] if 0 <= best < len(result.days) else None
    return t(
        key,
        lang,
        days=join_words(days, lang) if days else t("itinerary.day.none", lang),
        visit=facts.get("visit_min", ""),
        lunch=lunch.duration_min,
        window=f"{lunch.window_start:%H:%M}–{lunch.window_end:%H:%M}",
        start=facts.get("start") or "",
        day_start=facts.get("day_start") or (f"{day.day_start:%H:%M}" if day else ""),
        day_end=facts.get("day_end") or (f"{day.day_end:%H:%M}" if day else ""),
        hours=str(facts.get("open_hours") or "").replace("-", "–"),
        meal=t(MEAL_KEYS[meal], lang) if (meal := str(facts.get("meal") or "")) in MEAL_KEYS else "",
        meal_window=str(facts.get("meal_window") or "").replace("-", "–"),
        lunch_place=facts.get("lunch_place") or "",
    )


def fix_sentence(fix: SmallestFix | None, place_name: PlaceName, lang: Lang) -> str:
    """The smallest verified change that fits the place, in ``lang`` ("" when none was found)."""
    if fix is None:
        return ""
    day = (fix.day_index or 0) + 1
    if fix.kind == "extend_day_end":
        return t("itinerary.fix.extend_day_end", lang, day=day, time=fix.facts.get("new_end", ""))
    if fix.kind == "start_day_earlier":
        return t("itinerary.fix.start_day_earlier", lang, day=day, time=fix.facts.get("new_start", ""))
    if fix.kind == "shorten_visit":
        return t("itinerary.fix.shorten_visit", lang, day=day, minutes=fix.minutes or "")
    priority = str(fix.facts.get("drop_priority") or "")
    return t(
        "itinerary.fix.drop_stop",
        lang,
        day=day,
        place=place_name(fix.drop_key) if fix.drop_key else "",
        priority=t(PRIORITY_KEYS[priority], lang) if priority in PRIORITY_KEYS else "",
    )


#: the independent check's findings (core/itinerary/critic*.py) → what they mean for the traveller
CRITIC_KEYS = {
    "LUNCH_MISSING": "itinerary.critic.lunch",
    "LUNCH_DUPLICATE": "itinerary.critic.lunch",
    "LUNCH_OUTSIDE_WINDOW": "itinerary.critic.lunch",
    "LUNCH_TOO_SHORT": "itinerary.critic.lunch",
    "TIME_WINDOW_VIOLATION": "itinerary.critic.opening_hours",
    "VISIT_TOO_SHORT": "itinerary.critic.visit_short",
    "LOCK_VIOLATED": "itinerary.critic.lock",
    "MUST_DROPPED_SILENTLY": "itinerary.critic.must_missing",
    "PLACE_UNACCOUNTED": "itinerary.critic.must_missing",
    "DAY_BOUNDS_VIOLATION": "itinerary.critic.day_bounds",
    "ROBUST_TIME_NOT_USED": "itinerary.critic.travel_time",
    "MEAL_MISLABELED": "itinerary.critic.meal_label",
    "MEAL_OUTSIDE_WINDOW": "itinerary.critic.meal_time",
}


def violation_sentence(violation: Violation, place_name: PlaceName, lang: Lang) -> str:
    """One finding of the critic as a sentence for the traveller (a code without words gets a general one)."""
    key = CRITIC_KEYS.get(violation.code, "itinerary.critic.other")
    return t(key, lang, place=place_name(violation.key) if violation.key else "")


_OSM_DAYS = {"Mo": 0, "Tu": 1, "We": 2, "Th": 3, "Fr": 4, "Sa": 5, "Su": 6, "su": 6}
MONTHS = {
    "Jan": "itinerary.month.jan",
    "Feb": "itinerary.month.feb",
    "Mar": "itinerary.month.mar",
    "Apr": "itinerary.month.apr",
    "May": "itinerary.month.may",
    "Jun": "itinerary.month.jun",
    "Jul": "itinerary.month.jul",
    "Aug": "itinerary.month.aug",
    "Sep": "itinerary.month.sep",
    "Oct": "itinerary.month.oct",
    "Nov": "itinerary.month.nov",
    "Dec": "itinerary.month.dec",
}
_OSM_WORDS = {
    "off": "itinerary.hours.off",
    "closed": "itinerary.hours.off",
    "open": "itinerary.hours.open",
    "PH": "itinerary.hours.holidays",
}


def hours_sentence(text: str | None, lang: Lang) -> str:
    """Opening hours in OSM syntax with the day and month names in ``lang`` (``Mo-Fr 09:00-17:00`` →
    ``周一-周五 09:00-17:00``); blank → "always open". Quoted comments of the data stay as the data has them."""
    if not text or not text.strip():
        return t("itinerary.hours.always", lang)
    if text.strip() == "24/7":
        return t("itinerary.hours.always", lang)

    def word(m: re.Match[str]) -> str:
        token = m.group(0)
        if token in _OSM_DAYS:
            return t(WEEKDAYS[_OSM_DAYS[token]], lang)
        if token in MONTHS:
            return t(MONTHS[token], lang)
        return t(_OSM_WORDS[token], lang)

    parts = re.split(r'("[^"]*")', text)  # "quoted comments" are the data's own words
    days = r"\b(?:Mo|Tu|We|Th|Fr|Sa|Su|su|PH|off|closed|open|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b"
    return "".join(p if p.startswith('"') else re.sub(days, word, p) for p in parts)
