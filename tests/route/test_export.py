"""Exports of a RoutePlanResult: JSON round trip, CSV of legs, self-contained and escaped HTML, file names
after the trip, and ``python -m core plan`` writing the report when the request has ``need_html``."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import date

from core.__main__ import main
from core.app.route import export_html
from core.models.route import (
    CandidateRoute,
    DeepLinks,
    OptimizerInfo,
    ResolvedPoint,
    RouteLeg,
    RoutePlanResult,
)
from core.route.links import build_deep_links
from core.route.notices import english
from core.words.route_export import (
    export_stem,
    legs_to_csv,
    legs_to_csv_bytes,
    result_to_json,
    safe_href,
    slug,
)
from tests.support.clock import suite_today
from tests.support.paths import ROOT

XSS = "<script>alert(1)</script>"

COORDS = {
    "人民广场": (121.4737, 31.2304),
    "外滩": (121.4903, 31.2400),
    XSS: (121.4998, 31.2397),  # a stop with a hostile name at the Oriental Pearl
    "豫园": (121.4921, 31.2272),
}


def loc(name: str) -> str:
    lon, lat = COORDS[name]
    return f"{lon:.6f},{lat:.6f}"


def point(role, name, *, index=None, poi_id=None, note=None) -> ResolvedPoint:
    lon, lat = COORDS[name]
    return ResolvedPoint(
        role=role,
        input_name=name,
        input_address=f"上海市 {name}",
        resolved_name=name,
        city="上海市",
        district="黄浦区",
        location=loc(name),
        lon=lon,
        lat=lat,
        poi_id=poi_id,
        source="text_search" if note else "geo",
        confidence_note=note,
        provider="offline",
        index=index,
    )


def leg(a: str, b: str, distance_m: int, duration_s: int) -> RouteLeg:
    return RouteLeg(
        from_label=a,
        to_label=b,
        origin_location=loc(a),
        destination_location=loc(b),
        distance_m=distance_m,
        duration_s=duration_s,
        source="offline_estimate",
    )


def candidate(rank: int, order: list[int], legs: list[RouteLeg], **kw) -> CandidateRoute:
    names = ["外滩", XSS]
    labels = [names[i] for i in order]
    return CandidateRoute(
        stop_order_labels=labels,
        full_order_labels=["人民广场", *labels, "豫园"],
        legs=legs,
        total_distance_m=sum(x.distance_m for x in legs),
        total_duration_s=sum(x.duration_s for x in legs),
        rank=rank,
        stop_order=order,
        **kw,
    )


def make_result(*, deep_links: DeepLinks | None = None, warnings: list[str] | None = None) -> RoutePlanResult:
    origin = point("origin", "人民广场")
    stops = [point("stop", "外滩", index=0, poi_id="sh-bund"), point("stop", XSS, index=1, note=f"fuzzy: {XSS}")]
    destination = point("destination", "豫园")
    best = candidate(
        1,
        [0, 1],
        [leg("人民广场", "外滩", 2100, 480), leg("外滩", XSS, 1200, 300), leg(XSS, "豫园", 1900, 420)],
        ranking_reason="shortest total distance",
        best_for=["shortest_distance", "balanced"],
        pareto_optimal=True,
    )
    second = candidate(
        2,
        [1, 0],
        [leg("人民广场", XSS, 3000, 600), leg(XSS, "外滩", 1200, 300), leg("外滩", "豫园", 1700, 360)],
        ranking_reason="faster but 0.7 km longer",
        best_for=["fastest_time"],
        pareto_optimal=True,
        delta_distance_m=700,
        delta_duration_s=60,
    )
    if deep_links is None:
        deep_links, link_warnings = build_deep_links(
            origin=origin,
            ordered_stops=stops,
            destination=destination,
            transport_mode="driving",
            deep_link_mode="route_plan",
            provider="offline",
        )
    else:
        link_warnings = []
    return RoutePlanResult(
        success=True,
        origin_mode="fixed",
        resolved_origin=origin,
        resolved_destination=destination,
        resolved_stops=stops,
        candidates=[best, second],
        best_route=best,
        deep_links=deep_links,
        summary=f"最佳路线 5.2 km，约 20 分钟。Stop {XSS} included.",
        warnings=(warnings if warnings is not None else ["坐标为离线估算 (offline estimate)", f"fuzzy match: {XSS}"])
        + english(link_warnings),
        provider="offline",
        region="shanghai",
        metric_source="offline_estimate",
        optimizer=OptimizerInfo(
            method="enumeration", exact=True, orders_evaluated=2, stops=2, note="all 2 orders compared"
        ),
    )


# --------------------------------------------------------------------------------------------- JSON


def test_json_round_trips_and_keeps_chinese_readable():
    result = make_result()
    text = result_to_json(result)
    assert "人民广场" in text and "\\u" not in text
    assert RoutePlanResult.model_validate_json(text) == result
    assert text.startswith("{\n  ")  # indent=2 by default


# --------------------------------------------------------------------------------------------- CSV


def test_csv_has_one_row_per_leg_per_candidate_with_right_totals():
    result = make_result()
    rows = list(csv.DictReader(io.StringIO(legs_to_csv(result))))
    assert list(rows[0].keys()) == [
        "candidate_rank",
        "is_best",
        "leg",
        "from",
        "to",
        "origin_location",
        "destination_location",
        "distance_m",
        "duration_s",
        "source",
        "straight_line_estimate",
        "figures",
        "chosen_by",
    ]
    assert len(rows) == sum(len(c.legs) for c in result.candidates) == 6
    for c in result.candidates:
        mine = [r for r in rows if r["candidate_rank"] == str(c.rank)]
        assert [int(r["leg"]) for r in mine] == [1, 2, 3]
        assert sum(int(r["distance_m"]) for r in mine) == c.total_distance_m
        assert sum(int(r["duration_s"]) for r in mine) == c.total_duration_s
        assert {r["is_best"] for r in mine} == {"true" if c.rank == 1 else "false"}
    assert rows[0]["from"] == "人民广场" and rows[0]["to"] == "外滩"
    assert rows[0]["origin_location"] == "121.473700,31.230400"
    assert rows[1]["to"] == XSS  # CSV keeps text as is; only formulas are neutralised
    assert {r["source"] for r in rows} == {"offline_estimate"}


def test_csv_neutralises_spreadsheet_formulas():
    result = make_result()
    result.resolved_origin.input_name = '=HYPERLINK("x")'  # the start is the first leg's "from"
    rows = list(csv.DictReader(io.StringIO(legs_to_csv(result))))
    assert rows[0]["from"] == '\'=HYPERLINK("x")'


def test_csv_bytes_start_with_the_utf8_bom_for_excel():
    data = legs_to_csv_bytes(make_result())
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.count(b"\xef\xbb\xbf") == 1
    text = data[3:].decode("utf-8")
    assert text.startswith("candidate_rank,is_best,leg,from,to,")
    assert "人民广场,外滩" in text


# --------------------------------------------------------------------------------------------- file names


def test_slug_keeps_letters_of_any_script_and_nothing_a_file_system_minds():
    assert slug("经典上海一日游 Classic sightseeing day") == "经典上海一日游-classic-sightseeing-day"
    assert slug('../a\\b:c*d?"e<f>g|h') == "a-b-c-d-e-f-g-h"
    assert slug("  ..  ") == ""
    assert slug("x" * 200) == "x" * 60


def test_export_stem_is_the_task_name_and_the_day():
    result = make_result()
    result.task_name = "外滩 / Bund walk: 2 stops"
    assert export_stem(result, on=date(2026, 5, 1)) == "外滩-bund-walk-2-stops-2026-05-01"


def test_export_stem_without_a_task_name_is_the_destination():
    result = make_result()  # the default task name, which names no trip
    assert export_stem(result, on=date(2026, 5, 1)) == "豫园-2026-05-01"
    assert export_stem(result, on=date(2026, 5, 1), destination_name="Yu Garden") == "yu-garden-2026-05-01"
    result.task_name = XSS
    assert export_stem(result, on=date(2026, 5, 1)) == "script-alert-1-script-2026-05-01"
    result.task_name = "***"
    assert export_stem(result, on=date(2026, 5, 1)) == "route-plan-2026-05-01"


# --------------------------------------------------------------------------------------------- need_html (CLI)

SCENARIO = ROOT / "data" / "scenarios" / "walking-bund.json"


def _request_file(tmp_path, *, need_html: bool):
    data = json.loads(SCENARIO.read_text(encoding="utf-8"))["request"]
    path = tmp_path / "request.json"
    path.write_text(json.dumps({**data, "need_html": need_html}, ensure_ascii=False), encoding="utf-8")
    return path, data["task_name"]


def test_cli_need_html_writes_the_report_named_after_the_trip(tmp_path, monkeypatch, capsys):
    request, task_name = _request_file(tmp_path, need_html=True)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["plan", "--request", str(request), "--provider", "offline", "--region", "shanghai"]) == 0
    out = capsys.readouterr()
    result = json.loads(out.out)  # stdout is the JSON alone
    [report] = list(work.iterdir())
    assert report.name == f"外滩步行游-bund-walking-tour-{suite_today().isoformat()}.html"
    assert task_name == "外滩步行游 Bund walking tour"
    assert str(report.name) in out.err
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and f"<title>{task_name}</title>" in page
    assert result["best_route"]["full_order_labels"][0] in page


def test_cli_html_option_wins_and_no_need_html_writes_nothing(tmp_path, monkeypatch, capsys):
    request, _ = _request_file(tmp_path, need_html=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["plan", "--request", str(request), "--provider", "offline", "--region", "shanghai"]) == 0
    assert list(work.iterdir()) == []
    chosen = tmp_path / "mine.html"
    assert main(["plan", "--request", str(request), "--region", "shanghai", "--html", str(chosen)]) == 0
    assert list(work.iterdir()) == [] and chosen.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    capsys.readouterr()


def test_cli_unwritable_html_path_is_a_structured_error(tmp_path, capsys):
    request, _ = _request_file(tmp_path, need_html=True)
    bad = tmp_path / "missing-dir" / "out.html"
    assert main(["plan", "--request", str(request), "--region", "shanghai", "--html", str(bad)]) == 2
    error = json.loads(capsys.readouterr().err)["error"]
    assert error["code"] == "INVALID_INPUT" and error["field"] == "html"


# --------------------------------------------------------------------------------------------- HTML


def _section(page: str, section_id: str) -> str:
    match = re.search(rf'<section id="{section_id}">(.*?)</section>', page, re.S)
    assert match, f"section {section_id} missing"
    return match.group(1)


def test_html_escapes_user_text():
    page = export_html(make_result())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script" not in page.lower()
    assert "<script>alert(1)" not in page


def test_html_loads_nothing_from_the_network():
    page = export_html(make_result())
    assert page.startswith("<!DOCTYPE html>")
    assert '<meta charset="utf-8">' in page
    assert "人民广场" in page and "Best route" in page
    assert "<link" not in page and "@import" not in page and "url(" not in page
    # every src is an inline data: URI
    srcs = re.findall(r'\ssrc="([^"]*)"', page)
    assert srcs and all(s.startswith("data:image/svg+xml") for s in srcs)
    # the only http(s) hrefs are the uri.amap.com buttons
    hrefs = re.findall(r'\shref="([^"]*)"', page)
    web = [h for h in hrefs if h.lower().startswith(("http://", "https://"))]
    assert web and all(h.startswith("https://uri.amap.com/navigation?") for h in web)
    assert all(h.startswith(("https://uri.amap.com/", "amapuri://", "iosamap://")) for h in hrefs)
    # no http(s) address appears anywhere else in the markup
    assert len(re.findall(r"https?://", page)) == len(web)


def test_html_deep_link_buttons_and_qr_codes():
    result = make_result()
    page = export_html(result)
    links = _section(page, "links")
    assert links.count('<a class="button') == 2 + len(result.deep_links.web_navigation)
    assert 'href="amapuri://route/plan/?' in links and 'href="iosamap://path?' in links
    # & in hrefs is escaped as an entity
    assert "sourceApplication=OmniTravelPlanner&amp;" in links
    assert links.count("<img") == 2  # QR codes for the two mobile links
    # the link mode and the coordinate system in words, not as the codes route_plan / GCJ02
    assert "Mode used: Route plan links" in links and "GCJ-02" in links
    assert "route_plan" not in links.replace("amapuri://route/plan", "") and "GCJ02" not in links
    zh_links = _section(export_html(result, lang="zh"), "links")
    assert "链接方式:路线规划链接" in zh_links and "route_plan" not in zh_links.replace("amapuri://route/plan", "")


def test_html_drops_disallowed_link_schemes():
    links = DeepLinks(
        android_route_plan="javascript:alert(1)",
        ios_route_plan="iosamap://path?sourceApplication=x&dlat=31.2&dlon=121.4&dname=a&dev=0&t=0",
        web_navigation=[
            "https://uri.amap.com/navigation?to=121.4,31.2,a",
            "java\tscript:alert(2)",
            "data:text/html,x",
        ],
        mode_used="route_plan",
    )
    page = export_html(make_result(deep_links=links))
    assert "javascript:" not in page.lower()
    assert "alert(2)" not in page and "data:text/html" not in page
    section = _section(page, "links")
    assert section.count('<a class="button') == 2
    assert "3 link(s) with a scheme that is not allowed were left out" in section


def test_safe_href():
    assert safe_href("https://uri.amap.com/navigation?to=1,2") is not None
    assert safe_href("AMAPURI://route/plan/?t=0") is not None
    bad_links = (
        "javascript:alert(1)",
        " javascript:alert(1)",
        "vbscript:x",
        "/relative",
        "file:///etc/passwd",
        "",
        None,
    )
    for bad in bad_links:
        assert safe_href(bad) is None


def test_html_warnings_and_candidate_table():
    result = make_result()
    page = export_html(result)
    warnings = _section(page, "warnings")
    assert warnings.count("<li>") == len(result.warnings) == 3
    assert "split into 2 consecutive web links" in warnings
    assert "坐标为离线估算 (offline estimate)" in warnings
    table = re.search(r'<table id="candidate-table">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    assert table.count("<tr") == len(result.candidates)
    assert table.count('<tr class="best">') == 1
    assert "+0.70" in table and "+1.0" in table  # Δ km and Δ min of the second candidate
    assert "5.20" in table and "20.0" in table  # best total km and minutes


def test_html_mentions_provider_metric_source_and_optimizer():
    page = export_html(make_result())
    header = page[: page.index('<section id="points">')]
    # in words, never the codes (issue 23)
    assert "Provider: Offline (region pack; its streets when it has them)" in header
    assert "Metric source: straight-line estimate" in header and "offline_estimate" not in header
    assert "Order search: All 2 orders of the 2 stops were compared one by one." in header
    assert "enumeration" not in header


def test_html_points_table_and_best_route():
    result = make_result()
    page = export_html(result)
    points = _section(page, "points")
    assert points.count("<tr>") == 1 + 4  # header + origin, 2 stops, destination
    assert "121.473700, 31.230400" in points and "sh-bund" in points
    best = _section(page, "best")
    assert best.count("<li>") == 3 and "(straight-line estimate)" in best and "offline_estimate" not in best
    assert "2.10 km" in best and "8.0 min" in best


def test_html_sketch_is_inline_svg_with_numbered_points():
    page = export_html(make_result())
    sketch = _section(page, "sketch")
    assert "<svg" in sketch and "<polyline" in sketch
    assert sketch.count("<circle") == 4
    for mark in (">S<", ">1<", ">2<", ">D<"):
        assert mark in sketch
    # the polyline visits origin, 2 stops, destination
    points = re.search(r'<polyline points="([^"]*)"', sketch).group(1).split()
    assert len(points) == 4
    xs = [float(p.split(",")[0]) for p in points]
    assert all(0 <= x <= 760 for x in xs)


def test_html_is_deterministic():
    assert export_html(make_result()) == export_html(make_result())


def test_html_without_deep_links_or_warnings():
    result = make_result(deep_links=DeepLinks(), warnings=[])
    result.deep_links = None
    page = export_html(result)
    assert "No deep links were requested." in page and "No warnings." in page


def test_html_current_location_with_and_without_live_position():
    from core.models.route import LiveOrigin

    result = make_result(deep_links=DeepLinks(), warnings=[])
    result.origin_mode = "current_location"
    result.resolved_origin = None
    page = export_html(result)
    assert _section(page, "points").count("<tr>") == 1 + 3
    assert _section(page, "sketch").count("<circle") == 3 and ">S<" not in _section(page, "sketch")

    result.live_origin = LiveOrigin(lon=121.4737, lat=31.2304, location="121.473700,31.230400")
    page = export_html(result)
    points = _section(page, "points")
    assert points.count("<tr>") == 1 + 4 and "live position" in points and "121.473700, 31.230400" in points
    sketch = _section(page, "sketch")
    assert sketch.count("<circle") == 4 and ">S<" in sketch
