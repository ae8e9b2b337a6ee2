"""``python -m core bench roads``: the road network against the targets of docs/BENCHMARKS.md.

- A 20-stop plan on the helsinki pack, walking and driving: end-to-end time and the share of legs from the
  network (the rest would be estimates).
- Network distances against a reference: a networkx graph built from the same extract (ways with their
  ``oneway`` tags for driving, every walkable way both ways for walking), shortest paths between random
  intersections, compared with Valhalla's route between the same two points: median and worst difference, and
  how many driving pairs differ between directions (one-way streets) in both.
- 25 x 25 and 100 x 100 matrices, embedded and over HTTP (``valhalla_service`` started for the run).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from pathlib import Path
from typing import Any

from core.geo.base import LonLat, TravelMode

#: ways a car may use, and ways a walker may use (OSM highway values)
DRIVE = {
    "motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link", "secondary", "secondary_link",
    "tertiary", "tertiary_link", "unclassified", "residential", "living_street", "service",
}  # fmt: skip
WALK = DRIVE - {"motorway", "motorway_link", "trunk", "trunk_link"} | {
    "pedestrian", "footway", "path", "steps", "cycleway", "track", "corridor",
}  # fmt: skip


def _haversine(a: tuple[float, float], b: tuple[float, float]) -> float:
    from core.geo.coords import haversine_m

    return haversine_m(a[0], a[1], b[0], b[1])


def reference_graphs(pbf: Path) -> dict[str, Any]:
    """Directed networkx graphs (node id -> (lon, lat) in ``pos``) for driving and walking, from the extract."""
    import networkx as nx
    import osmium

    drive, walk = nx.DiGraph(), nx.DiGraph()
    pos: dict[int, tuple[float, float]] = {}
    for way in osmium.FileProcessor(str(pbf)).with_locations().with_filter(osmium.filter.KeyFilter("highway")):
        if not way.is_way():
            continue
        tags = dict(way.tags)
        kind = tags.get("highway", "")
        nodes = [(n.ref, (n.location.lon, n.location.lat)) for n in way.nodes if n.location.valid()]
        for ref, xy in nodes:
            pos[ref] = xy
        pairs = list(zip(nodes, nodes[1:]))
        closed = {"no", "private", "psv", "bus", "delivery", "agricultural", "forestry", "emergency"}
        car_closed = any(tags.get(k) in closed for k in ("access", "vehicle", "motor_vehicle", "motorcar"))
        if kind in DRIVE and not car_closed and tags.get("area") != "yes":
            oneway = tags.get("oneway", "no")
            if tags.get("junction") == "roundabout" or kind in {"motorway", "motorway_link"}:
                oneway = tags.get("oneway", "yes")
            for (a, pa), (b, pb) in pairs:
                length = _haversine(pa, pb)
                if oneway in {"yes", "true", "1"}:
                    drive.add_edge(a, b, length=length)
                elif oneway == "-1":
                    drive.add_edge(b, a, length=length)
                else:
                    drive.add_edge(a, b, length=length)
                    drive.add_edge(b, a, length=length)
        walk_closed = tags.get("access") in {"no", "private"} and tags.get("foot") not in {"yes", "designated"}
        if (kind in WALK or tags.get("foot") in {"yes", "designated"}) and tags.get("foot") != "no" and not walk_closed:
            for (a, pa), (b, pb) in pairs:
                length = _haversine(pa, pb)
                walk.add_edge(a, b, length=length)
                walk.add_edge(b, a, length=length)
    return {"driving": drive, "walking": walk, "pos": pos}


def compare_with_reference(
    router: Any, graphs: dict[str, Any], *, mode: TravelMode, pairs: int, seed: int
) -> dict[str, Any]:
    """Valhalla's route length against networkx's shortest path between random intersections (both ends on the
    graph's largest strongly connected part, at least 300 m apart)."""
    import networkx as nx

    graph, pos = graphs[mode], graphs["pos"]
    core = max(nx.strongly_connected_components(graph), key=len)
    junctions = sorted(n for n in core if graph.in_degree(n) + graph.out_degree(n) >= 5)  # where streets meet
    rng = random.Random(seed)
    diffs: list[float] = []
    failed = 0
    while len(diffs) + failed < pairs:
        a, b = rng.sample(junctions, 2)
        if _haversine(pos[a], pos[b]) < 300:
            continue
        reference = nx.shortest_path_length(graph, a, b, weight="length")
        try:
            leg = router.route(LonLat(*pos[a]), LonLat(*pos[b]), mode=mode)
        except Exception:  # a pair Valhalla cannot join is counted, not compared
            failed += 1
            continue
        diffs.append(abs(leg.distance_m - reference) / reference)
    return {
        "mode": mode,
        "pairs": len(diffs),
        "unjoined": failed,
        "median_diff_pct": round(100 * statistics.median(diffs), 2),
        "p90_diff_pct": round(100 * sorted(diffs)[int(0.9 * (len(diffs) - 1))], 2),
        "worst_diff_pct": round(100 * max(diffs), 2),
    }


def one_way_agreement(router: Any, graphs: dict[str, Any], *, pairs: int, seed: int) -> dict[str, Any]:
    """Driving pairs whose two directions differ by more than 20 % in the reference: does Valhalla agree?"""
    import networkx as nx

    graph, pos = graphs["driving"], graphs["pos"]
    core = sorted(max(nx.strongly_connected_components(graph), key=len))
    rng = random.Random(seed)
    asymmetric = agree = tried = 0
    while asymmetric < pairs and tried < pairs * 50:
        tried += 1
        a, b = rng.sample(core, 2)
        there = nx.shortest_path_length(graph, a, b, weight="length")
        back = nx.shortest_path_length(graph, b, a, weight="length")
        if abs(there - back) / min(there, back) < 0.2 or _haversine(pos[a], pos[b]) < 200:
            continue
        asymmetric += 1
        v_there = router.route(LonLat(*pos[a]), LonLat(*pos[b]), mode="driving").distance_m
        v_back = router.route(LonLat(*pos[b]), LonLat(*pos[a]), mode="driving").distance_m
        agree += (there < back) == (v_there < v_back)
    return {"asymmetric_pairs": asymmetric, "valhalla_agrees_on_the_longer_direction": agree}


def _timed_matrix(router: Any, points: list[LonLat], *, repeats: int) -> float:
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        router.matrix(points, mode="walking")
        best = min(best, time.perf_counter() - t0)
    return round(best, 3)


def bench_roads(*, region: str = "helsinki", pairs: int = 200, repeats: int = 3, seed: int = 7) -> dict[str, Any]:
    from core.config import PROJECT_ROOT, get_settings
    from core.geo.registry import make_provider
    from core.geo.valhalla import EmbeddedValhalla, HttpValhalla, ValhallaRouter
    from core.geo.valhalla_server import ValhallaServer
    from core.models.route import RoutePlanRequest
    from core.packs.loader import load_region
    from core.route.planner import plan_route

    settings = get_settings()
    pack = load_region(region, settings.data_dir)
    if pack.tile_dir is None:
        raise ValueError(f"the region '{region}' has no road network")
    out: dict[str, Any] = {"benchmark": "roads", "region": region}

    # 1. a 20-stop plan, walking and driving
    rng = random.Random(seed)
    pool = [p for p in pack.places if p.category not in {"address"} and p.name_en]
    picks = rng.sample(pool, 22)
    plans = []
    for mode in ("walking", "driving"):
        request = RoutePlanRequest.model_validate(
            {
                "task_name": f"20 stops {mode}",
                "origin_mode": "fixed",
                "origin_name": picks[0].name_en,
                "origin_city": pack.city,
                "destination_name": picks[1].name_en,
                "destination_city": pack.city,
                "stops": [{"name": p.name_en, "city": pack.city} for p in picks[2:]],
                "transport_mode": mode,
                "route_strategy": "fastest_time",
            }
        )
        times = []
        for _ in range(repeats):
            provider = make_provider("offline", region=region, settings=settings)  # cold cache each time
            t0 = time.perf_counter()
            result = plan_route(request, provider=provider, settings=settings)
            times.append(time.perf_counter() - t0)
        legs = [leg for c in result.candidates for leg in c.legs]
        plans.append(
            {
                "mode": mode,
                "stops": len(request.stops),
                "plan_s_median": round(statistics.median(times), 3),
                "legs": len(legs),
                "network_legs_pct": round(100 * sum(leg.source == "valhalla" for leg in legs) / len(legs), 1),
                "metric_source": result.metric_source,
            }
        )
    out["plans"] = plans

    # 2. against a networkx reference built from the same extract
    pbf = PROJECT_ROOT / ".omni" / "extracts" / "Helsinki.osm.pbf"
    embedded = ValhallaRouter(EmbeddedValhalla(pack.tile_dir))
    if region == "helsinki" and pbf.is_file():
        graphs = reference_graphs(pbf)
        # Valhalla's routes minimise time; on these streets its "shortest" costing option changed no length
        out["reference"] = [
            compare_with_reference(embedded, graphs, mode=m, pairs=pairs, seed=seed) for m in ("walking", "driving")
        ]
        out["one_way"] = one_way_agreement(embedded, graphs, pairs=50, seed=seed)

    # 3. matrix times, embedded and over HTTP
    rng = random.Random(seed + 1)
    inside = [LonLat(p.lon, p.lat) for p in pack.places]
    matrices = []
    with ValhallaServer(pack.tile_dir) as server:
        remote = ValhallaRouter(HttpValhalla(base_url=server.url, timeout_s=60))
        for n in (25, 100):
            points = rng.sample(inside, n)
            matrices.append(
                {
                    "size": f"{n}x{n}",
                    "embedded_s": _timed_matrix(embedded, points, repeats=repeats),
                    "http_s": _timed_matrix(remote, points, repeats=repeats),
                }
            )
    out["matrices"] = matrices
    return out
