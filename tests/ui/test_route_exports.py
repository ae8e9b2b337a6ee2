"""The route planner's downloads (AppTest): named after the trip (its destination in the page's language) and
the day, and a CSV that Excel opens as UTF-8 (it starts with the byte order mark)."""

from __future__ import annotations

import csv
import html
import io

import pytest

from core.packs.loader import load_region
from tests.support.clock import suite_today
from tests.ui.test_route_language import plan_scenario, planner

pytestmark = pytest.mark.ui

BOM = b"\xef\xbb\xbf"


@pytest.fixture
def served(monkeypatch) -> dict[str, tuple[bytes, str | None]]:
    """What the page hands to Streamlit's media storage, by file id: (bytes, file name); a file made when its
    button is pressed (a deferred download) is made here as the press would make it."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    files: dict[str, tuple[bytes, str | None]] = {}
    original = MemoryMediaFileStorage.load_and_get_id
    original_deferred = MediaFileManager.add_deferred

    def as_bytes(data) -> bytes:
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        files[file_id] = (as_bytes(path_or_data), filename)
        return file_id

    def recording_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        file_id = original_deferred(self, data_callable, mimetype, coordinates, file_name, **kwargs)
        files[file_id] = (as_bytes(data_callable()), file_name)
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    monkeypatch.setattr(MediaFileManager, "add_deferred", recording_deferred)
    return files


def downloads(at, served) -> dict[str, tuple[bytes, str | None]]:
    def file_id(button) -> str:
        return button.proto.deferred_file_id or button.proto.url.rsplit("/", 1)[-1].split(".")[0]

    return {b.key: served[file_id(b)] for b in at.get("download_button")}


def destination_names(result) -> tuple[str, str]:
    """The destination's (English, Chinese) name in the region pack."""
    [place] = [p for p in load_region(result.region).places if p.id == result.resolved_destination.poi_id]
    return place.name_en, place.name_zh


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_downloads_are_named_after_the_destination_and_the_day(served, lang):
    at = planner(lang=lang)
    result = plan_scenario(at)
    name_en, name_zh = destination_names(result)
    assert name_en and name_zh
    shown = name_en if lang == "en" else name_zh
    stem = "-".join(shown.casefold().replace("'", " ").split()) + "-" + suite_today().isoformat()
    files = downloads(at, served)
    assert {key: name for key, (_, name) in files.items()} == {
        "dl_json": f"{stem}.json",
        "dl_html": f"{stem}.html",
        "dl_csv": f"{stem}-legs.csv",
    }


def test_csv_download_starts_with_the_bom_and_the_header(served):
    at = planner(lang="zh")
    result = plan_scenario(at)
    data, _ = downloads(at, served)["dl_csv"]
    assert data.startswith(BOM)
    rows = list(csv.reader(io.StringIO(data[len(BOM) :].decode("utf-8"))))
    assert rows[0][:5] == ["candidate_rank", "is_best", "leg", "from", "to"]
    assert len(rows) - 1 == sum(len(c.legs) for c in result.candidates)
    best = [r for r in rows[1:] if r[1] == "true"]
    assert [r[3] for r in best][0] == result.best_route.legs[0].from_label
    assert sum(int(r[7]) for r in best) == result.best_route.total_distance_m


def test_html_download_is_the_plan_page_made_on_press(served):
    at = planner(lang="en")
    result = plan_scenario(at)
    [button] = [b for b in at.get("download_button") if b.key == "dl_html"]
    assert button.proto.deferred_file_id and not button.proto.url  # not made with every plan
    data, _ = downloads(at, served)["dl_html"]
    page = data.decode("utf-8")
    assert page.lstrip().lower().startswith("<!doctype html")
    assert all(html.escape(label) in page for label in result.best_route.full_order_labels)


def test_every_download_is_made_on_press_and_is_the_plans(served):
    """No file is made with the plan: each button carries a deferred file, made when it is pressed, and what it
    makes is this plan's (the JSON reads back as the result on screen)."""
    from core.models.route import RoutePlanResult

    at = planner(lang="en")
    result = plan_scenario(at)
    buttons = {b.key: b for b in at.get("download_button")}
    for key in ("dl_json", "dl_html", "dl_csv"):
        assert buttons[key].proto.deferred_file_id and not buttons[key].proto.url, key
    data, _ = downloads(at, served)["dl_json"]
    back = RoutePlanResult.model_validate_json(data)
    # the plan itself; its warnings and summary are the page's sentences (places named as the page names them)
    # the sentences are the reader's (the summary and the search note worded at the edge); the facts are the plan's
    worded = {"warnings": result.warnings, "summary": result.summary, "optimizer": result.optimizer}
    assert back.model_copy(update=worded) == result
    assert back.optimizer is not None and back.optimizer.note and result.optimizer is not None
    assert len(back.warnings) == len(result.notices) and back.summary != result.summary
