"""The candidate table shows every order whole (components/route/tables.py order_row_height): a row is as tall as
the longest order needs at its column's width, in English and in Chinese, with 8 stops or 40; a short order keeps
the table's one-line rows. The browser side (the page at 390 px) is in test_scale_browser.py."""

from __future__ import annotations

import pytest

from components.route.tables import (
    LINE_PX,
    ORDER_MAX_PX,
    WRAPPING_ROW_PX,
    _text_width_px,
    order_row_height,
    wrapped_lines,
)
from core.app.regions import load_region

pytestmark = pytest.mark.ui

ARROW = " → "


def pack_order(n: int, lang: str) -> str:
    """An order of ``n`` of the Shanghai pack's places, named in ``lang``, as the table writes it."""
    places = load_region("shanghai").places[:n]
    return ARROW.join(p.name_en if lang == "en" and p.name_en else p.name_zh for p in places)


@pytest.mark.parametrize(("stops", "lang"), [(8, "en"), (40, "en"), (40, "zh"), (25, "zh")])
def test_a_row_has_room_for_its_longest_order(stops, lang):
    longest = pack_order(stops, lang)
    orders = [pack_order(3, lang), longest]
    height = order_row_height(orders, ORDER_MAX_PX)
    assert height is not None and height >= WRAPPING_ROW_PX
    lines = (height - 8) // LINE_PX
    text_px = ORDER_MAX_PX - 24
    # the lines hold at least the text's whole width (the words wrapped into them leave some room unused)
    assert lines * text_px >= _text_width_px(longest)
    assert lines >= wrapped_lines(longest, text_px)


def test_forty_english_stops_need_more_than_the_three_lines_rows_used_to_have():
    height = order_row_height([pack_order(40, "en")], ORDER_MAX_PX)
    assert height is not None and height > 3 * LINE_PX + 8


def test_an_order_that_fits_on_one_line_keeps_one_line_rows():
    assert order_row_height(["外滩 → 豫园 → 新天地"], ORDER_MAX_PX) is None
    assert order_row_height([], ORDER_MAX_PX) is None


def test_wrapping_counts_lines_at_spaces_and_breaks_a_word_wider_than_the_cell():
    word = "Xintiandi"  # 9 narrow characters
    one = _text_width_px(word)
    assert wrapped_lines(word, one) == 1
    assert wrapped_lines(f"{word} {word}", one) == 2  # no room for the second beside the first
    assert wrapped_lines(f"{word} {word}", 3 * one) == 1
    three = _text_width_px(word * 3)  # one word three cells wide
    assert wrapped_lines(word * 3, -(-three // 3)) == 3
    assert wrapped_lines(f"{word} {word * 3}", -(-three // 3)) == 4  # after a word: from a line of its own


@pytest.fixture(scope="module")
def delivery_round():
    from core.config import get_settings
    from core.geo.registry import make_provider
    from core.route.planner import plan_route
    from core.route.scenarios import load_scenario

    scenario = load_scenario("delivery-round")
    provider = make_provider("offline", region=scenario.region, settings=get_settings())
    return plan_route(scenario.request, provider=provider, settings=get_settings())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_line_under_the_table_gives_the_chosen_candidates_whole_order(delivery_round, lang):
    from components.route.tables import whole_order_line
    from components.route_words import order_names

    result = delivery_round
    best = result.candidates[result.best_index]
    other = next(c for c in result.candidates if c is not best)
    for rank, cand in ((None, best), (other.rank, other), (999, best)):  # 999: no such row, the best is shown
        line = whole_order_line(result, rank, lang=lang)
        names = [n.shown for n in order_names(result, cand, lang)]
        assert len(names) == len(result.resolved_stops) + 2  # the start, every stop, the destination
        at = [line.index(name) for name in names]  # every name, whole, in the candidate's order
        assert at == sorted(at), (line, names)
        assert "…" not in line
    assert whole_order_line(result, None, lang=lang).startswith("Best route" if lang == "en" else "最佳路线")
