"""Hostile text (issue 31 §4): a bidi override or another invisible format character in a name, from a user or from
the map data, is dropped at the boundary (``core.models.common.clean_text``, the one function every input path
uses), and the HTML, CSV and ICS exports drop any that a stored result still carries."""

from __future__ import annotations

import csv
import io

import pytest

from core.app import AppServices
from core.app.route import export_html, plan_route
from core.config import Settings
from core.geo.base import Place
from core.itinerary.ics import escape_text
from core.models.agent import AgentRequest
from core.models.common import clean_text, strip_invisible
from core.models.halfday.plans import HalfDayRequest
from core.models.region import RegionPlace
from core.models.route import RoutePlanRequest
from core.words.route_export import legs_to_csv

RLO, PDF, RLI, PDI, LRM, ZWSP, BOM, WJ, TAG_A = (
    "\u202e",
    "\u202c",
    "\u2067",
    "\u2069",
    "\u200e",
    "\u200b",
    "\ufeff",
    "\u2060",
    "\U000e0041",
)
HIDDEN = (RLO, PDF, RLI, PDI, LRM, ZWSP, BOM, WJ, TAG_A, "\u202a", "\u202d", "\u2066", "\u200f", "\u061c", "\u00ad")


def _visible(text: str) -> bool:
    return not any(c in text for c in HIDDEN)


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        (f"静安{RLO}寺{PDF}", "静安寺"),
        (f"Kiasma{RLI}amsaiK{PDI} museum", "KiasmaamsaiK museum"),
        (f"{BOM}Uspenski{ZWSP} Cathedral{WJ}", "Uspenski Cathedral"),
        (f"豫园{TAG_A}{LRM}", "豫园"),
        ("soft\u00adhyphen and \u061carabic mark", "softhyphen and arabic mark"),
    ],
)
def test_clean_text_drops_bidi_controls_and_invisible_format_characters(typed, kept):
    assert clean_text(typed) == kept


def test_joiners_that_emoji_and_scripts_need_stay():
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji of three people, joined
    persian = "می\u200cخواهم"  # Persian: the non-joiner is part of the spelling
    assert clean_text(f"{family} 外滩") == f"{family} 外滩"
    assert clean_text(persian) == persian


def test_every_input_contract_cleans_a_name(tmp_path):
    stop = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_address": f"人民{RLO}广场",
            "destination_address": "豫园",
            "stops": [{"name": f"{RLI}Oriental Pearl{PDI}", "address": f"陆家嘴{ZWSP}"}],
        }
    )
    assert (stop.origin_address, stop.stops[0].name, stop.stops[0].address) == ("人民广场", "Oriental Pearl", "陆家嘴")
    assert AgentRequest.model_validate({"message": f"去{RLO}外滩走走"}).message == "去外滩走走"
    assert HalfDayRequest.model_validate({"goal": f"下午{RLO}喝咖啡"}).goal == "下午喝咖啡"


def test_the_map_data_s_words_are_cleaned_as_a_user_s():
    place = Place(name=f"Café {RLO}amsaiK", address=f"Mannerheiminaukio 2{BOM}", lon=24.94, lat=60.17, city=f"{LRM}X")
    assert (place.name, place.address, place.city) == ("Café amsaiK", "Mannerheiminaukio 2", "X")
    row = RegionPlace(
        id="t-1",
        name_zh=f"测试{RLO}馆",
        name_en=f"Test{ZWSP} hall",
        aliases=f"别名{RLI}一|Alias{PDI}",
        address=f"某路{TAG_A}1号",
        lon=121.4,
        lat=31.2,
        category="museum",
    )
    assert (row.name_zh, row.name_en, row.aliases, row.address) == (
        "测试馆",
        "Test hall",
        ["别名一", "Alias"],
        "某路1号",
    )


def test_a_planned_route_s_exports_carry_no_override_typed_in_a_stop_s_name():
    settings = Settings(region="shanghai", provider="offline", cache_dir=None)
    ctx = AppServices(settings).context(user="t", lang="en", region="shanghai")
    request = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_address": "人民广场",
            "destination_address": "豫园",
            "stops": [{"name": f"{RLO}外滩 evening walk", "address": "外滩"}, f"新天地{RLI}"],
        }
    )
    result = plan_route(ctx, request)
    page = export_html(result, lang="zh")
    assert "外滩 evening walk" in page and _visible(page)
    assert _visible(legs_to_csv(result)) and _visible(result.model_dump_json())


def test_exports_drop_an_override_a_result_stored_before_the_cleaning_still_carries():
    from tests.route.test_export import make_result

    result = make_result()
    stored = f"{RLO}ffo{PDF} Bund"
    leg = result.candidates[0].legs[0].model_copy(update={"to_label": stored})
    result.candidates[0].legs[0] = leg  # what a result read back from an older file holds
    # the exports name a stop by its label (the name typed, here the first leg's "to")
    result.resolved_stops[0] = result.resolved_stops[0].model_copy(
        update={"resolved_name": stored, "input_name": stored}
    )
    rows = list(csv.DictReader(io.StringIO(legs_to_csv(result))))
    assert rows[0]["to"] == "ffo Bund"
    page = export_html(result, lang="en")
    assert "ffo Bund" in page and _visible(page)
    assert escape_text(f"Dinner{RLO}; {RLI}Kiasma") == "Dinner\\; Kiasma"
    assert strip_invisible("plain ascii, unchanged") == "plain ascii, unchanged"


def test_a_long_answer_loses_every_invisible_character_and_keeps_the_rest():
    """The API's answers go through clean_text whole (api_routes/shared.py): every occurrence of an invisible
    character goes, wherever it is, and a text without one comes back as it was."""
    body = '{"explanations":["从外滩到豫园驾车约 12 分钟","Walk: 18 min"],"joined":"\U0001f468\u200d\U0001f469"}' * 50
    assert clean_text(body) == body
    dirty = f"{ZWSP}{body}{RLO}{body[:40]}{ZWSP}{BOM}"
    assert clean_text(dirty) == body + body[:40]
