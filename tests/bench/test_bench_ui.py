"""``python -m bench ui``'s pure parts: options, statistics, the scenarios' inputs, the probe's log and the
table. The browser run itself is done by hand (docs/BENCHMARKS.md); nothing here starts Chromium or a server."""

from __future__ import annotations

import argparse
import json

import pytest

from bench import ui, ui_probe
from bench.__main__ import main
from bench.cli import build_parser
from core.config import get_settings
from core.errors import InputError
from core.models.route import RoutePlanRequest
from core.packs.loader import load_region


def _parse(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def test_summary_is_median_min_max_in_ms():
    assert ui.summarise([2.0, 0.5, 1.2345, 9.0]) == {"median_s": 1.617, "min_s": 0.5, "max_s": 9.0}
    assert ui.summarise([]) == {"median_s": None, "min_s": None, "max_s": None}


def test_verdict_against_the_target():
    assert ui.verdict(0.9, 1.0) is True
    assert ui.verdict(1.0, 1.0) is True
    assert ui.verdict(1.01, 1.0) is False
    assert ui.verdict(3.0, None) is None
    assert ui.verdict(None, 2.0) is None


def test_the_targets_are_the_issue_goals():
    # issue 23 §5, and issue 32 "Speed where a person waits"
    assert ui.TARGETS == {
        "first_page_load": 2.0,
        "first_after_start": 1.5,
        "page_load": 2.0,
        "route_8": 0.8,
        "route_30": 1.5,
        "itinerary_plan": 1.5,
        "itinerary_edit": 0.5,
        "page_switch": 1.5,
        "assistant_answer": 1.0,
        "halfday_card": 0.5,
    }


def test_every_assistant_question_is_a_new_travel_time_in_the_pages_language():
    english = [ui.assistant_message(draw, lang="en") for draw in range(6)]
    assert len(set(english)) == 6
    assert all(m.startswith("How long from ") and " to " in m for m in english)
    chinese = ui.assistant_message(0, lang="zh")
    assert chinese.startswith("从") and chinese.endswith("要多久?") and "到" in chinese


def test_the_first_run_on_the_server_is_reported_apart():
    first = {"total_s": 3.0, "first_s": 1.8, "script_s": 2.9, "plan_s": None, "tail_s": 0.1, "reruns": 1}
    later = {**first, "total_s": 1.0, "first_s": 0.4}
    row = ui._row("halfday_card", [later, later], [first])
    assert row["first_run_s"] == 1.8  # the cold first card, not the page done
    assert row["first_s"]["median_s"] == 0.4 and row["pass"] is True
    edit = ui._row("itinerary_edit", [later], [first])
    assert edit["first_run_s"] == 3.0
    out = ui.table({"rows": [{**ui._row("first_page_load", [first], []), "load_1m": 2.5}, edit]})
    assert "| itinerary_edit | 1.00 | 1.00 | 1.00 | 0.50 | no | 3.00 |" in out
    assert "first_page_load (right after the server started): load average (1 min) 2.5" in out


def test_every_run_draws_a_new_set_of_stops():
    pool = ui.usable_stops()
    draws = [ui.fresh_stops(pool, n=8, draw=i) for i in range(12)]
    sets = [frozenset(s["address"] for s in stops) for stops in draws]
    assert all(len(s) == 8 for s in sets)  # 8 distinct places each
    assert len(set(sets)) == 12  # no two runs ask for the same stops
    assert ui.fresh_stops(pool, n=8, draw=3) == draws[3]  # the same draws each bench: comparable runs
    with pytest.raises(InputError):
        ui.fresh_stops(pool, n=len(pool) + 1, draw=0)


def test_every_half_day_run_has_its_own_goal():
    assert len({ui.halfday_goal(i) for i in range(10)}) == 10
    assert "预算每人160元" in ui.halfday_goal(1)


def test_the_runs_right_after_start_are_not_a_choice_of_only():
    for name in ("first_after_start", "first_page_load"):
        with pytest.raises(InputError):
            ui.parse_scenarios(name)


def test_only_keeps_the_bench_order_and_refuses_unknown_names():
    assert ui.parse_scenarios(None) == [
        "page_switch",  # first: its runs open pages the server has not shown yet
        "page_load",
        "route_8",
        "route_30",
        "itinerary_plan",
        "itinerary_edit",
        "assistant_answer",
        "halfday_card",
    ]
    assert ui.parse_scenarios("itinerary_edit, route_8") == ["route_8", "itinerary_edit"]
    with pytest.raises(InputError) as err:
        ui.parse_scenarios("route_8,route_99")
    assert err.value.field == "only" and "route_99" in str(err.value)
    with pytest.raises(InputError):
        ui.parse_scenarios(" , ")


def test_url_must_be_http():
    assert ui.check_url("http://127.0.0.1:8501/") == "http://127.0.0.1:8501"
    assert ui.check_url(None) is None
    with pytest.raises(InputError) as err:
        ui.check_url("127.0.0.1:8501")
    assert err.value.field == "url"


def test_command_line_options_before_and_after_ui():
    args = _parse(["ui", "--repeats", "3", "--only", "route_30", "--warmup", "0", "--url", "http://h:1"])
    options = ui.options_from_args(args)
    assert options.repeats == 3 and options.warmup == 0
    assert options.scenarios == ["route_30"] and options.url == "http://h:1" and options.lang == "en"


def test_streamlit_options_go_to_the_server_command(tmp_path):
    args = _parse(["ui", "--streamlit-opt", "runner.postScriptGC=false", "--streamlit-opt", "a.b = 1"])
    options = ui.options_from_args(args)
    assert options.streamlit_options == {"runner.postScriptGC": "false", "a.b": "1"}
    cmd = ui.server_command(1, tmp_path / "p.jsonl", options.streamlit_options)
    assert cmd[-4:] == ["--runner.postScriptGC", "false", "--a.b", "1"]
    for bad in ("postScriptGC=false", "runner.postScriptGC", "runner.x="):
        with pytest.raises(InputError) as err:
            ui.parse_streamlit_options([bad])
        assert err.value.field == "streamlit_opt"


def test_bad_options_are_structured_errors(capsys):
    assert main(["ui", "--only", "nope"]) == 2
    error = json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]
    assert error["field"] == "only"
    assert main(["ui", "--warmup", "-1"]) == 2
    assert json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]["field"] == "warmup"
    assert main(["ui", "--repeats", "0"]) == 2
    assert json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]["field"] == "repeats"


def test_route_scenario_has_the_eight_stops_of_the_delivery_round():
    request = RoutePlanRequest.model_validate(ui.route_scenario_request())
    assert len(request.stops) == 8
    assert request.origin_address == "静安区南京西路1168号"


def test_long_route_is_thirty_distinct_pack_places_without_the_start_and_end():
    request = ui.long_route_request()
    assert len(request.stops) == 30
    addresses = [s.address for s in request.stops]
    assert len(set(addresses)) == 30
    assert request.origin_address not in addresses and request.destination_address not in addresses
    pack = load_region("shanghai", get_settings().data_dir)
    by_address = {p.address: p for p in pack.places}
    for stop in request.stops:  # every stop is a pack place, by its own name
        place = by_address[stop.address]
        assert stop.name == place.name_zh
        assert place.category not in {"airport", "station"}


def test_long_route_stops_refuses_more_than_the_pack_holds():
    with pytest.raises(InputError) as err:
        ui.long_route_stops(n=10_000)
    assert err.value.field == "stops"


def test_paste_text_is_read_back_by_the_page_parser():
    from components.stops_table import parse_pasted_stops

    stops = ui.long_route_stops(n=3)
    parsed = parse_pasted_stops(ui.paste_text(stops))
    assert [(s["name"], s["address"], s["city"]) for s in parsed] == [
        (s["name"], s["address"], s["city"]) for s in stops
    ]


def test_trip_index_is_the_position_in_the_sorted_demo_trips():
    # shanghai_2day_monday_museum, shanghai_3day_30places, shanghai_family_day, shanghai_many_drops_2day
    assert ui.trip_index() == 1
    with pytest.raises(InputError):
        ui.trip_index(trip="no_such_trip")


def test_server_command_runs_streamlit_with_the_probe(tmp_path):
    cmd = ui.server_command(8765, tmp_path / "probe.jsonl")
    assert cmd[cmd.index("--server.port") + 1] == "8765"
    assert cmd[cmd.index("--server.address") + 1] == "127.0.0.1"
    assert cmd[3:5] == ["run", "app.py"]
    assert "probe.install(" in cmd[2] and str(tmp_path / "probe.jsonl") in cmd[2]
    # as `make run` starts it: the warm-up first, then Streamlit with the options after "run app.py"
    assert "components.server_start import main; main(sys.argv[3:])" in cmd[2]
    plain = ui.server_command(8765, tmp_path / "probe.jsonl", warm_start=False)
    assert "server_start" not in plain[2] and "runpy.run_module('streamlit'" in plain[2]


def test_probe_logs_each_call_and_reads_from_a_mark(tmp_path, monkeypatch):
    import importlib

    import core.route.planner as planner

    for module_name, attr in ui_probe.PROBED:  # put every probed function back after the test
        module = importlib.import_module(module_name)
        monkeypatch.setattr(module, attr, getattr(module, attr))
    calls = []
    monkeypatch.setattr(planner, "plan_route", lambda *a, **k: calls.append(a) or "planned")
    log = tmp_path / "probe.jsonl"
    ui_probe.install(log)
    ui_probe.install(log)  # installing twice does not wrap twice (a call would be logged twice)
    assert planner.plan_route("req", settings=get_settings()) == "planned"
    assert planner.plan_route("req", settings=get_settings()) == "planned"
    assert calls == [("req",), ("req",)]
    lines, mark = ui_probe.read_calls(log)
    assert [c["call"] for c in lines] == ["plan_route", "plan_route"] and mark == 2
    assert all(c["seconds"] >= 0 for c in lines)
    assert ui_probe.read_calls(log, since=mark) == ([], 2)
    assert ui_probe.read_calls(tmp_path / "missing.jsonl") == ([], 0)


def test_probe_logs_only_the_outer_of_nested_calls(tmp_path, monkeypatch):
    import importlib

    import core.itinerary.edits as edits
    import core.itinerary.pipeline as pipeline

    for module_name, attr in ui_probe.PROBED:
        module = importlib.import_module(module_name)
        monkeypatch.setattr(module, attr, getattr(module, attr))
    monkeypatch.setattr(pipeline, "plan_itinerary", lambda *a, **k: "plan")
    monkeypatch.setattr(
        edits, "reoptimize", lambda *a, **k: pipeline.plan_itinerary(settings=get_settings())
    )  # as the real one does
    log = tmp_path / "probe.jsonl"
    ui_probe.install(log)
    assert edits.reoptimize(settings=get_settings()) == "plan"
    assert pipeline.plan_itinerary(settings=get_settings()) == "plan"
    assert [c["call"] for c in ui_probe.read_calls(log)[0]] == ["reoptimize", "plan_itinerary"]


def test_table_shows_pass_and_the_split():
    run = {"total_s": 1.0, "script_s": 1.2, "plan_s": 0.4, "tail_s": 0.2, "reruns": 1, "ws_kb": 100.0}
    row = ui._row("route_8", [run, {**run, "total_s": 0.5}], [])
    assert row["median_s"] == 0.75 and row["pass"] is True
    out = ui.table({"rows": [row]})
    assert "| route_8 | 0.75 | 0.50 | 1.00 | 0.80 | yes | — | 0.40 | 0.80 | 0.20 | 1 | 100.00 |" in out


def test_the_half_day_goal_is_the_first_card_on_screen_not_the_page_done():
    run = {"total_s": 2.0, "first_s": 0.9, "script_s": 1.9, "plan_s": None, "tail_s": 0.1, "reruns": 1, "ws_kb": 90.0}
    row = ui._row("halfday_card", [run, {**run, "first_s": 0.7}, {**run, "first_s": 1.4}], [])
    assert row["median_s"] == 2.0 and row["first_s"]["median_s"] == 0.9
    assert row["pass"] is False  # 0.9 s to the first card: over issue 32's 0.5 s, though under issue 23's 1 s
    never_seen = ui._row("halfday_card", [run, {**run, "first_s": None}], [])
    assert never_seen["pass"] is False
    assert "halfday_card: first sight median 0.90 s" in ui.table({"rows": [row]})
