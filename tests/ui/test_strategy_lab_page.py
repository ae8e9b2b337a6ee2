"""The strategy lab page (AppTest): a small batch drawn from a pack with core.lab.generate, run from the page on the
offline provider; Shanghai's figures are straight-line estimates (the page says the strategies cannot differ and
shows why), Helsinki's come from its roads (real differences, worded with n and spread). Also: charts and the map
present, the CSV export, a result made stale by a grid change, invalid lines as sentences, and the drill-down
into the route planner. The lab keeps its files beside the test's response cache (tmp)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from core.config import get_settings
from core.lab.generate import generate_batch, write_batch
from tests.conftest import APP, PLANNER_PAGE

pytestmark = pytest.mark.ui

LAB_PAGE = "pages/strategy_lab.py"
BOM = b"\xef\xbb\xbf"
#: every optimiser but Valhalla's (randomised inside the engine), with a low OR-Tools limit: a fast run
OPTIMISERS = ["project", "ortools_gls", "nearest_neighbour"]


@pytest.fixture(scope="module")
def batches(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("batches")
    return {
        # seed 3 (on the pack built with its table of Chinese names, which reorders the places the generator draws
        # from): every leg of its three rounds is on Valhalla's roads (other seeds pick a pedestrian-only street,
        # whose legs are estimated) and one round is ordered differently by fastest time and shortest distance
        "helsinki": write_batch(
            generate_batch(region="helsinki", kind="delivery", n=3, stops=(4, 6), seed=3, settings=get_settings()),
            folder / "hel-small.jsonl",
        ),
        "shanghai": write_batch(
            generate_batch(region="shanghai", kind="sightseeing", n=3, stops=(3, 5), seed=5, settings=get_settings()),
            folder / "sh-small.jsonl",
        ),
    }


def lab_app(lang: str = "en"):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    at.switch_page(LAB_PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


def run_batch(at, path: Path):
    at.radio(key="lab_source").set_value("path").run()
    at.text_input(key="lab_batch_path").set_value(str(path)).run()
    at.multiselect(key="lab_optimisers").set_value(OPTIMISERS)
    at.number_input(key="lab_time_limit").set_value(0.05).run()
    at.button(key="lab_run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at.session_state["lab_result"]


def elements(at, kind: str) -> list:
    found: list = []

    def walk(node) -> None:
        for child in getattr(node, "children", {}).values():
            if getattr(child, "type", None) == kind:
                found.append(child)
            walk(child)

    walk(at._tree)
    return found


def chart_titles(at) -> list[str]:
    titles = []
    for chart in elements(at, "vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        for part in [spec, *spec.get("hconcat", [])]:
            if part.get("title"):
                titles.append(str(part["title"]))
    return titles


def pair_table(at):
    [table] = [df.value for df in at.dataframe if "differ" in df.value.columns]
    return table


def texts(at) -> str:
    return "\n".join(str(e.value) for e in [*at.markdown, *at.warning, *at.info, *at.caption])


def test_helsinki_roads_give_real_differences_with_n_and_spread_charts_and_a_map(batches):
    at = lab_app()
    result = run_batch(at, batches["helsinki"])
    frame = result.frame
    assert len(frame) == 3 * 3 * len(OPTIMISERS) and set(frame["metric_source"]) == {"valhalla"}

    # the requests whose project routes differ between the two strategies, counted from the raw rows
    project = frame[frame["optimiser"] == "project"].set_index(["request_id", "strategy"])["stop_order"]
    differ = sum(project[(r, "fastest_time")] != project[(r, "shortest_distance")] for r in set(frame["request_id"]))
    assert differ >= 1

    shown = texts(at)
    assert "cannot differ" not in shown
    assert f"over 3 requests, the two strategies chose different orders in {differ}" in shown
    assert "p10–p90" in shown and "95% interval of the median" in shown
    table = pair_table(at)
    assert table["n"].tolist() == [3] and table["differ"].tolist() == [differ] and not table["estimates"].any()
    saved = (
        frame[(frame["optimiser"] == "project") & (frame["strategy"] == "shortest_distance")]
        .set_index("request_id")["duration_s"]
        .sub(frame[(frame["optimiser"] == "project") & (frame["strategy"] == "fastest_time")].set_index("request_id")["duration_s"])
    )  # fmt: skip
    assert table["saved_median"].iloc[0] == pytest.approx(saved.median() / 60)
    assert table["saved_p10"].iloc[0] <= table["saved_median"].iloc[0] <= table["saved_p90"].iloc[0]

    titles = chart_titles(at)
    assert any("The difference per request (n = 3" in t for t in titles)
    assert any("Distance against time over every request (n = 9)" in t for t in titles)
    assert any(t.startswith("Gap to the best known") for t in titles)
    assert any(t.startswith("Solver time") for t in titles)

    [deck] = elements(at, "deck_gl_json_chart")
    spec = json.loads(deck.proto.json)
    assert [layer["@@type"] for layer in spec["layers"]] == ["GeoJsonLayer", "PathLayer", "ScatterplotLayer"]
    assert spec.get("mapProvider") is None and "cartocdn" not in deck.proto.json and "mapbox" not in deck.proto.json
    background = spec["layers"][0]["data"]["features"]
    assert background and {f["geometry"]["type"] for f in background} & {"LineString", "MultiLineString"}
    paths = spec["layers"][1]["data"]
    assert len(paths) == 6  # three requests × the two strategies compared
    # the credits under the map: the source and the month of its data, not the pack builder's version or stamp
    assert "© OpenStreetMap contributors" in shown and "2019-04" in shown
    assert "pyrosm" not in shown and "T09:50" not in shown
    assert all(len(p["path"]) >= 2 for p in paths)


def test_shanghai_estimates_say_the_strategies_cannot_differ_and_show_why(batches):
    at = lab_app()
    result = run_batch(at, batches["shanghai"])
    assert set(result.frame["metric_source"]) == {"offline_estimate"}
    [warning] = [w.value for w in at.warning]
    assert "straight-line estimate" in warning and "cannot differ" in warning and "all 3 requests" in warning
    assert "Different orders: 0 of 3 requests" in texts(at)
    assert "chose different orders in" not in texts(at)  # identical columns are not worded as a finding
    table = pair_table(at)
    assert table["n"].tolist() == [3] and table["differ"].tolist() == [0] and table["estimates"].all()
    titles = chart_titles(at)
    assert any("Time against distance on straight-line estimates" in t for t in titles)
    assert not any("The difference per request" in t for t in titles)
    [deck] = elements(at, "deck_gl_json_chart")
    assert "cartocdn" not in deck.proto.json  # no road data: the pack's coverage box under straight lines
    assert "no road data" in texts(at)


def test_in_chinese_the_estimates_are_said_in_chinese(batches):
    at = lab_app("zh")
    run_batch(at, batches["shanghai"])
    [warning] = [w.value for w in at.warning]
    assert "不可能有差别" in warning and "直线估算" in warning
    assert "cannot" not in texts(at)


def test_the_summary_exports_as_csv_with_a_bom_named_after_the_batch(batches, monkeypatch):
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    served: dict[str, tuple[bytes, str | None]] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        data = path_or_data.encode("utf-8") if isinstance(path_or_data, str) else bytes(path_or_data)
        served[file_id] = (data, filename)
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    at = lab_app()
    run_batch(at, batches["helsinki"])
    [button] = [b for b in at.get("download_button") if b.key == "lab_csv"]
    data, name = served[button.proto.url.rsplit("/", 1)[-1].split(".")[0]]
    assert name == "hel-small-summary.csv"
    assert data.startswith(BOM)
    header = data[len(BOM) :].decode("utf-8").splitlines()[0].split(",")
    assert header[0] == "section" and {"a", "b", "n", "n_differ", "time_saved_s.median", "time_saved_s.p10"} <= set(
        header
    )
    assert {"gap.median", "size_bucket", "optimiser"} <= set(header)
    assert {b.key for b in at.get("download_button")} == {"lab_csv", "lab_html", "lab_png"}


def test_a_grid_change_marks_the_result_stale_and_changing_it_back_does_not(batches):
    at = lab_app()
    run_batch(at, batches["helsinki"])
    assert not [i for i in at.info if "another batch or other choices" in i.value]
    at.multiselect(key="lab_modes").set_value(["walking"]).run()
    assert [i for i in at.info if "another batch or other choices" in i.value]
    at.multiselect(key="lab_modes").set_value(["driving"]).run()
    assert not [i for i in at.info if "another batch or other choices" in i.value]
    at.text_input(key="lab_batch_path").set_value(str(batches["shanghai"])).run()
    assert [i for i in at.info if "another batch or other choices" in i.value]


def test_invalid_lines_are_sentences_and_error_rows(batches, tmp_path):
    lines = batches["shanghai"].read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "with-bad-lines.jsonl"
    bad.write_text("\n".join([lines[0], "{not json", lines[1]]) + "\n", encoding="utf-8")
    at = lab_app()
    result = run_batch(at, bad)
    assert "Request 2 cannot be run: the line is not a valid request." in texts(at)
    errors = result.frame[result.frame["status"] == "error"]
    assert set(errors["error_code"]) == {"INVALID_INPUT"} and errors["request_index"].tolist()[0] == 1
    assert "Request 2: the line is not a valid request" in texts(at)


def test_the_drill_down_opens_the_request_in_the_route_planner(batches):
    from core.lab.batch import read_batch

    at = lab_app()
    run_batch(at, batches["helsinki"])
    item = read_batch(batches["helsinki"]).items[1][1]
    at.selectbox(key="lab_request").set_value(item.id).run()
    at.selectbox(key="lab_a").set_value("fastest_time").run()
    at.button(key="lab_open_planner").click().run()
    assert not at.exception, at.exception
    assert at.title[0].value.endswith("Route planner")
    assert at.text_input(key="origin_name").value == item.request.origin_name
    assert at.text_input(key="origin_address").value == item.request.origin_address
    assert at.checkbox(key="round_trip").value is True
    assert at.selectbox(key="route_strategy").value == "fastest_time"
    assert at.selectbox(key="transport_mode").value == "driving"
    assert at.selectbox(key="region").value == "helsinki"
    stops = at.session_state["stops_df"]
    assert stops["name"].tolist() == [s.name for s in item.request.stops]
    at.switch_page(PLANNER_PAGE)  # AppTest stays on the page it was switched to; the app is on the planner now
    at.button(key="plan").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    planned = at.session_state["route_result"]
    assert planned.region == "helsinki" and len(planned.resolved_stops) == len(item.request.stops)


def test_chart_exports_are_offline_html_and_png(batches):
    from components.lab import charts as lab_charts

    at = lab_app()
    result = run_batch(at, batches["helsinki"])
    pairs = lab_charts.pair_frame(
        result.frame, a="fastest_time", b="shortest_distance", optimiser="project", group_label=lambda *g: "/".join(g)
    )
    chart = lab_charts.difference_chart(pairs, a="fastest_time", b="shortest_distance", lang="en")
    page = lab_charts.chart_html(chart)
    assert "<html" in page and "vegaEmbed" in page
    assert not re.search(r"""<script[^>]*\bsrc=["']?https?://""", page)  # Vega's scripts inline, none fetched
    assert "cdn.jsdelivr" not in page
    png = lab_charts.chart_png(chart)
    assert png is not None and png.startswith(b"\x89PNG\r\n\x1a\n")


def test_the_difference_chart_reads_zero_as_0_not_0_000000():
    """Two requests on which the strategies agree: every difference is 0 and Vega's default ticks would print
    "0.000000" (seen in the browser sweep); the position axes trim the trailing zeros."""
    import pandas as pd

    from components.lab import charts as lab_charts

    pairs = pd.DataFrame(
        {"group": ["Helsinki"] * 2, "request": [1, 2], "stops": [3, 4], "time_saved_min": [0.0, 0.0],
         "distance_added_km": [0.0, 0.0]}
    )  # fmt: skip
    spec = lab_charts.difference_chart(pairs, a="fastest_time", b="shortest_distance", lang="zh").to_dict()
    points = spec["hconcat"][0]["layer"][0]["encoding"]
    assert points["x"]["axis"]["format"] == points["y"]["axis"]["format"] == "~f"


def test_a_large_batch_is_handed_to_the_cli_and_its_results_load_later(batches, capsys):
    import shlex

    from core.__main__ import main
    from core.models.lab import LabGrid

    at = lab_app()
    at.selectbox(key="lab_shipped").set_value("helsinki-delivery-200.jsonl").run()
    assert at.number_input(key="lab_limit").value == 20  # the page runs a first sample; the CLI the whole batch
    [command] = [c.value for c in at.code if c.value.startswith("python -m core lab run")]
    args = shlex.split(command)
    assert args[5].endswith("data/batches/helsinki-delivery-200.jsonl")
    grid = LabGrid.model_validate_json(Path(args[args.index("--grid") + 1]).read_text(encoding="utf-8"))
    assert grid.optimisers == ["project", "ortools_gls", "nearest_neighbour"] and grid.with_geometry

    # the same hand-off for a small batch, run here through the CLI's own entry point, then loaded on the page
    run_batch(at, batches["shanghai"])
    [command] = [c.value for c in at.code if c.value.startswith("python -m core lab run")]
    args = shlex.split(command)[3:]
    assert main([*args, "--workers", "1", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 3 * 3 * len(OPTIMISERS)
    at.run()
    at.button(key="lab_load_cli").click().run()
    assert not at.exception, at.exception
    result = at.session_state["lab_result"]
    assert result.signature is None and result.path == args[args.index("--out") + 1]
    assert "Results loaded from the file" in texts(at)
    assert "cannot differ" in " ".join(w.value for w in at.warning)


def test_a_batch_of_trip_days_runs_without_strategies(tmp_path):
    path = write_batch(
        generate_batch(region="shanghai", kind="trip-day", n=2, stops=(3, 4), seed=7, settings=get_settings()),
        tmp_path / "days.jsonl",
    )
    at = lab_app()
    result = run_batch(at, path)
    assert set(result.frame["optimiser"]) == {"itinerary"} and (result.frame["status"] == "ok").all()
    assert "2 trip-day requests are planned whole by the itinerary planner" in texts(at)
    assert "single strategy" not in texts(at)


@pytest.mark.parametrize(
    ("lang", "solvers", "caption_start", "provider"),
    [
        ("en", ["Project solver", "OR-Tools", "Nearest neighbour"], "Project solver: exact for a few stops", "Offline"),
        ("zh", ["本项目求解器", "OR-Tools", "最近邻"], "本项目求解器：站点少时精确求解", "离线"),
    ],
)
def test_the_grid_tags_are_short_names_and_a_caption_says_what_each_solver_does(lang, solvers, caption_start, provider):
    """The tags of a multiselect have a narrow width: the solvers and the map service are named short (the glossary's
    words) and the caption under the solvers says what each one does."""
    at = lab_app(lang)
    optimisers = at.multiselect(key="lab_optimisers")
    assert [optimisers.format_func(code) for code in optimisers.value] == solvers
    assert [at.multiselect(key="lab_providers").format_func(code) for code in ["offline"]] == [provider]
    captions = [str(c.value) for c in at.caption]
    assert any(c.startswith(caption_start) for c in captions), captions
    explained = next(c for c in captions if c.startswith(caption_start))
    assert all(name in explained for name in ("OR-Tools", "Valhalla")), explained


@pytest.mark.parametrize(("lang", "said"), [("en", "could not be read again"), ("zh", "无法再次读取")])
def test_kept_results_whose_table_is_gone_are_said_lost_not_silently_dropped(batches, lang, said, monkeypatch):
    import core.app.lab_memory
    from components.lab import choices

    monkeypatch.setattr(core.app.lab_memory, "MAX_TABLE_BYTES", 0)  # too large to keep in the database
    at = lab_app(lang)
    result = run_batch(at, batches["helsinki"])
    Path(result.path).unlink()  # the table the user's memory points at is gone
    for key in (choices.RESTORED, "lab_result"):
        del at.session_state[key]  # as a new session: the memory is read again
    at.run()
    warnings = [w.value for w in at.warning]
    assert any(said in w and result.name in w for w in warnings), warnings
    assert "lab_result" not in at.session_state
    at.run()  # said once
    assert not any(said in w.value for w in at.warning)


def test_a_reload_on_a_dashboard_of_another_machine_shows_the_kept_results(batches, tmp_path, monkeypatch):
    """A team's second dashboard process on another machine: the same database, its own lab folder, none of the
    first one's files. The reload there shows the user's settings and results, read from the database."""
    from components.lab import choices

    at = lab_app()
    result = run_batch(at, batches["helsinki"])
    shutil.rmtree(Path(result.path).parent)  # the first machine's disk is not the second's
    monkeypatch.setenv("OMNI_CACHE_DIR", str(tmp_path / "machine-b" / "response-cache"))
    get_settings.cache_clear()
    for key in (choices.RESTORED, "lab_result", "lab_choices"):
        del at.session_state[key]  # as a new session: the memory is read again
    at.run()
    assert not at.exception, at.exception
    restored = at.session_state["lab_result"]
    assert Path(restored.path).parent == tmp_path / "machine-b" / "lab" / "results"
    assert restored.frame.equals(result.frame)
    assert at.session_state["lab_choices"].lab_time_limit == 0.05  # the settings the run was made with
    assert not any("could not be read again" in w.value for w in at.warning)


@pytest.mark.parametrize(("lang", "said"), [("en", "the database does not answer"), ("zh", "数据库没有响应")])
def test_a_database_that_does_not_answer_is_said_and_the_kept_memory_is_read_once_it_answers(
    batches, lang, said, monkeypatch
):
    import core.app.lab_memory
    from components.lab import choices
    from core.errors import DatabaseUnreachable

    at = lab_app(lang)
    result = run_batch(at, batches["helsinki"])
    real_load = core.app.lab_memory.LabMemoryStore.load

    def down(self, user):
        raise DatabaseUnreachable("the database does not answer")

    monkeypatch.setattr(core.app.lab_memory.LabMemoryStore, "load", down)
    for key in (choices.RESTORED, "lab_result", "lab_choices"):
        del at.session_state[key]  # a reload while the database is down
    at.run()
    assert not at.exception, at.exception
    assert any(said in w.value for w in at.warning), [w.value for w in at.warning]
    assert "lab_result" not in at.session_state

    monkeypatch.setattr(core.app.lab_memory.LabMemoryStore, "load", real_load)
    at.run()  # the database answers again: the memory kept before the outage comes back, not the defaults
    assert not any(said in w.value for w in at.warning)
    assert at.session_state["lab_result"].frame.equals(result.frame)
    assert at.session_state["lab_choices"].lab_time_limit == 0.05
