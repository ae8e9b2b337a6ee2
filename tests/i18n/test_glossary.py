"""One word per product term per language (docs/GLOSSARY.md): a strategy, a transport mode or a priority never
appears under two names in one language's catalogs; neither does a solver of the strategy lab."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core import i18n

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = ROOT / "docs" / "GLOSSARY.md"
#: the key shapes that name a term of a kind: "<domain>.[...]<group>.<code>"
GROUPS = {
    "strategy": ("strategy",),
    "mode": ("transport", "mode", "travel.mode"),
    "priority": ("priority",),
    "solver": ("optimiser",),
}


def glossary() -> list[dict[str, str | list[str]]]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("Kind", "") or set(cells[0]) <= {"-"}:
            continue
        kind, code, en, zh, others = cells
        rows.append(
            {"kind": kind, "code": code, "en": en, "zh": zh, "not": [o.strip() for o in others.split(",") if o.strip()]}
        )
    return rows


def catalogs(lang: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for domain in i18n.domains():
        out |= i18n.messages(lang, domain)
    return out


def term_entries(messages: dict[str, str], kind: str, code: str) -> dict[str, str]:
    """The catalog entries that name ``code`` of ``kind`` (e.g. ``route.strategy.balanced``)."""
    pattern = re.compile(
        r"^[a-z_]+\.(?:[a-z_]+\.)*(?:{})\.{}$".format("|".join(re.escape(g) for g in GROUPS[kind]), code)
    )
    return {key: text for key, text in messages.items() if pattern.match(key)}


def test_the_glossary_lists_every_strategy_mode_and_priority():
    codes = {(row["kind"], row["code"]) for row in glossary()}
    assert {("strategy", c) for c in ("shortest_distance", "fastest_time", "balanced")} <= codes
    assert {("mode", c) for c in ("driving", "walking", "cycling")} <= codes
    assert {("priority", c) for c in ("must", "should", "nice")} <= codes
    assert {("solver", c) for c in ("project", "ortools_gls", "valhalla", "nearest_neighbour", "itinerary")} <= codes


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_entry_of_a_term_uses_the_glossarys_word(lang):
    messages = catalogs(lang)
    wrong = {}
    seen = 0
    for row in glossary():
        for key, text in term_entries(messages, str(row["kind"]), str(row["code"])).items():
            seen += 1
            if text.strip().casefold() != str(row[lang]).casefold():
                wrong[key] = (text, row[lang])
    assert seen >= 9 * 2, seen  # every term is named by at least two faces' entries
    assert not wrong, wrong


def other_names(messages: dict[str, str], lang: str) -> dict[str, tuple[str, str]]:
    """``{key: (other name, code)}`` for every entry of ``messages`` that uses a name under "Not"."""
    others = [
        (str(o), str(row["code"])) for row in glossary() for o in row["not"] if i18n.has_cjk(str(o)) == (lang == "zh")
    ]
    return {
        key: (other, code)
        for key, text in messages.items()
        for other, code in others
        if re.search(rf"(?<![A-Za-z]){re.escape(other)}(?![A-Za-z])", text, re.IGNORECASE)
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_catalog_text_uses_another_name_for_a_term(lang):
    assert not other_names(catalogs(lang), lang)


def test_the_check_catches_a_second_name():
    """A catalog that calls the balanced strategy 折中, or driving "by car", somewhere fails the check."""
    assert other_names(catalogs("zh") | {"route.help.extra": "选择折中策略"}, "zh") == {
        "route.help.extra": ("折中", "balanced")
    }
    assert other_names({"halfday.x": "Sunday By car"}, "en") == {"halfday.x": ("by car", "driving")}
    assert term_entries(catalogs("zh"), "strategy", "balanced")["route.strategy.balanced"] == "均衡"
