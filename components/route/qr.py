"""The route page's QR code of an app link, the same picture as the core's (``core.route.links.qr_svg_data_uri``:
segno, error level M, 2-module border, black on white), made about ten times faster.

A new plan has new links, so its QR code is always a new one, and segno spends most of it (0.1 s quiet, 0.3–0.4 s
under load, for an AMap route link of version 10–15) choosing the mask: it applies and scores each of the eight
data masks module by module in Python (ISO/IEC 18004 §7.8.3). Here the eight masks are applied and scored at once
with numpy, by segno's own scoring rules (N1–N4, including how it counts the 1:1:3:1:1 pattern), and segno then
encodes the code with that mask given: the chosen mask, and so every module of the picture, is segno's own
(tests/ui/test_route_qr.py compares the two on links of every length the page makes).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import cast

import numpy as np
import segno
from segno import encoder

#: the core's QR settings (core/route/links.py)
ERROR = "m"
BORDER = 2
DARK, LIGHT = "#000", "#fff"
_N3 = bytes((1, 0, 1, 1, 1, 0, 1))

# segno.encoder is an internal module without annotations (segno's stubs cover its public API only): its three
# functions used here, typed as they are documented (a matrix is a tuple of bytearrays, one a row)
_Matrix = tuple[bytearray, ...]
_make_matrix = cast(Callable[[int, int], _Matrix], encoder.make_matrix)
_add_finder_patterns = cast(Callable[[_Matrix, int, int], None], encoder.add_finder_patterns)
_add_alignment_patterns = cast(Callable[[_Matrix, int, int], None], encoder.add_alignment_patterns)


@lru_cache(maxsize=8)
def _masks(size: int) -> np.ndarray:
    """The eight data mask patterns of a ``size``-module QR code, 1 where a module flips (ISO/IEC 18004 table 10)."""
    i, j = np.indices((size, size))
    masks = np.stack(
        [
            (i + j) % 2 == 0,
            i % 2 == 0,
            j % 3 == 0,
            (i + j) % 3 == 0,
            (i // 2 + j // 3) % 2 == 0,
            (i * j) % 2 + (i * j) % 3 == 0,
            ((i * j) % 2 + (i * j) % 3) % 2 == 0,
            ((i + j) % 2 + (i * j) % 3) % 2 == 0,
        ]
    ).astype(np.uint8)
    masks.flags.writeable = False  # cached: shared by every call
    return masks


@lru_cache(maxsize=8)
def _function_matrix(size: int) -> np.ndarray:
    """What segno's matrix holds before the data is placed: the finder, timing and alignment patterns and the
    reserved format and version areas (0 or 1); 2 on the modules that carry data (the only ones a mask flips)."""
    matrix = _make_matrix(size, size)
    _add_finder_patterns(matrix, size, size)
    _add_alignment_patterns(matrix, size, size)
    fixed = np.array([list(row) for row in matrix], dtype=np.uint8)
    fixed.flags.writeable = False  # cached: shared by every call
    return fixed


def _n3(line: bytes, size: int) -> int:
    """segno's count of the finder-like pattern in one row or column (``mask_scores``' ``n3_pattern_occurrences``)."""
    count = 0
    idx = line.find(_N3)
    while idx != -1:
        offset = idx + 7
        if (
            idx in (0, size - 7)
            or not any(line[max(idx - 4, 0) : min(idx, size)])
            or not any(line[max(offset, 0) : min(offset + 4, size)])
        ):
            count += 40
        else:
            offset = idx + 4
        idx = line.find(_N3, offset)
    return count


def _runs_score(lines: np.ndarray) -> int:
    """N1 over the rows of ``lines`` (… × modules): 3 + (n - 5) for each run of n ≥ 5 equal modules in a row."""
    size = lines.shape[-1]
    rows = lines.reshape(-1, size)
    # a run starts at every change and at each row's start; the rows laid end to end, each closed by its end
    change = np.ones((rows.shape[0], size + 1), dtype=bool)
    change[:, 1:size] = rows[:, 1:] != rows[:, :-1]
    runs = np.diff(np.flatnonzero(change.ravel()))  # between a row's end and the next row's start: 1, not counted
    return int((runs[runs >= 5] - 2).sum())


def mask_penalties(data: np.ndarray, fixed: np.ndarray) -> list[int]:
    """The penalty of each of the eight masks (segno's ``evaluate_mask``: N1 + N2 + N3 + N4) on a matrix whose data
    modules (where ``fixed`` is 2) hold ``data`` unmasked."""
    size = data.shape[0]
    region = (fixed == 2).astype(np.uint8)
    candidates = data[None, :, :] ^ (_masks(size) & region[None, :, :])
    n1 = [_runs_score(m) + _runs_score(m.T) for m in candidates]
    left, up, diagonal = candidates[:, 1:, :-1], candidates[:, :-1, 1:], candidates[:, :-1, :-1]
    here = candidates[:, 1:, 1:]
    n2 = 3 * ((here == left) & (here == up) & (here == diagonal)).sum(axis=(1, 2))
    dark = candidates.sum(axis=(1, 2), dtype=np.int64)
    scores = []
    for k, m in enumerate(candidates):
        n3 = sum(_n3(row.tobytes(), size) for row in m) + sum(_n3(col.tobytes(), size) for col in m.T.copy())
        percent = float(int(dark[k])) / (size**2)
        n4 = 10 * int(abs(percent * 100 - 50) / 5)
        scores.append(n1[k] + int(n2[k]) + n3 + n4)
    return scores


def best_mask(data: np.ndarray, fixed: np.ndarray) -> int:
    """The mask segno's ``find_and_apply_best_mask`` picks: the lowest penalty, the first of equals."""
    scores = mask_penalties(data, fixed)
    return min(range(8), key=lambda k: (scores[k], k))


def unmasked(code: segno.QRCode) -> tuple[np.ndarray, np.ndarray]:
    """(data, fixed) of a QR code drawn with mask 0: its modules with the mask undone where it applied (format and
    version areas are not data), and what segno's matrix holds outside the data (see ``_function_matrix``)."""
    size = len(code.matrix)
    fixed = _function_matrix(size)
    final = np.array([list(row) for row in code.matrix], dtype=np.uint8)
    return np.where(fixed == 2, final ^ _masks(size)[0], fixed), fixed


@lru_cache(maxsize=128)
def qr_svg_data_uri(link: str, *, scale: int = 4) -> str:
    """``link`` as an SVG ``data:`` URI, as ``core.route.links.qr_svg_data_uri`` draws it (cached per link and size)."""
    probe = segno.make(link, error=ERROR, micro=False, mask=0)
    mask = best_mask(*unmasked(probe))
    code = probe if mask == 0 else segno.make(link, error=ERROR, micro=False, mask=mask)
    return code.svg_data_uri(scale=scale, border=BORDER, dark=DARK, light=LIGHT)
