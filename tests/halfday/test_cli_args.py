"""``python -m core halfday`` reads its arguments before it plans: a --now that is no moment is a field error
(exit 2, ``{"error": …}`` on stderr with field ``now``), never an internal error with a traceback."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from core.__main__ import main
from core.cli import parse_now


@pytest.mark.parametrize("bad", ["tomorrow", "明天下午", "2026-13-01T10:00", "24/11/2026 10:00", "10am"])
def test_a_bad_now_is_a_field_error(bad, capsys):
    assert main(["halfday", "--goal", "下午去博物馆", "--now", bad, "--region", "shanghai"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    error = json.loads(err)["error"]
    assert (error["code"], error["field"]) == ("INVALID_INPUT", "now")
    assert "ISO 8601" in error["message"] and bad in error["message"]


def test_now_is_read_as_iso_8601_with_or_without_an_offset():
    assert parse_now("2026-11-24T10:00:00+08:00") == datetime(2026, 11, 24, 10, tzinfo=timezone(timedelta(hours=8)))
    assert parse_now(" 2026-11-24 10:00 ") == datetime(2026, 11, 24, 10, 0)  # naive: the region's local time
    assert parse_now(None) is None and parse_now("") is None
