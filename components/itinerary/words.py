"""The itinerary page's result in words for people, in one language (itinerary.po): place names, days, why a
place is not on the plan and the smallest change that would make it fit, the status, the checks, warnings and
what an edit changed.

No Streamlit here (unit-testable). Place names come from the region pack (``name_en`` in English, ``name_zh`` in
Chinese; the other one is kept for a tooltip or a neighbouring column); a place the pack does not know keeps the
name of the request. The core's codes, formulas and its own English sentences stay in the page's "Details"
section; here the facts are worded again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from components.route_words import Name, pack_names
from core.app.route import source_words
from core.i18n import Lang, t
from core.models.itinerary import TripRequest
from core.models.itinerary_result import DayTimeline, DroppedItem, ItineraryResult, SmallestFix, Violation
from core.words import itinerary as itinerary_words

ANCHOR = "anchor:"
WEEKDAYS = itinerary_words.WEEKDAYS
PRIORITY_WORDS = itinerary_words.PRIORITY_KEYS
KIND_WORDS = {
    "visit": "itinerary.kind.visit",
    "travel": "itinerary.kind.travel",
    "lunch": "itinerary.kind.lunch",
    "wait": "itinerary.kind.wait",
}
PACING_WORDS = {
    "relaxed": "itinerary.pacing.relaxed",
    "normal": "itinerary.pacing.normal",
    "tight": "itinerary.pacing.tight",
}
MODE_WORDS = {
    "driving": "itinerary.mode.driving",
    "walking": "itinerary.mode.walking",
    "cycling": "itinerary.mode.cycling",
}
ACTION_WORDS = {
    "lock": "itinerary.edit.action.lock",
    "move": "itinerary.edit.action.move",
    "remove": "itinerary.edit.action.remove",
    "unlock": "itinerary.edit.action.unlock",
    "add": "itinerary.edit.action.add",
    "reorder": "itinerary.edit.action.reorder",
}
CATEGORY_WORDS = {
    "address": "itinerary.category.address",
    "shopping": "itinerary.category.shopping",
    "restaurant": "itinerary.category.restaurant",
    "landmark": "itinerary.category.landmark",
    "cafe": "itinerary.category.cafe",
    "hotel": "itinerary.category.hotel",
    "museum": "itinerary.category.museum",
    "park": "itinerary.category.park",
    "theatre": "itinerary.category.theatre",
    "station": "itinerary.category.station",
    "stop": "itinerary.category.stop",
    "temple": "itinerary.category.temple",
    "family": "itinerary.category.family",
    "market": "itinerary.category.market",
    "airport": "itinerary.category.airport",
    "district": "itinerary.category.district",
}
#: why a place is not on the plan → its sentence (core/words/itinerary.py says them, for the page and the agent)
REASON_WORDS = itinerary_words.REASON_KEYS
#: the independent check's findings (core/itinerary/critic*.py) → what they mean for the traveller
CRITIC_WORDS = itinerary_words.CRITIC_KEYS
SOURCE_WORDS = {
    "opening_hours": "itinerary.source.opening_hours",
    "pack": "itinerary.source.opening_hours",
    "lunch_policy": "itinerary.source.lunch_policy",
    "settings": "itinerary.source.settings",
}


# --- names ---------------------------------------------------------------------------------------------------------


def other_lang_name(zh: str, en: str, lang: Lang) -> Name:
    shown, alt = (en or zh, zh) if lang == "en" else (zh or en, en)
    return Name(shown, alt if alt and alt != shown else "")


@dataclass(frozen=True)
class Names:
    """Every place of one trip (its keys and the day anchors ``anchor:<place id>``) → its pack names."""

    table: Mapping[str, tuple[str, str]]
    typed: Mapping[str, str]

    def of(self, key: str | None, lang: Lang, fallback: str = "") -> Name:
        zh, en = self.table.get(key or "", ("", ""))
        if zh or en:
            return other_lang_name(zh, en, lang)
        return Name(self.typed.get(key or "", "") or fallback or str(key or ""))

    def shown(self, key: str | None, lang: Lang, fallback: str = "") -> str:
        return self.of(key, lang, fallback).shown


def names_of(request: TripRequest) -> Names:
    pack = pack_names(request.region)
    table: dict[str, tuple[str, str]] = {}
    typed: dict[str, str] = {}
    for place in request.places:
        key = place.key or ""
        if place.place_id is not None and place.place_id in pack:
            table[key] = pack[place.place_id]
        typed[key] = place.name or key
    refs = [request.hotel, *(d.start_place for d in request.days), *(d.end_place for d in request.days)]
    for ref in refs:
        if ref is not None and ref.place_id is not None and ref.place_id in pack:
            table[ANCHOR + ref.place_id] = pack[ref.place_id]
            table.setdefault(ref.place_id, pack[ref.place_id])
    return Names(table, typed)


def catalog_name(place: Mapping[str, object], lang: Lang) -> Name:
    """A place of the page's catalogue (dicts with name_zh / name_en) in ``lang``."""
    return other_lang_name(str(place.get("name_zh") or ""), str(place.get("name_en") or ""), lang)


# --- days, priorities, lists ---------------------------------------------------------------------------------------


def weekday(d: date, lang: Lang) -> str:
    return t(WEEKDAYS[d.weekday()], lang)


def day_words(index: int, d: date, lang: Lang) -> str:
    """``Day 2 · Tue 11-25`` / ``第 2 天 · 周二 11-25``."""
    return t("itinerary.day.label", lang, n=index + 1, weekday=weekday(d, lang), date=f"{d:%m-%d}")


def day_short(index: int, result: ItineraryResult, lang: Lang) -> str:
    """``day 2 (Tue)`` / ``第 2 天(周二)``."""
    if 0 <= index < len(result.days):
        return t("itinerary.day.short", lang, n=index + 1, weekday=weekday(result.days[index].date, lang))
    return t("itinerary.day.number", lang, n=index + 1)


def joined(items: Iterable[str], lang: Lang) -> str:
    return t("itinerary.list_separator", lang).join(items)


def priority_words(priority: str | None, lang: Lang) -> str:
    return t(PRIORITY_WORDS[priority], lang) if priority in PRIORITY_WORDS else ""


def category_words(category: str | None, lang: Lang) -> str:
    return t(CATEGORY_WORDS[category], lang) if category in CATEGORY_WORDS else (category or "")


MONTHS = itinerary_words.MONTHS


def hours_words(text: str | None, lang: Lang) -> str:
    """Opening hours with the day and month names in ``lang`` (core/words/itinerary.py: the agent says them too)."""
    return itinerary_words.hours_sentence(text, lang)


# --- why a place is not on the plan, and the smallest fix ----------------------------------------------------------


def reason_days(item: DroppedItem) -> list[int]:
    """The days a dropped item's sentence is about (as the core's explanation chooses them)."""
    return itinerary_words.reason_days(item)


def reason_words(item: DroppedItem, result: ItineraryResult, lang: Lang) -> str:
    """Why ``item`` is not on the plan, in a sentence (no code)."""
    return itinerary_words.reason_sentence(item, result, lang)


def fix_words(fix: SmallestFix | None, names: Names, lang: Lang) -> str:
    """The smallest verified change that makes the place fit, in a sentence ("" when none was found)."""
    return itinerary_words.fix_sentence(fix, lambda key: names.shown(key, lang), lang)


def no_fix_words(item: DroppedItem, lang: Lang) -> str:
    """What to do when no change was found: another day, a shorter visit, or nothing (removed by you)."""
    if item.reason_code == "REMOVED_BY_USER":
        return t("itinerary.fix.removed", lang)
    if item.reason_code == "CLOSED_ON_DAY":
        return t("itinerary.fix.other_day", lang)
    search = item.facts.get("fix_search")
    if search == "none_found":  # say what was tried, so "it fits" beside it does not read as a contradiction
        return t("itinerary.fix.none_tried", lang, n=item.facts.get("fixes_tried", 0))
    if search == "budget_exhausted":
        return t("itinerary.fix.budget", lang)
    return t("itinerary.fix.none", lang)


# --- status, warnings, checks --------------------------------------------------------------------------------------


def status_words(result: ItineraryResult, names: Names, lang: Lang) -> str:
    totals = result.totals
    if result.status == "ready":
        return t(
            "itinerary.status.ready",
            lang,
            visits=totals.visits,
            requested=totals.places_requested,
            days=totals.days,
            dropped=totals.dropped,
        )
    if result.status == "infeasible":
        musts = [
            names.shown(d.key, lang, d.name)
            for d in result.dropped_items
            if d.priority == "must" and d.reason_code != "REMOVED_BY_USER"
        ]
        if musts:
            return t("itinerary.status.infeasible", lang, places=joined(musts, lang))
        return t("itinerary.status.infeasible_lock", lang)
    return t("itinerary.status.needs_review", lang)


_OFFLINE = re.compile(
    r"^Offline estimate \((?P<mode>\w+)\): straight-line distance x [\d.]+ circuity at (?P<speed>[\d.]+)"
)
_HOURS = re.compile(r"^opening hours of '(?P<key>.+?)' do not parse")


def itinerary_warning_words(warning: str, names: Names, lang: Lang) -> tuple[str, bool]:
    """``(sentence, known)`` for one of the plan's warnings of a known shape; otherwise the core's English (``en``)
    or a general sentence that points to the details (``zh``)."""
    m = _OFFLINE.search(warning)
    if m is not None:
        mode = t(MODE_WORDS[m["mode"]], lang) if m["mode"] in MODE_WORDS else m["mode"]
        return t("itinerary.warning.offline_estimate", lang, mode=mode, speed=m["speed"]), True
    m = _HOURS.search(warning)
    if m is not None:
        return t("itinerary.warning.hours_unreadable", lang, place=names.shown(m["key"], lang)), True
    return (warning if lang == "en" else t("itinerary.warning.unknown", lang)), False


def violation_words(violation: Violation, names: Names, lang: Lang) -> str:
    return itinerary_words.violation_sentence(violation, lambda key: names.shown(key, lang), lang)


def travel_source_words(source: str | None, lang: Lang) -> str:
    """Where a figure came from: the route planner's words for travel sources, this page's for the rest."""
    if source in SOURCE_WORDS:
        return t(SOURCE_WORDS[source], lang)
    return source_words(source, lang) if source else t("itinerary.source.schedule", lang)


# --- what an edit did ----------------------------------------------------------------------------------------------


def visited_keys(result: ItineraryResult) -> set[str]:
    return {e.key for d in result.days for e in d.entries if e.kind == "visit" and e.key}


def newly_dropped(before: ItineraryResult, after: ItineraryResult, edited: str | None) -> list[str]:
    """Keys that were on the plan before an edit and are not after it (the edited place itself aside)."""
    now = visited_keys(after)
    return [k for k in sorted(visited_keys(before)) if k not in now and k != edited]


def dropped_item(result: ItineraryResult, key: str | None) -> DroppedItem | None:
    return next((d for d in result.dropped_items if d.key == key), None)


def edit_key(edit: Mapping[str, object]) -> str:
    """The place an edit concerns: its key, or the key of the place it adds."""
    place = edit.get("place")
    if isinstance(place, Mapping):
        return str(place.get("key") or place.get("place_id") or "")
    return str(edit.get("key") or "")


def edit_words(edit: Mapping[str, object], names: Names, lang: Lang) -> str:
    """``Lock 外滩 to day 2 at 10:00`` as a sentence."""
    kind = str(edit.get("kind"))
    place = names.shown(edit_key(edit), lang)
    day = edit.get("day_index")
    at = edit.get("start_time")
    if kind == "reorder":
        position = int(str(edit.get("position") or 0)) + 1
        if day is None:
            return t("itinerary.edit.done.reorder", lang, place=place, position=position)
        return t("itinerary.edit.done.reorder_day", lang, place=place, position=position, day=int(str(day)) + 1)
    if kind == "add":
        if day is None:
            return t("itinerary.edit.done.add", lang, place=place)
        return t("itinerary.edit.done.add_day", lang, place=place, day=int(str(day)) + 1)
    if kind == "lock":
        if day is not None and at:
            return t("itinerary.edit.done.lock_day_time", lang, place=place, day=int(str(day)) + 1, time=at)
        if day is not None:
            return t("itinerary.edit.done.lock_day", lang, place=place, day=int(str(day)) + 1)
        return t("itinerary.edit.done.lock_time", lang, place=place, time=at or "")
    if kind == "move":
        return t("itinerary.edit.done.move", lang, place=place, day=int(str(day or 0)) + 1)
    if kind == "remove":
        return t("itinerary.edit.done.remove", lang, place=place)
    return t("itinerary.edit.done.unlock", lang, place=place)


def dropped_by_edit_words(
    edit: Mapping[str, object], keys: Sequence[str], result: ItineraryResult, names: Names, lang: Lang
) -> str:
    """ "Locking X to day 3 left out Y (why)" for the places an edit pushed off the plan."""
    parts = []
    for key in keys:
        item = dropped_item(result, key)
        name = names.shown(key, lang, item.name if item else key)
        parts.append(t("itinerary.edit.left_out_one", lang, place=name, why=reason_words(item, result, lang))
                     if item else name)  # fmt: skip
    return t("itinerary.edit.left_out", lang, edit=edit_words(edit, names, lang), places=joined(parts, lang))


def refused_lock_words(edit: Mapping[str, object], result: ItineraryResult, names: Names, lang: Lang) -> str:
    """Why a lock (or a move) cannot be kept: the edited place's own reason, else the must-visits it pushes off."""
    key = str(edit.get("key") or "")
    item = dropped_item(result, key)
    head = edit_words(edit, names, lang)
    if item is not None:
        why = reason_words(item, result, lang)
    else:
        musts = [
            names.shown(d.key, lang, d.name)
            for d in result.dropped_items
            if d.priority == "must" and d.reason_code != "REMOVED_BY_USER"
        ]
        why = t("itinerary.edit.refused_musts", lang, places=joined(musts, lang))
    return t("itinerary.edit.refused", lang, edit=head, why=why)


def place_of_entry(day: DayTimeline, i: int) -> str:
    """The place where entry ``i`` of a day happens (lunch and waits carry no key): the last place reached."""
    for e in reversed(day.entries[:i]):
        if e.kind == "travel" and e.to_key:
            return e.to_key
        if e.kind == "visit" and e.key:
            return e.key
    return day.start_key


BALANCE_REASON_WORDS = {
    "LOCKED_TO_DAY": "itinerary.balance.reason.locked_to_day",
    "ONLY_OPEN_THAT_DAY": "itinerary.balance.reason.only_open_that_day",
    "SHORTER_DAY": "itinerary.balance.reason.shorter_day",
    "LIGHT_DAY_FULL": "itinerary.balance.reason.light_day_full",
    "REMOTE_CLUSTER": "itinerary.balance.reason.remote_cluster",
    "HOTEL_DISTANCE": "itinerary.balance.reason.hotel_distance",
    "NO_BETTER_SPLIT": "itinerary.balance.reason.no_better_split",
}
#: At most this many places are named in a balance sentence; the rest are counted.
BALANCE_NAMED_PLACES = 3


def balance_words(result: ItineraryResult, names: Names, lang: Lang) -> list[str]:
    """Why the days stay uneven, a sentence per reason of the core (``result.balance``); nothing when they are
    even. Codes and facts stay in the Details section."""
    balance = result.balance
    if balance is None or balance.balanced:
        return []
    out = []
    for reason in balance.reasons:
        key = BALANCE_REASON_WORDS.get(reason.code, "itinerary.balance.reason.no_better_split")
        shown = [names.shown(k, lang, k) for k in reason.keys[:BALANCE_NAMED_PLACES]]
        if len(reason.keys) > BALANCE_NAMED_PLACES:
            shown.append(t("itinerary.balance.more_places", lang, n=len(reason.keys) - BALANCE_NAMED_PLACES))
        facts = reason.facts
        out.append(
            t(
                key,
                lang,
                heavy_day=day_short(reason.heavy_day, result, lang),
                light_day=day_short(reason.light_day, result, lang),
                heavy_visits=facts.get("heavy_visits", 0),
                light_visits=facts.get("light_visits", 0),
                places=joined(shown, lang),
                light_free=facts.get("light_free_min", 0),
                heavy_free=facts.get("heavy_free_min", 0),
                extra=facts.get("extra_travel_min", 0),
            )
        )
    return out


def balance_moved_words(result: ItineraryResult, lang: Lang) -> str | None:
    """A short note when places were moved between days to even them out (None otherwise)."""
    balance = result.balance
    if balance is None or not balance.moves:
        return None
    return t("itinerary.balance.moved", lang, n=balance.moves, extra=balance.extra_travel_min)


# --- the Details, in words -----------------------------------------------------------------------------------------
def details_lines(result: ItineraryResult, lang: Lang) -> list[str]:
    """What the raw data below says, in sentences: how long planning took and where the travel times came from, the
    margins added to journeys and visits, and how much of the plan could absorb delays."""
    p, r = result.policy, result.robustness
    lines = [
        t("itinerary.details.solved", lang, seconds=f"{result.seconds:.1f}",
          source=travel_source_words(result.matrix_source, lang)),
        t("itinerary.details.margins", lang, factor=f"{p.factor:g}", buffer=p.buffer_min, visit=f"{p.visit_factor:g}"),
    ]  # fmt: skip
    if r.legs:
        lines.append(
            t("itinerary.details.covered", lang, tolerance=f"{r.tolerance:.0%}", covered=r.legs_fully_covered,
              legs=r.legs)
        )  # fmt: skip
    if r.min_slack_min is not None and r.mean_slack_min is not None:
        lines.append(t("itinerary.details.slack", lang, least=r.min_slack_min, mean=f"{r.mean_slack_min:.0f}"))
    return lines
