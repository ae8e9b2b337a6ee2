"""The lab's route map (components/lab/map.py): which routes it draws for the strategies compared."""

from __future__ import annotations

import json

import pandas as pd

from components.lab.map import build_deck

A, B = "fastest_time", "shortest_distance"


def _row(request: str, index: int, strategy: str, legs: list[list[list[float]]]) -> dict[str, object]:
    return {
        "status": "ok", "optimiser": "project", "region": "helsinki", "provider": "offline", "mode": "driving",
        "strategy": strategy, "geometry": json.dumps(legs), "request_id": request, "request_index": index,
        "n_stops": 3, "distance_m": 1000.0, "duration_s": 300.0, "place_order": "[]",
    }  # fmt: skip


def _drawn(frame: pd.DataFrame, colour_by: str) -> tuple[list[list[list[float]]], dict[str, object]]:
    deck, facts = build_deck(
        frame, region="helsinki", provider="offline", mode="driving", strategies=[A, B], colour_by=colour_by, a=A,
        b=B, pack=None, origins={}, lang="en", request_label=lambda i, n: f"request {i} ({n} stops)",
    )  # fmt: skip
    assert deck is not None
    (routes,) = [layer for layer in deck.layers if layer.id == "routes"]
    return [p["path"] for p in routes.data], facts


def test_coloured_by_saving_each_request_is_drawn_once_by_strategy_as_route_even_when_a_route_has_no_line():
    a1 = [[[24.94, 60.17], [24.95, 60.17]]]
    a2 = [[[24.93, 60.16], [24.96, 60.18]]]
    b2 = [[[24.93, 60.16], [24.94, 60.19], [24.96, 60.18]]]
    frame = pd.DataFrame(
        [
            _row("r1", 0, B, [[[24.94, 60.17]]]),  # one point: no line to draw
            _row("r1", 0, A, a1),
            _row("r2", 1, B, b2),
            _row("r2", 1, A, a2),
        ]
    )
    paths, facts = _drawn(frame, "saving")
    assert paths == [a1[0], a2[0]]  # strategy A's two routes, not B's second one in A's place
    assert facts["routes"] == 2

    paths, facts = _drawn(frame, "strategy")
    assert paths == [a1[0], b2[0], a2[0]] and facts["routes"] == 3  # every route with a line
