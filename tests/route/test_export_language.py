"""The route exports speak the reader's language (issue 32): places named as the region pack names them in the
chosen language (else their local name), units, link modes and warnings in that language, on the Helsinki and the
Shanghai packs, typed in either language. The expected names are read from the packs' places.csv."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import date

import pytest

from core.app import AppServices
from core.app import route as route_app
from core.config import Settings
from core.models.route import RoutePlanRequest
from core.packs.loader import load_region
from core.words.route_export import legs_to_csv, result_to_html, result_to_json

CJK = re.compile(r"[\u3400-\u9fff]")
CODE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")

# (region, what the person typed: start, stops, destination, mixing the languages and the local names on purpose)
TRIPS = {
    "helsinki": ("Suomen Kansallisteatteri", ["赫尔辛基主教座堂", "Cafe Engel"], "集市广场"),
    "shanghai": ("The Bund", ["豫园", "Shanghai Museum East"], "上海外滩美术馆"),
}


def plan(region: str):
    origin, stops, destination = TRIPS[region]
    settings = Settings(region=region, provider="offline", cache_dir=None)
    ctx = AppServices(settings).context(user="t", lang="en", region=region)
    request = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_name": origin,
            "destination_name": destination,
            "stops": [{"name": s} for s in stops],
            "route_strategy": "shortest_distance",
            "transport_mode": "walking",
            "need_deep_link": False,
        }
    )
    return route_app.plan_route(ctx, request)


def pack_name(region: str, poi_id: str, lang: str) -> str:
    """The pack's name of a place in ``lang``, else its local name, read from the pack itself."""
    [place] = [p for p in load_region(region).places if p.id == poi_id]
    return (place.name_en or place.name_zh) if lang == "en" else (place.name_zh or place.name_en)


def best_names(result, lang: str) -> list[str]:
    return [pack_name(result.region, point.poi_id, lang) for _, point in result.visiting()]


@pytest.fixture(scope="module", params=sorted(TRIPS))
def planned(request):
    return plan(request.param)


def test_the_trips_mix_languages_and_a_place_without_a_chinese_name():
    """The fixtures are what they claim: names typed in both scripts, and one Helsinki place the pack names only
    locally (its Chinese name is its Finnish one)."""
    [engel] = [p for p in load_region("helsinki").places if p.name_zh == "Cafe Engel"]
    assert not CJK.search(engel.name_zh) and not engel.name_en
    for origin, stops, destination in TRIPS.values():
        typed = [origin, *stops, destination]
        assert any(CJK.search(n) for n in typed) and any(not CJK.search(n) for n in typed)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_csv_names_every_leg_in_the_chosen_language(planned, lang):
    pack = load_region(planned.region)
    rows = list(csv.DictReader(io.StringIO(legs_to_csv(planned, lang=lang, pack=pack))))
    best = [r for r in rows if r["is_best"] == "true"]
    names = best_names(planned, lang)
    assert [r["from"] for r in best] == names[:-1] and [r["to"] for r in best] == names[1:]
    if lang == "en":
        assert not [r for r in rows if CJK.search(r["from"] + r["to"] + r["figures"])]
    else:
        assert "Cafe Engel" in names or planned.region == "shanghai"  # the local name kept where no Chinese one


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_html_names_places_units_and_links_in_the_chosen_language(planned, lang):
    page = result_to_html(planned, lang=lang, pack=load_region(planned.region))
    text = re.sub(r"<[^>]+>", " ", re.sub(r"<(style|svg)\b.*?</\1>", " ", page, flags=re.S))
    order = " → ".join(best_names(planned, lang))
    assert order in page.replace("&gt;", ">")
    best = re.search(r'<section id="best">(.*?)</section>', page, re.S)
    assert best is not None
    legs = best.group(1)
    if lang == "zh":
        assert "公里" in legs and "分钟" in legs and not re.search(r"\d (km|min)\b", legs)
    else:
        assert " km, " in legs and not CJK.search(legs)
        # no Chinese in the English page but in the person's own input ("You typed") and the core's notes
        typed = set(TRIPS[planned.region][1]) | {TRIPS[planned.region][0], TRIPS[planned.region][2]}
        points = re.search(r'<section id="points">(.*?)</section>', page, re.S)
        assert points is not None
        rest = text.replace(re.sub(r"<[^>]+>", " ", points.group(1)), "")
        assert not [w for w in CJK.findall(rest)], [line for line in rest.split("  ") if CJK.search(line)][:5]
        assert typed  # the typed names are what the person wrote, kept as written
    assert not CODE.findall(re.sub(r"<[^>]+>", " ", legs))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_json_warnings_and_summary_are_in_the_chosen_language(planned, lang):
    pack = load_region(planned.region)
    data = json.loads(result_to_json(planned, lang=lang, pack=pack))
    assert planned.warnings and len(data["warnings"]) == len(planned.notices)
    said = " ".join(data["warnings"]) + data["summary"]
    if lang == "zh":
        assert CJK.search(data["summary"]) and all(CJK.search(w) for w in data["warnings"])
    else:
        # a Helsinki place is named in English in the warnings (the pack has its English name)
        assert not CJK.search(said), said
    assert [n["code"] for n in data["notices"]] == [n.code for n in planned.notices]  # the codes stay, as data
    assert not CODE.findall(said)


def test_the_download_json_is_the_page_language(monkeypatch):
    """The page's JSON download carries the page's language (route_app.exports), and it still round-trips."""
    from core.models.route import RoutePlanResult

    result = plan("helsinki")
    made = route_app.exports(result, on=date(2026, 5, 1), lang="zh")
    [json_file] = [f for f in made.files if f.kind == "json"]
    data = json_file.make()
    assert isinstance(data, str)
    back = RoutePlanResult.model_validate_json(data)
    assert back.warnings and all(CJK.search(w) for w in back.warnings)
    assert back.best_route.total_distance_m == result.best_route.total_distance_m


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_how_a_place_was_found_says_what_really_matched(lang):
    """An alias is not worded as an exact address match (issue 32): Helsingin tuomiokirkko is one of the
    cathedral's other names in the pack, 赫尔辛基主教座堂 its own (Chinese) name; the theatre's local name
    Suomen Kansallisteatteri is one of its other names since the pack names it 芬兰国家剧院 (data/names)."""
    from core.i18n import t
    from core.words.route import found_by_words

    result = plan("helsinki")
    by_input = {p.input_name: p for p in [result.resolved_origin, *result.resolved_stops, result.resolved_destination]}
    theatre, cathedral = by_input["Suomen Kansallisteatteri"], by_input["赫尔辛基主教座堂"]
    assert theatre.matched_on == "alias" and cathedral.matched_on == "name"
    alias_trip = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_name": "Helsingin tuomiokirkko",
            "destination_name": "Kauppatori",
            "stops": [{"name": "Kansallisteatteri"}],
        }  # fmt: skip
    )
    settings = Settings(region="helsinki", provider="offline", cache_dir=None)
    alias_result = route_app.plan_route(AppServices(settings).context(user="t", region="helsinki"), alias_trip)
    origin = alias_result.resolved_origin
    assert origin is not None and origin.matched_on == "alias"
    said = found_by_words(origin, lang)
    assert said == t("route.found.match.alias", lang) and said != t("route.found.geo", lang)
    assert found_by_words(cathedral, lang) == t("route.found.match.name", lang)
