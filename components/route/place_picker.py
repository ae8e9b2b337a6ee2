"""“Did you mean…”: the choice for a place the resolver could not settle (issue 12 §3).

The core never takes the first of several places: it raises ``AMBIGUOUS_PLACE`` (core.errors.AmbiguousPlaceError)
whose ``candidates`` hold, for each input field (``origin_address``, ``stops.1``, ``destination_address``), a
``PlaceChoice``: the text typed, why it is a choice, how far apart the places are, and the options (name, English
name, district, address, score, distance to the first). This component shows one field's choice (name in the
user's language with the other beside it, district in the pack's words for ``lang``, distance from the first
option; in English, Chinese words only on a labelled line) and returns the option the user confirms;
``stop_fields`` is what the form puts back in that field (the name, the address and the POI id, which the resolver
then takes as chosen). Words: locales/*/LC_MESSAGES/place.po.

Self-contained on purpose (the route form is being moved to catalogs by another change); wiring it takes a few
lines in the page, see ``render_choices``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from components.language import current_lang
from core import i18n
from core.app.regions import district_name
from core.i18n import Lang
from core.models.route import PlaceCandidate, PlaceChoice
from core.words.place_choice import REASONS as REASONS  # the reasons' catalog keys, as the tests read them
from core.words.place_choice import reason_words


def choices_of(error: Any) -> dict[str, PlaceChoice]:
    """The choices an error carries, by input field: an OmniError with ``candidates``, its ``to_dict()``, or the
    dict a form kept (``{"candidates": {...}}``); empty when there is nothing to choose."""
    if isinstance(error, Mapping):
        raw = error.get("candidates") or (error.get("error") or {}).get("candidates") or {}
    else:
        raw = getattr(error, "candidates", None) or {}
    return {field: PlaceChoice.model_validate(choice) for field, choice in raw.items()}


def _names(option: PlaceCandidate, lang: Lang) -> tuple[str, str | None]:
    """The name in ``lang`` (the pack's English name for English) and the other one, if the pack has both."""
    en = option.name_en if option.name_en and option.name_en != option.name else None
    if lang == "en" and en:
        return en, option.name
    return option.name, en


def reason_text(choice: PlaceChoice, lang: Lang) -> str:
    """Why the field is a choice; a name and an address that are two places are both named (the name's first)."""
    return reason_words(choice, lang)


def distance_text(metres: int, lang: Lang) -> str:
    if metres <= 0:
        return i18n.t("place.picker.first", lang)
    if metres < 1000:
        return i18n.t("place.picker.metres_away", lang, m=metres)
    return i18n.t("place.picker.km_away", lang, km=f"{metres / 1000:.1f}")


def district_text(option: PlaceCandidate, lang: Lang, region: str | None = None) -> str:
    """The option's district in ``lang``: the region pack's name for it (``Huangpu`` for 黄浦区 in English); "" in
    English when the pack has no English name (the Chinese one is then under the option, labelled)."""
    if option.category == "district":  # the option is the area itself, at its mapped centre
        return i18n.t("place.picker.whole_district", lang)
    if not option.district:
        return i18n.t("place.picker.no_district", lang)
    return district_name(region, option.district, lang)


def option_text(option: PlaceCandidate, lang: Lang, *, region: str | None = None) -> str:
    """One line per option: name · district · distance from the first option (the district left out when it has
    no name in ``lang``)."""
    name, _ = _names(option, lang)
    district = district_text(option, lang, region)
    return " · ".join(part for part in (name, district, distance_text(option.distance_to_first_m, lang)) if part)


def option_caption(option: PlaceCandidate, lang: Lang) -> str:
    """The other language's name and the address, under the option. In English, Chinese words are never mixed into
    the line: the name and address written in Chinese are labelled as such ("In Chinese: 外滩 · 黄浦区中山东一路")."""
    _, other = _names(option, lang)
    parts = [part for part in (other, option.address) if part]
    if lang != "en":
        return " · ".join(parts)
    local = [part for part in parts if i18n.has_cjk(part)]
    plain = [part for part in parts if not i18n.has_cjk(part)]
    if local:
        plain.append(i18n.t("place.picker.in_chinese", lang, text=" · ".join(local)))
    return " · ".join(plain)


def stop_fields(option: PlaceCandidate) -> dict[str, str | None]:
    """What the form puts back in the field: the place's own name and address, and its POI id so the next plan
    resolves exactly this place (RawStop.poi_id; origin_poi_id / destination_poi_id for the ends)."""
    return {"name": option.name, "address": option.address or option.name, "poi_id": option.poi_id}


def render_place_picker(
    choice: PlaceChoice, *, key: str, lang: Lang | None = None, region: str | None = None
) -> PlaceCandidate | None:
    """The “Did you mean…” box of one field; the chosen option once the user presses “Use this place”. ``region``:
    the pack whose names the districts take."""
    lang = lang or current_lang()
    options = choice.options
    with st.container(border=True, key=f"{key}_picker"):
        st.markdown(f"**{i18n.t('place.picker.title', lang, input=choice.input)}**")
        reason = reason_text(choice, lang)
        if choice.spread_m >= 1000:
            reason += " " + i18n.t("place.picker.spread", lang, km=f"{choice.spread_m / 1000:.1f}")
        st.caption(reason)
        picked = st.radio(
            i18n.t("place.picker.choose", lang),
            list(range(len(options))),
            format_func=lambda i: option_text(options[i], lang, region=region),
            captions=[option_caption(o, lang) for o in options],
            key=f"{key}_choice",
            label_visibility="collapsed",
        )
        if st.button(i18n.t("place.picker.use", lang), key=f"{key}_use", type="primary"):
            return options[picked if picked is not None else 0]
    return None


def render_choices(
    error: Any, *, key: str = "place", lang: Lang | None = None, region: str | None = None
) -> dict[str, PlaceCandidate]:
    """A picker for every ambiguous field of ``error``; the fields the user has settled in this run, with their
    chosen place. The route page wires it so (see the note in the report of issue 12):

        for field, chosen in place_picker.render_choices(st.session_state.get(ERROR_KEY), key="rp_pick").items():
            form.fill_place(field, place_picker.stop_fields(chosen))   # name, address, poi_id into the widgets
            st.rerun()
    """
    chosen: dict[str, PlaceCandidate] = {}
    for field, choice in choices_of(error).items():
        option = render_place_picker(choice, key=f"{key}_{field.replace('.', '_')}", lang=lang, region=region)
        if option is not None:
            chosen[field] = option
    return chosen
