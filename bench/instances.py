"""Benchmark instance readers: TSPLIB (EUC_2D) and Solomon VRPTW, with the independent Solomon checker.

Conventions are those of the published tables: TSPLIB lengths with nint-rounded edges; Solomon travel time =
Euclidean distance, service must start by DUE DATE, routes return by the depot's due time.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Floating-point tolerance of the Solomon checker (times and loads).
TIME_EPS = 1e-6


_SUPPORTED = {"EUC_2D"}


def read_tsplib(path: str) -> tuple[str, np.ndarray, list[int]]:
    """Read a TSPLIB ``.tsp`` file with ``NODE_COORD_SECTION``.

    Returns ``(name, coords, ids)``: ``coords`` is an ``(n, 2)`` float array,
    ``ids`` the node ids as written in the file (1-based in TSPLIB).
    Header lines may be written ``KEY: value`` or ``KEY : value``.
    Only ``EDGE_WEIGHT_TYPE: EUC_2D`` is supported; other types raise
    ``ValueError`` naming the type.
    """
    header: dict[str, str] = {}
    coords: list[tuple[float, float]] = []
    ids: list[int] = []
    in_coords = False
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            line = raw.strip()
            if not line:
                continue
            if line == "EOF":
                break
            if in_coords:
                parts = line.split()
                if len(parts) < 3:
                    # a new section or garbage ends the coordinates
                    if ":" in line or parts[0].isalpha():
                        in_coords = False
                    else:
                        raise ValueError(f"bad coordinate line in {path}: {line!r}")
                else:
                    try:
                        ids.append(int(float(parts[0])))
                        coords.append((float(parts[1]), float(parts[2])))
                        continue
                    except ValueError:
                        in_coords = False
                if in_coords:
                    continue
            if line.startswith("NODE_COORD_SECTION"):
                in_coords = True
                continue
            if ":" in line:
                key, _, value = line.partition(":")
                header[key.strip().upper()] = value.strip()
            elif line.endswith("_SECTION"):
                raise ValueError(f"unsupported TSPLIB section {line!r} in {path}")
    ewt = header.get("EDGE_WEIGHT_TYPE", "").upper()
    if ewt not in _SUPPORTED:
        raise ValueError(f"unsupported EDGE_WEIGHT_TYPE {ewt or '(missing)'!r} in {path}; supported: EUC_2D")
    if not coords:
        raise ValueError(f"no NODE_COORD_SECTION data in {path}")
    dim = header.get("DIMENSION")
    if dim is not None and int(dim) != len(coords):
        raise ValueError(f"DIMENSION {dim} but {len(coords)} coordinates in {path}")
    name = header.get("NAME") or os.path.splitext(os.path.basename(path))[0]
    return name, np.asarray(coords, dtype=np.float64), ids


def tsplib_matrix(coords: np.ndarray) -> np.ndarray:
    """EUC_2D distance matrix: ``nint(sqrt(dx^2 + dy^2))`` (round half up), as floats."""
    P = np.asarray(coords, dtype=np.float64)
    d = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))
    return np.floor(d + 0.5)


@dataclass(frozen=True)
class VrptwInstance:
    name: str
    coords: np.ndarray  # (n+1, 2); row 0 = depot
    demand: np.ndarray  # (n+1,)
    ready: np.ndarray  # (n+1,) earliest start of service
    due: np.ndarray  # (n+1,) latest start of service; depot due = horizon
    service: np.ndarray  # (n+1,)
    capacity: float
    fleet: int
    ids: list[int]  # customer ids as in the file (row 0 = depot id)

    @property
    def n(self) -> int:
        """Number of customers (depot excluded)."""
        return len(self.ids) - 1

    def distance_matrix(self) -> np.ndarray:
        diff = self.coords[:, None, :] - self.coords[None, :, :]
        return np.sqrt((diff**2).sum(axis=2))


def read_solomon(path: str | os.PathLike) -> VrptwInstance:
    """Read a Solomon VRPTW text file (CRLF or LF line endings, blank lines allowed)."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    lines = [ln.strip() for ln in text.splitlines()]
    nonempty = [ln for ln in lines if ln]
    if not nonempty:
        raise ValueError(f"{path}: empty file")
    name = nonempty[0].split()[0]
    fleet = capacity = None
    rows: list[list[float]] = []
    i = 0
    in_customers = False
    while i < len(nonempty):
        ln = nonempty[i]
        up = ln.upper()
        if up.startswith("NUMBER") and "CAPACITY" in up:
            parts = nonempty[i + 1].split()
            fleet, capacity = int(float(parts[0])), float(parts[1])
            i += 2
            continue
        if up.startswith("CUST"):
            in_customers = True
            i += 1
            continue
        if in_customers:
            parts = ln.split()
            if len(parts) >= 7:
                try:
                    rows.append([float(p) for p in parts[:7]])
                except ValueError:
                    pass
        i += 1
    if fleet is None or capacity is None:
        raise ValueError(f"{path}: no VEHICLE NUMBER/CAPACITY section")
    if len(rows) < 1:
        raise ValueError(f"{path}: no customer rows")
    a = np.asarray(rows, dtype=float)
    return VrptwInstance(
        name=name,
        coords=a[:, 1:3].copy(),
        demand=a[:, 3].copy(),
        ready=a[:, 4].copy(),
        due=a[:, 5].copy(),
        service=a[:, 6].copy(),
        capacity=capacity,
        fleet=fleet,
        ids=[int(x) for x in a[:, 0]],
    )


def route_distance(inst: VrptwInstance, route_rows: Sequence[int]) -> float:
    """Length of depot -> rows... -> depot (row indices, not ids)."""
    if not route_rows:
        return 0.0
    pts = inst.coords[[0, *route_rows, 0]]
    return float(np.sqrt(((pts[1:] - pts[:-1]) ** 2).sum(axis=1)).sum())


def check_solution(inst: VrptwInstance, routes: Sequence[Sequence[int]]) -> tuple[bool, float, list[str]]:
    """Independent feasibility check of ``routes`` (customer ids as in the file).

    Checks capacity, time windows (waiting allowed, start of service <= due), return to the depot by the
    horizon, every customer served exactly once and the fleet size. Returns ``(feasible, distance,
    violations)``; the distance is the Euclidean length (double precision) of all routes as given.
    """
    row_of = {cid: r for r, cid in enumerate(inst.ids)}
    depot_id = inst.ids[0]
    violations: list[str] = []
    seen: dict[int, int] = {}
    total = 0.0
    used = 0
    horizon = float(inst.due[0])
    for k, route in enumerate(routes):
        route = list(route)
        if not route:
            continue
        used += 1
        rows: list[int] = []
        for cid in route:
            if cid == depot_id:
                violations.append(f"route {k}: visits the depot {cid} as a customer")
                continue
            if cid not in row_of:
                violations.append(f"route {k}: unknown customer id {cid}")
                continue
            rows.append(row_of[cid])
            seen[cid] = seen.get(cid, 0) + 1
        load = float(inst.demand[rows].sum()) if rows else 0.0
        if load > inst.capacity + 1e-9:
            violations.append(f"route {k}: load {load:g} exceeds capacity {inst.capacity:g}")
        t = float(inst.ready[0])
        prev = 0
        for r in rows:
            d = math.hypot(*(inst.coords[r] - inst.coords[prev]))
            total += d
            t = max(t + d, float(inst.ready[r]))
            if t > inst.due[r] + TIME_EPS:
                violations.append(
                    f"route {k}: service at customer {inst.ids[r]} starts at {t:.4f} after its due time {inst.due[r]:g}"
                )
            t += float(inst.service[r])
            prev = r
        d = math.hypot(*(inst.coords[0] - inst.coords[prev]))
        total += d
        t += d
        if t > horizon + TIME_EPS:
            violations.append(f"route {k}: returns to the depot at {t:.4f} after the horizon {horizon:g}")
    for cid in inst.ids[1:]:
        c = seen.get(cid, 0)
        if c == 0:
            violations.append(f"customer {cid} is not served")
        elif c > 1:
            violations.append(f"customer {cid} is served {c} times")
    if used > inst.fleet:
        violations.append(f"{used} vehicles used, fleet is {inst.fleet}")
    return (not violations, total, violations)
