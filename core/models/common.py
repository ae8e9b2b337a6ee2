"""Vocabulary shared by every product: priorities and their rank (one list, one order)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from datetime import date
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, StringConstraints

#: How a leg is travelled; the map providers (core.geo.base) take the same words.
#: the language a person reads: the one spelling of a language from the request to the rendered text (issue 30);
#: JSON ``"zh"``/``"en"``. Locale tags ("zh-CN") are read into it once, at the edge (core.i18n.normalize_lang).
Lang = Literal["zh", "en"]
TravelMode = Literal["driving", "walking", "cycling"]
Priority = Literal["must", "should", "nice"]
PRIORITIES: tuple[Priority, ...] = ("must", "should", "nice")
#: Lower is more important; sorts must before should before nice.
PRIORITY_RANK: dict[str, int] = {p: i for i, p in enumerate(PRIORITIES)}
#: Words an earlier version stored (trip store, agent): read them as today's vocabulary.
LEGACY_PRIORITY = {"normal": "should", "optional": "nice", "high": "must", "low": "nice"}


def as_priority(value: object) -> object:
    """A stored or typed priority in today's vocabulary (unknown values pass through for validation)."""
    if isinstance(value, str):
        v = value.strip().lower()
        return LEGACY_PRIORITY.get(v, v)
    return value


# --- where a figure came from ------------------------------------------------------------------------------
#: The figure sources that are straight-line estimates: the distance is the great-circle distance times the
#: region's detour factor and the time that distance at one speed, so the shortest order is also the fastest.
#: The one rule every face and export reads to say "straight-line estimate" beside a minute or a kilometre.
STRAIGHT_LINE_SOURCES: frozenset[str] = frozenset({"offline_estimate"})


def is_straight_line(source: str | None) -> bool:
    """Whether a figure with this source (``offline_estimate``, ``amap``, ``mixed``, ...) is a straight-line
    estimate ("mixed": some pairs are, not all; each leg then carries its own source)."""
    return source in STRAIGHT_LINE_SOURCES


# --- text at the contract: what any boundary accepts --------------------------------------------------------
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MAX_NAME_CHARS = 200  # a place's name as people type it (the longest real names are well under 100)
MAX_ADDRESS_CHARS = 300
MAX_ECHO_CHARS = 60  # how much of a user's input an error message repeats


#: the invisible format characters kept: the zero-width joiner and non-joiner, which emoji sequences and several
#: scripts (Persian, Indic) need and which cannot reorder text
_KEPT_FORMAT = frozenset("\u200c\u200d")


def strip_invisible(text: str) -> str:
    """``text`` without bidi controls (U+202A-U+202E overrides and embeddings, U+2066-U+2069 isolates, the
    U+200E/U+200F/U+061C marks) and the other invisible format characters (Unicode category Cf: zero-width space,
    word joiner, byte order mark, soft hyphen, tag characters), so a name cannot display reversed or hide text."""
    if text.isascii():
        return text
    dropped = {c for c in set(text) if c not in _KEPT_FORMAT and unicodedata.category(c) == "Cf"}
    if not dropped:  # the usual case: each distinct character looked up once, the text kept as it is
        return text
    return "".join(c for c in text if c not in dropped)


def clean_text(value: object) -> object:
    """A string safe to store, log, show and return as JSON: lone surrogates (which no UTF-8 encoder accepts)
    become U+FFFD, control characters other than tab and newline and invisible format characters (bidi overrides:
    ``strip_invisible``) are dropped. Non-strings pass to validation. Every text a user or a provider hands the
    product goes through it (the contracts' ``CleanStr``/``PlaceName``, the map data's ``Place``, the packs)."""
    if not isinstance(value, str):
        return value
    text = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return strip_invisible(_CONTROL.sub("", text))


def echo(value: object, limit: int = MAX_ECHO_CHARS) -> str:
    """A user's input as an error message repeats it: at most ``limit`` characters, cut with an ellipsis."""
    text = str(clean_text(str(value)))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def within(max_chars: int) -> Callable[[object], object]:
    """The limit holds for the text as sent, before cleaning shortens it (the contract says what is sent)."""

    def check(value: object) -> object:
        if isinstance(value, str) and len(value) > max_chars:
            raise ValueError(f"at most {max_chars} characters, got {len(value)}")
        return value

    return check


MAX_MESSAGE_CHARS = 4000
# pydantic runs the last BeforeValidator first: the length as sent is checked, then the text is cleaned
CleanStr = Annotated[str, BeforeValidator(clean_text)]
PlaceName = Annotated[
    str,
    StringConstraints(max_length=MAX_NAME_CHARS),
    BeforeValidator(clean_text),
    BeforeValidator(within(MAX_NAME_CHARS)),
]
PlaceAddress = Annotated[
    str,
    StringConstraints(max_length=MAX_ADDRESS_CHARS),
    BeforeValidator(clean_text),
    BeforeValidator(within(MAX_ADDRESS_CHARS)),
]
MessageText = Annotated[
    str,
    StringConstraints(max_length=MAX_MESSAGE_CHARS),
    BeforeValidator(clean_text),
    BeforeValidator(within(MAX_MESSAGE_CHARS)),
]

#: A region pack's name: a short lowercase slug, never a path.
REGION_NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"

# --- dates a plan may be for ----------------------------------------------------------------------------------
EARLIEST_PLAN_DATE = date(2000, 1, 1)
LATEST_PLAN_DATE = date(2100, 12, 31)


def plan_date(value: date) -> date:
    """A trip date the planner can compute with (days are added to it; 9999-12-31 would overflow)."""
    if not EARLIEST_PLAN_DATE <= value <= LATEST_PLAN_DATE:
        raise ValueError(
            f"{value.isoformat()} is outside the dates a plan can cover "
            f"({EARLIEST_PLAN_DATE.isoformat()} to {LATEST_PLAN_DATE.isoformat()})"
        )
    return value


PlanDate = Annotated[date, AfterValidator(plan_date)]
