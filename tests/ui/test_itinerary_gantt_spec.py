"""The Gantt chart's hand-written Vega-Lite spec (components/itinerary/timeline.py ``gantt_spec``): valid Vega-Lite,
and the same bars, opening hours, lunch window, scale and words as the Altair chart it replaces (``gantt_chart``)."""

from __future__ import annotations

import altair as alt
import pytest

from components.itinerary.timeline import gantt_chart, gantt_spec
from core.config import Settings
from core.geo.registry import make_provider
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest
from tests.support.itinerary_packs import MONDAY, TUESDAY, trip, write_itinerary_pack

pytestmark = pytest.mark.ui


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    settings = Settings(data_dir=write_itinerary_pack(tmp_path_factory.mktemp("data")), region="itintest")
    provider = make_provider("offline", settings=settings)
    places = [
        {"place_id": "i-museum", "visit_minutes": 150, "opening_hours": "Tu-Su 09:00-17:00"},
        {"place_id": "i-bund", "visit_minutes": 45},
        {"place_id": "i-yuyuan", "visit_minutes": 60, "opening_hours": "Mo-Su 08:30-17:30"},
        "i-pearl",
    ]
    payload = trip(places, days=[MONDAY, TUESDAY], lunch={"enabled": True})
    return plan_itinerary(TripRequest.model_validate(payload), provider=provider, settings=settings)


def layers_by_mark(spec: dict) -> dict[str, dict]:
    """Each layer with its rows, by what it draws (the lunch band, the opening-hours bars, the entries' bars)."""
    out = {}
    for layer in spec["layer"]:
        tip = layer["encoding"]["tooltip"][0]["field"]
        name = "band" if layer["mark"]["type"] == "rect" else ("opening" if tip == "hours" else "bars")
        out[name] = {**layer, "rows": spec["datasets"][layer["data"]["name"]]}
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_gantt_spec_is_valid_and_draws_what_the_altair_chart_draws(result, lang):
    for day in result.days:
        spec = gantt_spec(day, result, lang=lang)
        alt.LayerChart.from_dict(spec)  # checks it against Vega-Lite's schema
        theirs = gantt_chart(day, result, lang=lang).to_dict()
        mine, ref = layers_by_mark(spec), layers_by_mark(theirs)
        assert set(mine) == set(ref)
        for name in ref:
            assert mine[name]["rows"] == ref[name]["rows"], name
            assert mine[name]["mark"] == ref[name]["mark"], name
            assert mine[name]["encoding"] == ref[name]["encoding"], name
        assert spec["title"] == theirs["title"] and spec["height"] == theirs["height"]
        assert [r["kind"] for r in mine["bars"]["rows"]] == [e.kind for e in day.entries]
    days_with = {name for day in result.days for name in layers_by_mark(gantt_spec(day, result, lang=lang))}
    assert days_with == {"band", "opening", "bars"}  # every kind of layer was compared on some day


def without_data(spec: dict) -> dict:
    """The spec as the browser's chart is keyed on: everything but the named datasets (Streamlit sends those apart)."""
    return {k: v for k, v in spec.items() if k != "datasets"}


def test_an_edit_of_a_day_changes_the_chart_s_data_and_not_its_spec(result):
    """Issue 32: the rows are ordered by each entry's "row", not by a list of the day's labels, so a day whose
    entries change (a stop removed) keeps the same spec: the browser then updates the chart's data in place instead
    of compiling and drawing a new chart. Its rows still come in the day's order, one row number per label."""
    day = next(d for d in result.days if sum(e.kind == "visit" for e in d.entries) >= 2)
    first_visit = next(i for i, e in enumerate(day.entries) if e.kind == "visit")
    edited = day.model_copy(update={"entries": [e for i, e in enumerate(day.entries) if i != first_visit]})
    before, after = gantt_spec(day, result, lang="en"), gantt_spec(edited, result, lang="en")
    assert without_data(before) == without_data(after)
    assert len(after["datasets"]["bars"]) == len(before["datasets"]["bars"]) - 1
    bars_layer = layers_by_mark(after)["bars"]
    assert bars_layer["encoding"]["y"]["sort"] == {"field": "row", "op": "min"}
    rows = bars_layer["rows"]
    assert [r["row"] for r in rows] == list(range(len(edited.entries)))
    assert [r["label"][:2] for r in rows] == [f"{i + 1:02d}" for i in range(len(edited.entries))]
    by_label = {r["label"]: r["row"] for r in rows}
    assert all(by_label[o["label"]] == o["row"] for o in after["datasets"].get("opening", []))
