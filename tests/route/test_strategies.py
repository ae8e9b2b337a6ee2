from core.route.strategies import Scored, best_reason, could_outrank, delta_phrase, other_reason, pareto_front, rank


def S(d, t, tag=0):
    return Scored(order=(tag,), distance_m=d, duration_s=t)


def test_shortest_distance_prefers_distance():
    items = [S(12_000, 900, 0), S(10_000, 1500, 1), S(11_000, 1000, 2)]
    assert rank(items, "shortest_distance", tolerance=0.0) == [1, 2, 0]


def test_shortest_distance_takes_the_least_distance_even_in_a_near_tie():
    # issue 31: 1.5 % longer but 5 min faster is still longer; a window on distance made the "shortest" longer
    items = [S(10_000, 1500, 0), S(10_150, 1200, 1)]
    assert rank(items, "shortest_distance", tolerance=0.02)[0] == 0
    assert rank(items, "shortest_distance", tolerance=0.01)[0] == 0
    reason = best_reason(items, rank(items, "shortest_distance", tolerance=0.02), "shortest_distance", tolerance=0.02)
    assert reason.startswith("Shortest total distance") and "near-tie with #2 (within 2%)" in reason
    assert "5 min slower" in reason
    # an equal distance: the faster order
    assert rank([S(10_000, 1500, 0), S(10_000, 1200, 1)], "shortest_distance", tolerance=0.02)[0] == 1


def test_fastest_time_prefers_time_then_distance():
    items = [S(10_000, 1500, 0), S(14_000, 1200, 1), S(12_000, 1210, 2)]
    assert rank(items, "fastest_time", tolerance=0.0)[0] == 1
    assert rank(items, "fastest_time", tolerance=0.02)[0] == 1  # 10 s faster wins, though 2 km longer
    assert rank([*items, S(11_000, 1200, 3)], "fastest_time", tolerance=0.02)[0] == 3  # an equal time: shorter


def test_pareto_front():
    items = [S(10, 10), S(9, 12), S(12, 8), S(11, 11), S(9, 12)]
    assert pareto_front(items) == {0, 1, 2, 4}


def test_balanced_takes_a_dominant_route():
    items = [S(10_000, 1500, 0), S(9_000, 1200, 1), S(9_500, 1300, 2)]
    ranking = rank(items, "balanced", tolerance=0.02)
    assert ranking[0] == 1
    reason = best_reason(items, ranking, "balanced", tolerance=0.02)
    assert reason.startswith("Pareto-dominant") and "0.5 km shorter, 2 min faster than #2" in reason


def test_balanced_trade_off_prefers_shorter_and_explains():
    # 3.2 km shorter and 6 min (10 %) slower: within the slack, so the shorter order wins
    items = [S(13_200, 3600, 0), S(10_000, 3960, 1)]
    ranking = rank(items, "balanced", tolerance=0.02)
    assert ranking == [1, 0]
    reason = best_reason(items, ranking, "balanced", tolerance=0.02)
    assert "Trade-off" in reason and "3.2 km shorter, 6 min slower than the fastest order (#2)" in reason


def test_delta_phrase_reports_concrete_deltas():
    assert delta_phrase(S(10_000, 1200), S(13_200, 840)) == "3.2 km shorter, 6 min slower"
    assert delta_phrase(S(10_000, 1200), S(10_020, 1210)) == "same distance, same time"


def test_reasons_read_as_sentences_when_one_metric_is_equal():
    items = [S(10_000, 1200, 0), S(10_400, 1210, 1), S(10_010, 1205, 2)]
    ranking = rank(items, "shortest_distance", tolerance=0.0)
    assert other_reason(items, ranking, 2) == "#3: 0.4 km longer than #1 in about the same time."
    assert other_reason(items, ranking, 1) == "#2: about the same distance and time as #1."
    items = [S(10_000, 1200, 0), S(10_020, 1500, 1)]
    assert other_reason(items, rank(items, "shortest_distance", tolerance=0.0), 1) == (
        "#2: 5 min slower than #1 over about the same distance."
    )


def test_heuristic_reason_does_not_claim_optimality():
    items = [S(10_000, 1200, 0), S(11_000, 1300, 1)]
    for strategy in ("shortest_distance", "fastest_time", "balanced"):
        ranking = rank(items, strategy, tolerance=0.02)
        exact = best_reason(items, ranking, strategy, tolerance=0.02)
        heuristic = best_reason(items, ranking, strategy, tolerance=0.02, exact=False)
        assert "not proven optimal" not in exact
        assert "not proven optimal" in heuristic and "found" in heuristic, heuristic


def test_balanced_does_not_take_a_much_slower_shorter_route():
    # 10 % shorter but 40 % slower than the fastest Pareto order: beyond the 15 % slack
    items = [S(10_000, 2100, 0), S(11_000, 1500, 1), S(10_500, 1650, 2)]
    ranking = rank(items, "balanced", tolerance=0.02, time_slack=0.15)
    assert ranking[0] == 2  # 10 % slower than the fastest: the shortest within the slack
    reason = best_reason(items, ranking, "balanced", tolerance=0.02, time_slack=0.15)
    assert "40% slower" in reason and "15%" in reason and "0.5 km longer, 8 min faster than #" in reason
    # with a generous slack the shortest wins again
    assert rank(items, "balanced", tolerance=0.02, time_slack=0.5)[0] == 0
    assert rank(items, "shortest_distance", tolerance=0.02)[0] == 0


def test_an_order_can_outrank_the_best_only_with_a_better_or_equal_own_total():
    best = S(10_000, 1000)
    # fastest_time: the least duration; an equal duration, the least distance
    assert not could_outrank(S(9_000, 1030), best, "fastest_time", tolerance=0.02)  # slower
    assert not could_outrank(S(9_900, 1010), best, "fastest_time", tolerance=0.02)  # slower, however short
    assert not could_outrank(S(10_500, 1000), best, "fastest_time", tolerance=0.02)  # as fast, but longer
    assert could_outrank(S(9_900, 1000), best, "fastest_time", tolerance=0.02)  # as fast and shorter
    assert could_outrank(S(12_000, 900), best, "fastest_time", tolerance=0.02)  # faster
    # shortest_distance: the least distance
    assert not could_outrank(S(10_100, 900), best, "shortest_distance", tolerance=0.02)
    assert could_outrank(S(9_900, 1100), best, "shortest_distance", tolerance=0.02)
    assert could_outrank(S(10_000, 900), best, "shortest_distance", tolerance=0.02)
