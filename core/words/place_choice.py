"""The words of a place the resolver could not settle (AMBIGUOUS_PLACE, issue 31): which input, why it is a choice
and the places offered, in the reader's language, from the catalogs (place.po, route.po). The core's exception
keeps its English message for logs; every face that answers a person says this instead: the API in the request's
language, the CLI in --lang's, the route page beside its picker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.i18n import Lang, t
from core.models.region import RegionPack
from core.models.route import PlaceCandidate, PlaceChoice

REASONS = {
    "close_scores": "place.picker.reason.close_scores",
    "several_exact": "place.picker.reason.several_exact",
    "near_miss": "place.picker.reason.near_miss",
    "district": "place.picker.reason.district",
    "parts": "place.picker.reason.parts",
    "name_address": "place.picker.reason.name_address",
}
#: as many options as the sentence lists (the choice itself carries them all)
LISTED = 5


def option_name(option: PlaceCandidate, lang: Lang) -> str:
    """An option's name in ``lang``: its English name for English where the data has one, else the local name."""
    if lang == "en" and option.name_en:
        return option.name_en
    return option.name


def district_of(option: PlaceCandidate, lang: Lang, pack: RegionPack | None) -> str:
    """An option's district in ``lang`` (the pack's name for it; in English, nothing where the pack has no English
    one: the local name is then not mixed into the sentence)."""
    if not option.district:
        return ""
    named = pack.district_names.get(option.district, {}).get(lang) if pack is not None else None
    if named:
        return named
    return "" if lang == "en" and not option.district.isascii() else option.district


def who_words(field: str, text: str, lang: Lang) -> str:
    """The input asked about: "Stop 2 '…'", "起点“…”"."""
    if field.startswith("stops.") and field.removeprefix("stops.").isdigit():
        return t("route.who.stop", lang, n=int(field.removeprefix("stops.")) + 1, name=text)
    role = "origin" if field.startswith("origin") else "destination"
    return t(f"route.who.{role}", lang, name=text)


def reason_words(choice: PlaceChoice, lang: Lang) -> str:
    """Why the field is a choice; a name and an address that are two places are both named (the name's first)."""
    if choice.reason == "name_address" and len(choice.options) >= 2:
        named, at_address = (option_name(o, lang) for o in choice.options[:2])
        return t(REASONS["name_address"], lang, named=named, at_address=at_address)
    return t(REASONS[choice.reason], lang)


def choice_sentence(choice: PlaceChoice, lang: Lang, pack: RegionPack | None = None) -> str:
    """One field's choice as a sentence: the input, why, and the places offered (name, district, how far apart)."""
    listed = []
    for option in choice.options[:LISTED]:
        district = district_of(option, lang, pack)
        listed.append(t("route.choice.option", lang, name=option_name(option, lang), district=district) if district
                      else t("route.choice.option_bare", lang, name=option_name(option, lang)))  # fmt: skip
    sentence = t("route.choice.sentence", lang, who=who_words(choice.field, choice.input, lang),
                 reason=reason_words(choice, lang), options=t("route.choice.separator", lang).join(listed))  # fmt: skip
    if choice.spread_m >= 1000:
        sentence += t("route.choice.apart", lang, km=f"{choice.spread_m / 1000:.1f}")
    return sentence


def ambiguity_message(candidates: Mapping[str, Any], lang: Lang, pack: RegionPack | None = None) -> str:
    """Every field's choice of an AMBIGUOUS_PLACE error (its ``candidates``, by field) in ``lang``, one after another."""
    choices = [PlaceChoice.model_validate(c) for c in candidates.values()]
    return " ".join(choice_sentence(c, lang, pack) for c in choices)


def not_found_message(facts: Mapping[str, Any], lang: Lang) -> str:
    """Every input not found in one sentence in ``lang`` (the resolver's facts: the fields not found, what was typed,
    where a gazetteer knows a place outside the map data to be, the region's coverage), as the route page says it."""
    typed = facts.get("inputs") or {}
    labels = t("route.choice.separator", lang).join(
        who_words(f, str(typed.get(f, "")), lang) for f in facts["not_found"]
    )
    return (" " if lang == "en" else "").join(unresolved_sentences(facts, labels, lang))


def coverage_name(facts: Mapping[str, Any], lang: Lang) -> str:
    """The region's name in ``lang`` from a not-found error's coverage facts (English, else its code, where none)."""
    cover = facts["coverage"]
    return str(cover["names"].get(lang) or cover["names"].get("en") or cover["region"])


def unresolved_sentences(facts: Mapping[str, Any], labels: str, lang: Lang) -> list[str]:
    """The inputs not found (``labels``: how the face names them) and, for each a gazetteer knows, where it lies:
    outside the map data's coverage, or in another city. Shared by the API/CLI and the route page's words."""
    region = coverage_name(facts, lang)
    said = [t("route.error.unresolved_all", lang, region=region, labels=labels)]
    for known in (facts.get("outside") or {}).values():
        city = (known.get("city_zh") if lang == "zh" else None) or known["city"]
        key = (
            "route.error.unresolved_outside"
            if known["where"] == "outside_coverage"
            else "route.error.unresolved_other_city"
        )
        said.append(t(key, lang, place=known["place"], city=city, region=region))
    return said


def resolution_message(
    facts: Mapping[str, Any], candidates: Mapping[str, Any], lang: Lang, pack: RegionPack | None = None
) -> str | None:
    """A resolution error in ``lang``: the places not found, then the choices; None when its facts say neither (an
    error from elsewhere keeps its own message)."""
    said = []
    if facts.get("not_found") and facts.get("coverage"):
        said.append(not_found_message(facts, lang))
    if candidates:
        said.append(ambiguity_message(candidates, lang, pack))
    return (" " if lang == "en" else "").join(said) or None
