"""The route planner's downloads (AppTest): named after the trip (its destination in the page's language) and
the day, and a CSV that Excel opens as UTF-8 (it starts with the byte order mark)."""

from __future__ import annotations

import csv
import io
from datetime import date

import pytest

from core.packs.loader import load_region
from tests.ui.test_route_language import plan_scenario, planner

pytestmark = pytest.mark.ui

BOM = b"\xef\xbb\xbf"


@pytest.fixture
def served(monkeypatch) -> dict[str, tuple[bytes, str | None]]:
    """What the page hands to Streamlit's media storage, by file id: (bytes, file name)."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    files: dict[str, tuple[bytes, str | None]] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        data = path_or_data.encode("utf-8") if isinstance(path_or_data, str) else bytes(path_or_data)
        files[file_id] = (data, filename)
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    return files


def downloads(at, served) -> dict[str, tuple[bytes, str | None]]:
    return {b.key: served[b.proto.url.rsplit("/", 1)[-1].split(".")[0]] for b in at.get("download_button")}


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
    stem = "-".join(shown.casefold().replace("'", " ").split()) + "-" + date.today().isoformat()
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
