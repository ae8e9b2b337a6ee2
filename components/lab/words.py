"""The strategy lab in words for people, one language at a time (locales/*/LC_MESSAGES/lab.po).

No Streamlit here (unit-testable). The core (core/lab) returns codes and figures: strategy and optimiser names,
flags such as ``STRATEGIES_CANNOT_DIFFER``, error codes; this module words them. Every statistic is worded with its
sample size and its spread (median, p10–p90 and the bootstrap interval of the median), never as a lone mean.
"""

from __future__ import annotations

from typing import Any

from components.route_words import STRATEGY_WORDS, TRANSPORT_WORDS
from core.i18n import Lang, t

OPTIMISER_WORDS = {
    "project": "lab.optimiser.project",
    "ortools_gls": "lab.optimiser.ortools_gls",
    "valhalla": "lab.optimiser.valhalla",
    "nearest_neighbour": "lab.optimiser.nearest_neighbour",
    "itinerary": "lab.optimiser.itinerary",
}
OBJECTIVE_WORDS = {"distance_m": "lab.objective.distance", "duration_s": "lab.objective.duration"}
STATUS_WORDS = {"ok": "lab.status.ok", "error": "lab.status.error", "not_applicable": "lab.status.not_applicable"}
#: why a row failed, by the core's error code (anything else: lab.error.other)
ERROR_WORDS = {
    "INVALID_INPUT": "lab.error.invalid_input",
    "UNRESOLVED_POINT": "lab.error.unresolved",
    "AMBIGUOUS_PLACE": "lab.error.ambiguous",
    "WORKER_FAILED": "lab.error.worker_failed",
    "INTERNAL_ERROR": "lab.error.internal",
    "REGION_NOT_FOUND": "lab.error.region",
    "PROVIDER_NOT_CONFIGURED": "lab.error.provider",
    "PROVIDER_UNAVAILABLE": "lab.error.provider",
    "PROVIDER_MALFORMED": "lab.error.provider",
    "PROVIDER_NOT_REQUESTED": "lab.error.provider",
    "ROUTE_NOT_FOUND": "lab.error.route",
    "OUTSIDE_COVERAGE": "lab.error.route",
}
COLOUR_WORDS = {"strategy": "lab.map.colour.strategy", "saving": "lab.map.colour.saving"}
SOURCE_WORDS = {
    "shipped": "lab.batch.source.shipped",
    "upload": "lab.batch.source.upload",
    "path": "lab.batch.source.path",
}


def strategy_name(code: str | None, lang: Lang) -> str:
    return t(STRATEGY_WORDS[code], lang) if code in STRATEGY_WORDS else str(code or "")


def mode_name(code: str | None, lang: Lang) -> str:
    return t(TRANSPORT_WORDS[code], lang) if code in TRANSPORT_WORDS else str(code or "")


def optimiser_name(code: str | None, lang: Lang) -> str:
    return t(OPTIMISER_WORDS[code], lang) if code in OPTIMISER_WORDS else str(code or "")


def objective_name(code: str | None, lang: Lang) -> str:
    return t(OBJECTIVE_WORDS[code], lang) if code in OBJECTIVE_WORDS else str(code or "")


def status_name(code: str | None, lang: Lang) -> str:
    return t(STATUS_WORDS[code], lang) if code in STATUS_WORDS else str(code or "")


def error_reason(code: str | None, lang: Lang) -> str:
    """Why a request could not be run, from its error code."""
    if code in ERROR_WORDS:
        return t(ERROR_WORDS[code], lang)
    if str(code or "").startswith("PROVIDER"):
        return t("lab.error.provider", lang)
    return t("lab.error.other", lang)


def _signed(value: float, digits: int) -> str:
    """``+1.5`` / ``-0.2`` / ``0.0``: a difference with its sign, never ``-0.0``."""
    rounded = round(value, digits) + 0.0
    return f"{rounded:+.{digits}f}" if rounded else f"{0.0:.{digits}f}"


def minutes(seconds: float | None, lang: Lang) -> str:
    return "–" if seconds is None else t("lab.unit.minutes", lang, value=_signed(seconds / 60, 1))


def kilometres(metres: float | None, lang: Lang) -> str:
    return "–" if metres is None else t("lab.unit.km", lang, value=_signed(metres / 1000, 2))


def percent(share: float | None) -> str:
    return "–" if share is None else f"{share * 100:.1f} %"


def group_words(
    region: str, provider: str, mode: str, lang: Lang, *, region_label: Any = None, provider_label: Any = None
) -> str:
    """``Helsinki · offline · driving`` in words (the callers pass the frame's region and provider labels)."""
    region_text = region_label(region, lang) if region_label else region
    provider_text = provider_label(provider, lang) if provider_label else provider
    return t("lab.group", lang, region=region_text, provider=provider_text, mode=mode_name(mode, lang))


def pair_sentence(pair: Any, lang: Lang, *, group: str) -> str:
    """One pair of strategies over a group of requests: n, how many differ, the medians with p10–p90 and the
    bootstrap interval of the median (``pair`` is a core.models.lab.PairSummary)."""
    saved, added = pair.time_saved_s, pair.distance_added_m
    return t(
        "lab.pair.finding",
        lang,
        group=group,
        n=pair.n,
        differ=pair.n_differ,
        a=strategy_name(pair.a, lang),
        b=strategy_name(pair.b, lang),
        saved=minutes(saved.median, lang),
        saved_p10=minutes(saved.p10, lang),
        saved_p90=minutes(saved.p90, lang),
        saved_lo=minutes(saved.median_ci_low, lang),
        saved_hi=minutes(saved.median_ci_high, lang),
        added=kilometres(added.median, lang),
        added_p10=kilometres(added.p10, lang),
        added_p90=kilometres(added.p90, lang),
        added_lo=kilometres(added.median_ci_low, lang),
        added_hi=kilometres(added.median_ci_high, lang),
    )


def cannot_differ_sentence(group: str, n: int, a: str, b: str, lang: Lang) -> str:
    """Why two strategies agree on straight-line estimates: the route planner's own sentence (core/words/route.py's
    STRATEGIES_AGREE_ON_ESTIMATES wording), after what the lab saw."""
    return t(
        "lab.honesty.cannot_differ",
        lang,
        group=group,
        n=n,
        a=strategy_name(a, lang),
        b=strategy_name(b, lang),
        why=t("route.strategies_agree.estimates", lang),
    )


#: below these medians two strategies "barely differ": under the figures' own rounding on the page (0.1 min shown)
#: and well under a city block
BARELY_SECONDS = 30.0
BARELY_METRES = 100.0


def closeness_sentence(pair: Any, lang: Lang) -> str | None:
    """Why two strategies on real figures come out (nearly) the same, beside their figures: they chose the same order
    on most requests, or the medians are within half a minute and 100 m. None: they differ enough to read the
    figures alone (``pair`` is a core.models.lab.PairSummary)."""
    saved, added = pair.time_saved_s.median, pair.distance_added_m.median
    a, b = strategy_name(pair.a, lang), strategy_name(pair.b, lang)
    if pair.n and pair.n_differ == 0:
        return t("lab.honesty.same_orders", lang, a=a, b=b, n=pair.n)
    if saved is None or added is None or abs(saved) >= BARELY_SECONDS or abs(added) >= BARELY_METRES:
        return None
    return t("lab.honesty.barely", lang, a=a, b=b, same=pair.n - pair.n_differ, n=pair.n)


def request_label(row: Any, lang: Lang, *, region_label: Any = None) -> str:
    """A request in words for a picker: its place in the batch, its size and its region (no ids)."""
    region = str(row["region"])
    return t(
        "lab.request.label",
        lang,
        n=int(row["request_index"]) + 1,
        stops=int(row["n_stops"]),
        region=region_label(region, lang) if region_label else region,
    )


def invalid_line_sentence(index: int, code: str, lang: Lang) -> str:
    """A batch line that is not a request, as a sentence (the core's message goes to the details)."""
    return t("lab.batch.invalid_line", lang, n=index + 1, reason=error_reason(code, lang))
