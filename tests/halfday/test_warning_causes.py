"""A half-day travel warning says how the map service failed (issue 21: a black-hole AMap reads "did not answer in
time", not only "local estimates"), in the page's language; without a known cause it reads as before."""

from __future__ import annotations

from core.models.halfday.events import WarningObservation
from core.models.halfday.facts import WarningFacts
from core.words.halfday import warning_words


def test_a_travel_warning_names_the_cause_in_each_language() -> None:
    assert warning_words("TRAVEL_FROM_LOCAL_ESTIMATE", ["timeout"], "en") == (
        "Some travel times come from local estimates and may differ from live conditions. "
        "(map service: it did not answer in time)"
    )
    assert warning_words("TRAVEL_FROM_LOCAL_ESTIMATE", ["malformed", "timeout"], "zh").endswith(
        "（地图服务：返回的数据格式不对、未能及时答复）"
    )


def test_without_a_cause_the_warning_reads_as_before() -> None:
    plain = warning_words("TRAVEL_FROM_LOCAL_ESTIMATE", None, "en")
    assert plain == "Some travel times come from local estimates and may differ from live conditions."


def test_the_stage_log_line_carries_the_cause() -> None:
    from components.halfday.text import _observation

    seen = WarningObservation(code="TRAVEL_FROM_LOCAL_ESTIMATE", facts=WarningFacts(causes=["timeout"]))
    line = _observation(seen, "en")
    assert line is not None and line.startswith("⚠ ") and line.endswith("(map service: it did not answer in time)")
