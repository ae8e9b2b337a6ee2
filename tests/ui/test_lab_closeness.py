"""The lab says why two strategies come out equal or nearly equal on real figures, beside the figures (issue 32):
the same order on every request, or medians within half a minute and 100 m; a real difference gets no such note.
On straight-line estimates, the lab reuses the route planner's own sentence for why they cannot differ."""

from __future__ import annotations

import pytest

from components.lab.words import cannot_differ_sentence, closeness_sentence
from core.i18n import t
from core.models.lab import PairSummary, Spread

pytestmark = pytest.mark.ui


def pair(*, n: int, differ: int, saved_s: float | None, added_m: float | None) -> PairSummary:
    return PairSummary(
        region="helsinki", provider="offline", mode="driving", optimiser="ortools_gls", a="fastest_time",
        b="shortest_distance", n=n, n_differ=differ, time_saved_s=Spread(n=n, median=saved_s),
        distance_added_m=Spread(n=n, median=added_m),
    )  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_same_order_everywhere_is_said_as_why_the_figures_are_equal(lang):
    said = closeness_sentence(pair(n=7, differ=0, saved_s=0.0, added_m=0.0), lang)
    assert said is not None
    assert {"en": "all 7 requests", "zh": "全部 7 个请求"}[lang] in said
    assert {"en": "Fastest time", "zh": "最快"}[lang].casefold() in said.casefold()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_gap_of_six_seconds_over_ten_requests_is_barely_a_difference_and_says_why(lang):
    said = closeness_sentence(pair(n=10, differ=4, saved_s=-6.0, added_m=40.0), lang)  # median −0.1 min
    assert said is not None
    assert {"en": "same order on 6 of 10 requests", "zh": "10 个请求中有 6 个选了同一顺序"}[lang] in said
    assert {"en": "under half a minute and 100 m", "zh": "不到半分钟、不到 100 米"}[lang] in said


@pytest.mark.parametrize(("saved_s", "added_m"), [(95.0, 40.0), (-6.0, 450.0), (None, None)])
def test_a_real_difference_or_no_figures_get_no_note(saved_s, added_m):
    assert closeness_sentence(pair(n=10, differ=4, saved_s=saved_s, added_m=added_m), "en") is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_estimates_the_lab_says_the_route_planners_own_why(lang):
    said = cannot_differ_sentence("Shanghai", 3, "fastest_time", "shortest_distance", lang)
    assert said.endswith(t("route.strategies_agree.estimates", lang))
