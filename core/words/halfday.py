"""The half-day planner's codes → catalog keys (locales/*/LC_MESSAGES/halfday.po); the core returns codes and facts.

Every table maps a code the core can emit to the key of its words. tests/ui/test_half_day_page.py collects the codes
from the core (risks in core/halfday/score.py, reasons and exclusions in search.py, relax codes, warnings in
pipeline.py and travel.py, error codes, the goal's closed vocabularies, the packs' categories and tags) and fails
when one has no key here or the key has no words in either language. The reservation flow's words are
components/reservation_words.py's. Sentences are built in components/halfday/text.py.
"""

from __future__ import annotations

from datetime import date, time

from core import i18n
from core.i18n import Lang, t
from core.models.common import is_straight_line
from core.models.halfday.events import HalfDayResult, PlanWords, ResultWords, StepWords
from core.models.halfday.facts import DroppedPlan, IntroFacts, PlanIntro, StepReason
from core.models.halfday.plans import Plan, PlanStep
from core.route.notices import VALUE_WORDS
from core.words.halfday_wishes import plan_wishes, prefixed_wish

Keys = dict[str, str]  # code -> catalog key

#: the planner's stages (core/halfday/events.py StageCode; a stage is named after its first tool). A tool's own
#: words have the key its name gives (``tool_words``)
STAGES: Keys = {
    "started": "halfday.stage.started",
    "decompose_goal": "halfday.stage.decompose_goal",
    "get_memory": "halfday.stage.get_memory",
    "analyze_user_profile": "halfday.stage.analyze_user_profile",
    "plan_time_slots": "halfday.stage.plan_time_slots",
    "search_places": "halfday.stage.search_places",
    "rank_places_for_plan": "halfday.stage.rank_places_for_plan",
    "present_and_reserve": "halfday.stage.present_and_reserve",
}
#: the five dimensions of the score (core/halfday/score.py) and what each means
DIMENSIONS: Keys = {
    "T": "halfday.dimension.t",
    "D": "halfday.dimension.d",
    "P": "halfday.dimension.p",
    "C": "halfday.dimension.c",
    "S": "halfday.dimension.s",
}
DIMENSION_HELP: Keys = {
    "T": "halfday.dimension_help.t",
    "D": "halfday.dimension_help.d",
    "P": "halfday.dimension_help.p",
    "C": "halfday.dimension_help.c",
    "S": "halfday.dimension_help.s",
}
#: what a person may want (core/models/halfday/goal.py PreferenceCode), as theme nouns
PREFERENCES: Keys = {
    "museum": "halfday.preference.museum",
    "art": "halfday.preference.art",
    "history": "halfday.preference.history",
    "park": "halfday.preference.park",
    "nature": "halfday.preference.nature",
    "landmark": "halfday.preference.landmark",
    "temple": "halfday.preference.temple",
    "shopping": "halfday.preference.shopping",
    "market": "halfday.preference.market",
    "theatre": "halfday.preference.theatre",
    "cafe": "halfday.preference.cafe",
    "food": "halfday.preference.food",
    "local_food": "halfday.preference.local_food",
    "science": "halfday.preference.science",
    "night_view": "halfday.preference.night_view",
    "photo": "halfday.preference.photo",
    "quiet": "halfday.preference.quiet",
    "kid_activity": "halfday.preference.kid_activity",
    "indoor": "halfday.preference.indoor",
    "outdoor": "halfday.preference.outdoor",
    "walk": "halfday.preference.walk",
    "relax": "halfday.preference.relax",
}
#: the packs' place categories (``category:<code>`` in a plan's theme)
CATEGORIES: Keys = {
    "address": "halfday.category.address",
    "airport": "halfday.category.airport",
    "district": "halfday.category.district",
    "cafe": "halfday.category.cafe",
    "family": "halfday.category.family",
    "hotel": "halfday.category.hotel",
    "landmark": "halfday.category.landmark",
    "market": "halfday.category.market",
    "museum": "halfday.category.museum",
    "park": "halfday.category.park",
    "restaurant": "halfday.category.restaurant",
    "shopping": "halfday.category.shopping",
    "station": "halfday.category.station",
    "stop": "halfday.category.stop",
    "temple": "halfday.category.temple",
    "theatre": "halfday.category.theatre",
}
#: the packs' place tags (what the memory learns affinities for)
TAGS: Keys = {
    "accessible": "halfday.tag.accessible",
    "alcohol": "halfday.tag.alcohol",
    "art": "halfday.tag.art",
    "budget": "halfday.tag.budget",
    "food": "halfday.tag.food",
    "free": "halfday.tag.free",
    "halal": "halfday.tag.halal",
    "historic": "halfday.tag.historic",
    "indoor": "halfday.tag.indoor",
    "kid_friendly": "halfday.tag.kid_friendly",
    "light_options": "halfday.tag.light_options",
    "local_favourite": "halfday.tag.local_favourite",
    "nature": "halfday.tag.nature",
    "night_view": "halfday.tag.night_view",
    "outdoor": "halfday.tag.outdoor",
    "photo_spot": "halfday.tag.photo_spot",
    "premium": "halfday.tag.premium",
    "quiet": "halfday.tag.quiet",
    "rainy_day_ok": "halfday.tag.rainy_day_ok",
    "science": "halfday.tag.science",
    "shopping": "halfday.tag.shopping",
    "spicy": "halfday.tag.spicy",
    "transport": "halfday.tag.transport",
    "vegan_options": "halfday.tag.vegan_options",
    "vegetarian_friendly": "halfday.tag.vegetarian_friendly",
}
#: why a step is in a plan (core/halfday/search.py; ``matches_<preference>`` from PREFERENCES)
REASONS: Keys = {
    "kid_friendly": "halfday.reason.kid_friendly",
    "accessible": "halfday.reason.accessible",
    "light_options": "halfday.reason.light_options",
    "named_in_goal": "halfday.reason.named_in_goal",
}
#: a plan's risks (core/halfday/score.py): {place} is the step's name, the rest are the risk's facts
RISKS: Keys = {
    "LEG_OVER_TRAVEL_BUDGET": "halfday.risk.leg_over_travel_budget",
    "TRAVEL_OVER_BUDGET": "halfday.risk.travel_over_budget",
    "NO_MEAL_PLANNED": "halfday.risk.no_meal_planned",
    "OPENING_HOURS_UNKNOWN": "halfday.risk.opening_hours_unknown",
    "CLOSES_SOON": "halfday.risk.closes_soon",
    "QUEUE": "halfday.risk.queue",
    "BOOKING_TOO_LATE": "halfday.risk.booking_too_late",
    "NEEDS_BOOKING_AHEAD": "halfday.risk.needs_booking_ahead",
    "BOOKING_RECOMMENDED": "halfday.risk.booking_recommended",
    "PRICE_UNKNOWN": "halfday.risk.price_unknown",
    "LONG_LEG": "halfday.risk.long_leg",
    "OUTDOOR_WEATHER": "halfday.risk.outdoor_weather",
    "ACCESS_UNKNOWN": "halfday.risk.access_unknown",
    "OVER_BUDGET": "halfday.risk.over_budget",
    "TRAVEL_ESTIMATED": "halfday.risk.travel_estimated",
}
#: soft filters loosened when the plans were not feasible enough (core/models/halfday/facts.py RelaxCode)
RELAX: Keys = {
    "crowd": "halfday.relax.crowd",
    "preferences": "halfday.relax.preferences",
    "budget": "halfday.relax.budget",
    "walk_limit": "halfday.relax.walk_limit",
    "indoor": "halfday.relax.indoor",
    "distance": "halfday.relax.distance",
}
#: warnings of the run (core/halfday/pipeline.py, travel.py) and the composer's notes
WARNINGS: Keys = {
    "ORIGIN_UNRESOLVED": "halfday.warning.origin_unresolved",
    "ORIGIN_FROM_LOCAL_GAZETTEER": "halfday.warning.origin_from_local_gazetteer",
    "TRAVEL_BREAKER_OPEN": "halfday.warning.travel_breaker_open",
    "TRAVEL_SERVICE_FAILED": "halfday.warning.travel_service_failed",
    "TRAVEL_FROM_LOCAL_ESTIMATE": "halfday.warning.travel_from_local_estimate",
    "fewer_than_two_distinct_plans": "halfday.warning.fewer_than_two_distinct_plans",
    "NAMED_PLACE_NOT_FOUND": "halfday.warning.named_place_not_found",
    "NAMED_PLACE_UNAVAILABLE": "halfday.warning.named_place_unavailable",
    "DEGRADED_DATA": "halfday.warning.degraded_data",
    "REGION_SWITCHED": "halfday.warning.region_switched",  # scope before answer (core/app/scope.py)
    # stage 6 on a map service paid by the destination (core/halfday/screen.py)
    "PLAN_DROPPED_ON_MEASURED_LEGS": "halfday.warning.plan_dropped_on_measured_legs",
    "LEGS_LEFT_ESTIMATED": "halfday.warning.legs_left_estimated",
}
#: why a plan composed on estimates was left out once its legs were measured (DroppedPlan.reason)
DROPPED: Keys = {
    "window": "halfday.dropped.window",
    "leg_over_budget": "halfday.dropped.leg_over_budget",
    "travel_over_budget": "halfday.dropped.travel_over_budget",
}
#: how a map service failed before its answer came from the local estimate (WarningFacts.causes): the route
#: notices' own table, one wording for every face
CAUSES: Keys = VALUE_WORDS["cause"]
#: a fatal end of planning (done type error) and refusals of the core
ERRORS: Keys = {
    "TOOL_OUTPUT_INVALID": "halfday.error.tool_output_invalid",
    "TOOL_INPUT_INVALID": "halfday.error.tool_input_invalid",
    "TOOL_FAILED": "halfday.error.tool_failed",
    "TOOL_EMPTY": "halfday.error.tool_empty",
    "DATABASE_UNREACHABLE": "halfday.error.database_unreachable",
    "INTERNAL_ERROR": "halfday.error.internal_error",
    "AMBIGUOUS_PLACE": "halfday.error.ambiguous_place",
    "NO_FEASIBLE_PLAN": "halfday.error.no_feasible_plan",
    "DEGRADED_DECLINED": "halfday.error.degraded_declined",
    "STREAM_LOST": "halfday.error.stream_lost",  # the worker holding the stream stopped (a reconnect found it quiet)
    "BREAKER_OPEN": "halfday.error.breaker_open",  # stage 7: the reservation side's breaker is open
    "OMNI_ERROR": "halfday.error.omni_error",
    "INVALID_INPUT": "halfday.error.invalid_input",
    "UNRESOLVED_POINT": "halfday.error.unresolved_point",
    "PLACE_NOT_FOUND": "halfday.error.place_not_found",
    "PROVIDER_ERROR": "halfday.error.provider_error",
    "PROVIDER_UNAVAILABLE": "halfday.error.provider_unavailable",
    "PROVIDER_QUOTA_EXCEEDED": "halfday.error.provider_quota_exceeded",
    "PROVIDER_AUTH_FAILED": "halfday.error.provider_auth_failed",
    "PROVIDER_RATE_LIMITED": "halfday.error.provider_rate_limited",
    "PROVIDER_TIMEOUT": "halfday.error.provider_timeout",
    "PROVIDER_MALFORMED": "halfday.error.provider_malformed",
    "PROVIDER_NOT_REQUESTED": "halfday.error.provider_not_requested",
    "ROUTE_NOT_FOUND": "halfday.error.route_not_found",
    "OUTSIDE_COVERAGE": "halfday.error.outside_coverage",
    "REGION_NOT_COVERED": "halfday.error.region_not_covered",  # scope before answer (core/app/scope.py)
}
#: places left out of the search (core/halfday/search.py), named when no plan was possible
EXCLUDED: Keys = {
    "cuisine_not_asked": "halfday.excluded.cuisine_not_asked",
    "too_young": "halfday.excluded.too_young",
    "alcohol_venue_with_children": "halfday.excluded.alcohol_venue_with_children",
    "disliked_before": "halfday.excluded.disliked_before",
    "closed_in_window": "halfday.excluded.closed_in_window",
    "outdoor_in_rain": "halfday.excluded.outdoor_in_rain",
    "over_budget": "halfday.excluded.over_budget",
    "queue_too_long": "halfday.excluded.queue_too_long",
    "no_preference_match": "halfday.excluded.no_preference_match",
}
#: what the goal did not say (MissingCode): the question to ask
MISSING: Keys = {
    "time_window": "halfday.missing.time_window",
    "time_window_past": "halfday.missing.time_window_past",
    "time_window_invalid": "halfday.missing.time_window_invalid",
}
#: what the parser assumed (AssumptionCode)
ASSUMED: Keys = {
    "date_today": "halfday.assumed.date_today",
    "date_next_weekday": "halfday.assumed.date_next_weekday",
    "part_of_day_default_hours": "halfday.assumed.part_of_day_default_hours",
    "end_from_duration": "halfday.assumed.end_from_duration",
    "end_default_half_day": "halfday.assumed.end_default_half_day",
    "party_default_one_adult": "halfday.assumed.party_default_one_adult",
    "child_age_unknown": "halfday.assumed.child_age_unknown",
    "start_moved_to_now": "halfday.assumed.start_moved_to_now",
    "end_clamped_to_midnight": "halfday.assumed.end_clamped_to_midnight",
}
DIET: Keys = {
    "vegetarian": "halfday.diet.vegetarian",
    "vegan": "halfday.diet.vegan",
    "halal": "halfday.diet.halal",
    "light": "halfday.diet.light",
    "no_spicy": "halfday.diet.no_spicy",
    "no_alcohol": "halfday.diet.no_alcohol",
}
MOBILITY: Keys = {
    "wheelchair": "halfday.mobility.wheelchair",
    "stroller": "halfday.mobility.stroller",
    "limited_walking": "halfday.mobility.limited_walking",
}
WEATHER: Keys = {
    "rain": "halfday.weather.rain",
    "hot": "halfday.weather.hot",
    "cold": "halfday.weather.cold",
}
TRANSPORT: Keys = {
    "walking": "halfday.transport.walking",
    "driving": "halfday.transport.driving",
    "cycling": "halfday.transport.cycling",
    "transit": "halfday.transport.transit",
    "none": "halfday.transport.none",
}
#: where a figure comes from
SOURCES: Keys = {
    "offline_estimate": "halfday.source.offline_estimate",
    "mixed": "halfday.source.mixed",
    "amap": "halfday.source.amap",
    "osrm": "halfday.source.osrm",
    "valhalla": "halfday.source.valhalla",
    "same_place": "halfday.source.same_place",
    "pack": "halfday.source.pack",
    "unknown": "halfday.source.unknown",
    "opening_hours": "halfday.source.opening_hours",
    "no_opening_hours": "halfday.source.no_opening_hours",
    "opening_hours_unparsed": "halfday.source.opening_hours_unparsed",
    "settings": "halfday.source.settings",
    "pack_estimate": "halfday.source.pack_estimate",
}
DAY_TYPES: Keys = {
    "weekday": "halfday.day_type.weekday",
    "weekend": "halfday.day_type.weekend",
    "public_holiday": "halfday.day_type.public_holiday",
}
PARTY_SOURCE: Keys = {
    "goal": "halfday.party_source.goal",
    "memory": "halfday.party_source.memory",
    "default": "halfday.party_source.default",
}
CROWD: Keys = {
    "low": "halfday.crowd.low",
    "medium": "halfday.crowd.medium",
    "high": "halfday.crowd.high",
}

#: a category with its article, for "a half day with a museum and a park" (the category's words in Chinese)
CATEGORY_WITH: Keys = {
    "address": "halfday.category_with.address",
    "airport": "halfday.category_with.airport",
    "district": "halfday.category_with.district",
    "cafe": "halfday.category_with.cafe",
    "family": "halfday.category_with.family",
    "hotel": "halfday.category_with.hotel",
    "landmark": "halfday.category_with.landmark",
    "market": "halfday.category_with.market",
    "museum": "halfday.category_with.museum",
    "park": "halfday.category_with.park",
    "restaurant": "halfday.category_with.restaurant",
    "shopping": "halfday.category_with.shopping",
    "station": "halfday.category_with.station",
    "stop": "halfday.category_with.stop",
    "temple": "halfday.category_with.temple",
    "theatre": "halfday.category_with.theatre",
}

TABLES: dict[str, Keys] = {
    "stages": STAGES,
    "dimensions": DIMENSIONS,
    "preferences": PREFERENCES,
    "categories": CATEGORIES,
    "tags": TAGS,
    "reasons": REASONS,
    "risks": RISKS,
    "relax": RELAX,
    "warnings": WARNINGS,
    "dropped": DROPPED,
    "errors": ERRORS,
    "excluded": EXCLUDED,
    "missing": MISSING,
    "assumed": ASSUMED,
    "diet": DIET,
    "mobility": MOBILITY,
    "weather": WEATHER,
    "transport": TRANSPORT,
    "sources": SOURCES,
    "day_types": DAY_TYPES,
}


def word(table: Keys, code: str, lang: Lang, *, fallback: str | None = None) -> str:
    """The words for ``code`` in ``lang``; an unknown code reads as itself without underscores (never raw, never
    None) unless a ``fallback`` is given."""
    key = table.get(code)
    if key is not None:
        return t(key, lang)
    return fallback if fallback is not None else code.replace("_", " ").replace(":", " ").lower()


def tool_key(tool: str) -> str:
    """The catalog key of a tool's name in words: derived from the name (core.config.HalfDayToolName), so a new
    tool needs no table here, only its words in both halfday.po catalogs."""
    return f"halfday.stage.{tool}"


def tool_words(tool: str, lang: Lang) -> str:
    """A tool's name in words; a tool without words in the catalogs reads as its name without underscores."""
    key = tool_key(tool)
    return word({tool: key} if any(i18n.has(key, x) for x in i18n.LANGS) else {}, tool, lang)


def warning_words(code: str, causes: list[str] | None, lang: Lang) -> str:
    """A warning in words, with how the map service failed when it is known (a timeout, a broken answer, ...)."""
    said = word(WARNINGS, code, lang)
    if not causes:
        return said
    how = join([word(CAUSES, c, lang) for c in causes], lang)
    return t("halfday.warning.with_cause", lang, warning=said, causes=how)


def dropped_words(d: DroppedPlan, lang: Lang) -> str:
    """A plan the measured legs broke, in words: its stops, the leg that broke it (who measured it, its measured and
    estimated minutes) and what it broke."""
    names = {
        pid: en if lang == "en" and en else zh for pid, zh, en in zip(d.place_ids, d.names_zh, d.names_en, strict=True)
    }
    origin = t("halfday.dropped.the_start", lang) if d.from_place_id is None else names[d.from_place_id]
    return t(
        DROPPED[d.reason],
        lang,
        stops=" → ".join(names[pid] for pid in d.place_ids),
        service=word(SOURCES, d.source, lang),
        origin=origin,
        destination=names[d.to_place_id],
        mode=word(TRANSPORT, d.mode, lang),
        measured=d.measured_minutes,
        estimated=d.estimated_minutes,
        cap=d.cap_minutes if d.cap_minutes is not None else "",
    )


def region_switched_words(name: str, region_shown: str, lang: Lang) -> str:
    """REGION_SWITCHED with its facts: the place the goal named and the region the plans are made in."""
    return t("halfday.warning.region_switched_named", lang, name=name, region=region_shown)


def region_not_covered_words(named: str, regions_shown: list[str], lang: Lang) -> str:
    """REGION_NOT_COVERED with its facts: the place the goal named and the regions installed."""
    return t("halfday.error.region_not_covered_named", lang, named=named, regions=join(regions_shown, lang))


def excluded_reason(code: str, lang: Lang) -> str:
    """A search exclusion in words (``diet_<code>`` and ``avoided_<preference>`` included)."""
    if code.startswith("diet_") and code[5:] in DIET:
        return t("halfday.excluded.diet", lang, diet=word(DIET, code[5:], lang))
    if code.startswith("avoided_") and code[8:] in PREFERENCES:
        return t("halfday.excluded.avoided", lang, wish=word(PREFERENCES, code[8:], lang))
    return word(EXCLUDED, code, lang)


#: a broad wish that a narrower one beside it already says ("local food" says "food"): narrower → broader
IMPLIED: dict[str, str] = {"local_food": "food"}


def without_implied(codes: list[str], *, prefix: str = "") -> list[str]:
    """``codes`` (preferences, or reasons ``<prefix><preference>``) without a broad wish that a narrower one in the
    same list already says, so a goal reads "museums and local food", not "museums, local food and food"."""
    said = {c[len(prefix) :] for c in codes if c.startswith(prefix)}
    implied = {IMPLIED[c] for c in said if c in IMPLIED}
    return [c for c in codes if not (c.startswith(prefix) and c[len(prefix) :] in implied)]


def reason(code: str, lang: Lang) -> str:
    """Why a step is in its plan."""
    if code.startswith("matches_"):
        return t("halfday.reason.matches", lang, wish=wish(code[8:], lang))
    return word(REASONS, code, lang)


def wish(code: str, lang: Lang) -> str:
    """A preference code in words: a named wish, or a learned ``tag:<tag or category>``."""
    prefixed = prefixed_wish(code, lang)
    if prefixed is not None:
        return prefixed
    if code.startswith("tag:"):
        tag = code[4:]
        return word(TAGS, tag, lang, fallback=word(CATEGORIES, tag, lang))
    return word(PREFERENCES, code, lang)


def theme(code: str, lang: Lang) -> str:
    """A plan's theme code: a preference, or ``category:<code>``."""
    if code.startswith("category:"):
        return word(CATEGORIES, code.split(":", 1)[1], lang)
    return wish(code, lang)


def has_words(table: Keys, code: str) -> bool:
    """``code`` has a key in ``table`` whose words are written in both languages (never blank)."""
    key = table.get(code)
    return key is not None and all(i18n.messages(lang, "halfday").get(key, "").strip() for lang in i18n.LANGS)


# ---- a plan's intro and its steps' reasons (core/halfday/explain.py), for every face -------------------------
WEEKDAYS = ("common.weekday.mon", "common.weekday.tue", "common.weekday.wed", "common.weekday.thu",
            "common.weekday.fri", "common.weekday.sat", "common.weekday.sun")  # fmt: skip
MONTHS = ("common.month.jan", "common.month.feb", "common.month.mar", "common.month.apr", "common.month.may",
          "common.month.jun", "common.month.jul", "common.month.aug", "common.month.sep", "common.month.oct",
          "common.month.nov", "common.month.dec")  # fmt: skip


def day_label(d: date, lang: Lang) -> str:
    return t("halfday.day", lang, month=t(MONTHS[d.month - 1], lang), day=d.day, weekday=t(WEEKDAYS[d.weekday()], lang))


def clock(value: time) -> str:
    return value.strftime("%H:%M")


def join(items: list[str], lang: Lang) -> str:
    """``a、b、c`` / ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return t("halfday.list.separator", lang).join(items[:-1]) + t("halfday.list.last", lang) + items[-1]


def place_name(step: PlanStep, lang: Lang) -> str:
    """The step's place in ``lang`` (the Chinese name when the pack has no English one)."""
    return step.name_en if lang == "en" and step.name_en else step.name_zh


def party(adults: int, children: int, ages: list[int], lang: Lang) -> str:
    who = [t("halfday.party.adult_one" if adults == 1 else "halfday.party.adults", lang, n=adults)] if adults else []
    if children:
        kids = t("halfday.party.child_one" if children == 1 else "halfday.party.children", lang, n=children)
        if ages:
            kids = t(
                "halfday.party.ages", lang, children=kids, ages=t("halfday.list.separator", lang).join(map(str, ages))
            )
        who.append(kids)
    return t("halfday.list.separator", lang).join(who)


def _about(intro: PlanIntro, lang: Lang) -> str:
    themes = intro.facts.themes
    if intro.code == "wishes":
        wishes = list(dict.fromkeys(theme(c, lang) for c in without_implied(themes) if not c.startswith("category:")))
        return t("halfday.intro.wishes", lang, themes=join(wishes[:3], lang))
    if intro.code == "kinds":
        kinds = dict.fromkeys(c.split(":", 1)[1] for c in themes if c.startswith("category:"))
        return t("halfday.intro.kinds", lang, themes=join([word(CATEGORY_WITH, k, lang) for k in kinds][:3], lang))
    return t("halfday.intro.plain", lang)


def intro_sentence(plan: Plan, lang: Lang) -> str:
    """The plan in words: what it is about, its stops, its window and who goes, and indoors when the weather asks."""
    intro = plan.intro
    names = [place_name(s, lang) for s in plan.steps]
    if intro is None:  # a plan made before plans carried their intro: its stops alone
        return " → ".join(names)
    f: IntroFacts = intro.facts
    key = "halfday.intro.one" if f.stops == 1 else "halfday.intro.many"
    out = t(key, lang, about=_about(intro, lang), stops=" → ".join(names), n=f.stops, minutes=f.travel_minutes)
    when = t(
        "halfday.intro.when",
        lang,
        day=day_label(f.date, lang),
        start=clock(f.start),
        end=clock(f.end),
        party=party(f.adults, f.children, f.children_ages, lang),
    )
    gap = "" if lang == "zh" else " "  # Chinese sentences follow without a space
    out = f"{out}{gap}{when}"
    shelter = _shelter_sentence(f, plan, lang)
    return f"{out}{gap}{shelter}" if shelter else out


#: the weather that asks for shelter, the strongest first
SHELTER_WEATHER = ("rain", "hot", "cold")


def _shelter_sentence(f: IntroFacts, plan: Plan, lang: Lang) -> str:
    """What the plan did about the weather, as its stops show it: every stop is sheltered, for the weather the goal
    named (or else the forecast's); or, in the rain, which stops are still outdoors. Heat or cold only make indoor
    places weigh more: a plan with an outdoor stop then claims nothing."""
    said = [c for c in SHELTER_WEATHER if c in f.weather]
    codes = said or [c for c in SHELTER_WEATHER if c in f.forecast_weather]
    if not codes:
        return ""
    weather = join([t(f"halfday.weather.{c}", lang) for c in codes], lang)
    if not f.outdoor_stops:
        return t("halfday.intro.indoor" if said else "halfday.intro.indoor_forecast", lang, weather=weather)
    if not f.indoor_only:
        return ""
    outdoors = [place_name(s, lang) for s in plan.steps if s.place_id in f.outdoor_stops]
    return t("halfday.intro.outdoor_kept", lang, places=join(outdoors, lang), weather=weather)


def _main_reason(r: StepReason, lang: Lang) -> str:
    f = r.facts
    if r.code == "named":
        return word(REASONS, "named_in_goal", lang)
    if r.code == "matches":
        said = list(dict.fromkeys(wish(c, lang) for c in without_implied(f.matched)))  # café + coffee: "coffee" once
        side = [w for w in dict.fromkeys(wish(c, lang) for c in without_implied(f.on_the_side)) if w not in said]
        parts = [t("halfday.reason.matches", lang, wish=join(said, lang))] if said else []
        if side:
            parts.append(t("halfday.reason.on_the_side", lang, wish=join(side, lang)))
        return t("halfday.list.separator", lang).join(parts)
    if r.code == "suits":
        return join([word(REASONS, s, lang) for s in f.suits], lang)
    if r.code == "meal":
        return t("halfday.reason.meal", lang, kind=word(CATEGORIES, f.category, lang))
    return t("halfday.reason.fits", lang, kind=word(CATEGORIES, f.category, lang))


def leg_is_estimate(step: PlanStep) -> bool:
    """Whether the leg to ``step`` is a straight-line estimate (its words then say so)."""
    return step.travel is not None and is_straight_line(step.travel.source)


def reason_sentence(step: PlanStep, lang: Lang) -> str:
    """Why this place, in words: the main reason, then its facts (open until, the leg to it, its rating)."""
    r = step.reason
    if r is None:
        codes = without_implied(list(step.why), prefix="matches_")
        reasons = [reason(code, lang) for code in codes] or [word(CATEGORIES, step.category, lang)]
        return t("halfday.step.why", lang, reasons=t("halfday.list.separator", lang).join(reasons))
    f = r.facts
    parts = [_main_reason(r, lang)]
    if f.meal is not None:  # a meal is said as the meal it is (breakfast in a morning, lunch, dinner)
        parts.insert(0, t(f"halfday.meal.{f.meal}", lang))
    if r.code != "suits" and f.suits:
        parts.append(join([word(REASONS, s, lang) for s in f.suits], lang))
    if f.open_until is not None:
        parts.append(t("halfday.reason.open_until", lang, time=clock(f.open_until)))
    if f.distance_m is not None and f.travel_minutes is not None:
        km = f"{f.distance_m / 1000:.1f}"
        key = "halfday.reason.leg_estimate" if leg_is_estimate(step) else "halfday.reason.leg"
        parts.append(t(key, lang, km=km, minutes=f.travel_minutes))
    if f.rating is not None:
        parts.append(t("halfday.reason.rating", lang, rating=f"{f.rating:.1f}"))
    return t("halfday.step.why", lang, reasons=t("halfday.list.separator", lang).join(parts))


def result_words(result: HalfDayResult, lang: Lang) -> ResultWords:
    """A result's intros and step reasons in ``lang`` (what an API or CLI answer carries beside the codes)."""
    plans = [
        PlanWords(
            plan_id=p.plan_id,
            intro=intro_sentence(p, lang),
            steps=[
                StepWords(
                    place_id=s.place_id, reason=reason_sentence(s, lang), straight_line_estimate=leg_is_estimate(s)
                )
                for s in p.steps
            ],
            wishes=plan_wishes(p, lang),
        )
        for p in result.plans
    ]
    return ResultWords(lang=lang, plans=plans, dropped=[dropped_words(d, lang) for d in result.dropped_plans])


#: level 2: the two answers (the page's buttons) and what the stage log says was decided
DEGRADED_CHOICES: Keys = {"continue": "halfday.degraded.continue", "stop": "halfday.degraded.stop"}
CHOSEN: Keys = {"continue": "halfday.log.chosen.continue", "stop": "halfday.log.chosen.stop"}
