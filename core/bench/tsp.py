"""Benchmark helpers: TSPLIB reading and the closed-tour TSP benchmark.

``python -m core bench tsp FILE.tsp --time-limit S`` prints the dict returned
by :func:`bench_tsp` as JSON.
"""

from __future__ import annotations

import os
import time

import numpy as np

__all__ = ["read_tsplib", "tsplib_matrix", "tour_length", "bench_tsp"]

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
        raise ValueError(
            f"unsupported EDGE_WEIGHT_TYPE {ewt or '(missing)'!r} in {path}; supported: EUC_2D")
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


def tour_length(D: np.ndarray, tour) -> float:
    """Length of the closed tour (list of 0-based node indices) under ``D``."""
    t = np.asarray(tour, dtype=np.int64)
    return float(D[t, np.roll(t, -1)].sum())


def bench_tsp(path: str, *, time_limit_s: float, seed: int = 0) -> dict:
    """Solve a TSPLIB EUC_2D instance as a closed tour within ``time_limit_s``.

    Returns ``{"instance", "n", "length", "tour", "seconds", "method"}``:
    ``length`` is the TSPLIB length (integer, nint-rounded edges), ``tour`` the
    node ids as in the file, ``seconds`` the wall time of this call (reading
    the file, building the matrix, loading the solver kernels and solving).
    """
    t0 = time.perf_counter()
    from core.optimizer.tsp import solve_tour

    name, coords, ids = read_tsplib(path)
    D = tsplib_matrix(coords)
    spent = time.perf_counter() - t0
    sol = solve_tour(D, time_limit_s=max(0.0, time_limit_s - spent - 0.02), seed=seed)
    tour = [ids[i] for i in sol.order]
    length = int(round(tour_length(D, sol.order)))
    seconds = time.perf_counter() - t0
    return {
        "instance": name,
        "n": len(ids),
        "length": length,
        "tour": tour,
        "seconds": round(seconds, 3),
        "method": sol.method,
    }
