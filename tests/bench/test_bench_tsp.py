"""Tests for bench.tsp: TSPLIB parsing, nint lengths and the tsp benchmark function."""

from __future__ import annotations

import numpy as np
import pytest

from bench.instances import read_tsplib, tsplib_matrix
from bench.tsp import bench_tsp, tour_length

# square of side 2.5: each side nint(2.5) = 3 (round half up; banker's rounding
# would give 2), each diagonal nint(3.5355) = 4.  Optimal tour = perimeter = 12.
SQUARE_SPACED = """NAME : square4
COMMENT : hand-checkable square
TYPE : TSP
DIMENSION : 4
EDGE_WEIGHT_TYPE : EUC_2D
NODE_COORD_SECTION
1 0 0
2 2.5 2.5
3 2.5 0
4 0 2.5
EOF
"""

SQUARE_TIGHT = """NAME: square4b
TYPE: TSP
DIMENSION: 4
EDGE_WEIGHT_TYPE: EUC_2D
NODE_COORD_SECTION
  1 0.0e+00 0.0
  2 2.5e+00 2.5
  3 2.50 0.00
  4 0 2.5
EOF
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("text,name", [(SQUARE_SPACED, "square4"), (SQUARE_TIGHT, "square4b")])
def test_read_tsplib_header_styles(tmp_path, text, name):
    got_name, coords, ids = read_tsplib(write(tmp_path, "sq.tsp", text))
    assert got_name == name
    assert ids == [1, 2, 3, 4]
    assert coords.shape == (4, 2)
    np.testing.assert_allclose(coords, [[0, 0], [2.5, 2.5], [2.5, 0], [0, 2.5]])


def test_nint_lengths_hand_checked(tmp_path):
    _, coords, _ = read_tsplib(write(tmp_path, "sq.tsp", SQUARE_SPACED))
    D = tsplib_matrix(coords)
    assert D[0, 2] == 3 and D[0, 3] == 3 and D[0, 1] == 4 and D[2, 3] == 4
    assert tour_length(D, [0, 2, 1, 3]) == 12  # perimeter
    assert tour_length(D, [0, 1, 2, 3]) == 14  # crossing tour


def test_bench_tsp_square(tmp_path):
    r = bench_tsp(write(tmp_path, "sq.tsp", SQUARE_SPACED), time_limit_s=0.2)
    assert set(r) == {"instance", "n", "length", "tour", "seconds", "method"}
    assert r["instance"] == "square4" and r["n"] == 4
    assert sorted(r["tour"]) == [1, 2, 3, 4]
    assert r["length"] == 12
    assert isinstance(r["seconds"], float) and r["method"]


def test_bench_tsp_random_instance(tmp_path):
    rng = np.random.default_rng(7)
    n = 60
    P = np.round(rng.random((n, 2)) * 1000, 3)
    ids = list(range(1, n + 1))
    lines = ["NAME : rnd60", "TYPE : TSP", f"DIMENSION: {n}", "EDGE_WEIGHT_TYPE : EUC_2D", "NODE_COORD_SECTION"]
    lines += [f"{i} {x} {y}" for i, (x, y) in zip(ids, P)]
    lines += ["EOF", ""]
    r = bench_tsp(write(tmp_path, "rnd.tsp", "\n".join(lines)), time_limit_s=0.2)
    assert r["instance"] == "rnd60" and r["n"] == n
    assert sorted(r["tour"]) == ids
    # the reported length is the nint length of the reported tour
    D = np.floor(np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1)) + 0.5)
    idx = [i - 1 for i in r["tour"]]
    assert r["length"] == int(D[idx, np.roll(idx, -1)].sum())
    # far better than the order of the file
    assert r["length"] < 0.5 * D[np.arange(n), np.roll(np.arange(n), -1)].sum()


def test_unsupported_edge_weight_type(tmp_path):
    text = SQUARE_SPACED.replace("EUC_2D", "GEO")
    with pytest.raises(ValueError, match="GEO"):
        read_tsplib(write(tmp_path, "geo.tsp", text))


def test_missing_eof_and_dimension_mismatch(tmp_path):
    no_eof = SQUARE_TIGHT.replace("EOF\n", "")
    assert read_tsplib(write(tmp_path, "a.tsp", no_eof))[2] == [1, 2, 3, 4]
    bad = SQUARE_TIGHT.replace("DIMENSION: 4", "DIMENSION: 5")
    with pytest.raises(ValueError, match="DIMENSION"):
        read_tsplib(write(tmp_path, "b.tsp", bad))
