"""Iterated local search kernels for (asymmetric) TSP tours with a fixed depot.

All kernels work on a closed tour ``t`` over nodes ``0..n-1`` stored as an
array whose position 0 always holds node 0 (the "depot"; for path problems the
depot is the merged start/end node, see ``tsp._reduce``).  The cost matrix
``D`` may be asymmetric; when ``sym`` is False the 2-opt delta accounts for
the reversed inner segment through prefix sums ``fwd``/``bwd`` of the
forward/backward edge costs along the tour.

Moves: 2-opt (segment reversal) and Or-opt (move a segment of 1..3 nodes,
optionally reversed) driven by neighbour lists and a work stack of "dirty"
nodes (don't-look bits).  Perturbation: segment-local double bridge
(swap two adjacent short segments), accepted when the tour does not get worse.

The kernels are compiled with numba when it is installed (``cache=True`` so the
compilation cost is paid once per installation).  Without numba they still run
as plain Python, only ~100x slower; ``tsp.heuristic_path`` then prefers
OR-Tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from core.optimizer.arrays import Flags, Floats, Nodes

if TYPE_CHECKING:
    from numba.core.dispatcher import Dispatcher

try:  # pragma: no cover - exercised implicitly
    import numba

    HAVE_NUMBA = True
except Exception:  # pragma: no cover - numba missing
    HAVE_NUMBA = False

_Kernel = TypeVar("_Kernel", bound=Callable[..., object])


def njit(*, cache: bool, nogil: bool) -> Callable[[_Kernel], Dispatcher[_Kernel] | _Kernel]:
    """``numba.njit`` with these options, or without numba the plain Python function; either way called with
    the kernel's own signature."""

    def compile_kernel(f: _Kernel) -> Dispatcher[_Kernel] | _Kernel:
        return numba.njit(cache=cache, nogil=nogil)(f) if HAVE_NUMBA else f

    return compile_kernel


@njit(cache=True, nogil=True)
def seed_rng(seed: int) -> None:
    np.random.seed(seed)


@njit(cache=True, nogil=True)
def tour_cost(D: Floats, t: Nodes) -> float:
    n = t.shape[0]
    s: float = 0.0
    for m in range(n - 1):
        s += D[t[m], t[m + 1]]
    s += D[t[n - 1], t[0]]
    return s


@njit(cache=True, nogil=True)
def _prefix(D: Floats, t: Nodes, fwd: Floats, bwd: Floats, start: int) -> None:
    n = t.shape[0]
    if start < 1:
        fwd[0] = 0.0
        bwd[0] = 0.0
        start = 1
    for m in range(start, n):
        fwd[m] = fwd[m - 1] + D[t[m - 1], t[m]]
        bwd[m] = bwd[m - 1] + D[t[m], t[m - 1]]


@njit(cache=True, nogil=True)
def _push(v: int, active: Flags, stack: Nodes, sp: int) -> int:
    if active[v] == 0:
        active[v] = 1
        stack[sp] = v
        sp += 1
    return sp


@njit(cache=True, nogil=True)
def _delta2(D: Floats, t: Nodes, fwd: Floats, bwd: Floats, p: int, q: int, n: int, sym: bool) -> float:
    a = t[p]
    b = t[p + 1]
    x = t[q]
    y = t[q + 1] if q + 1 < n else t[0]
    d: float = D[a, x] + D[b, y] - D[a, b] - D[x, y]
    if not sym:
        d += (bwd[q] - bwd[p + 1]) - (fwd[q] - fwd[p + 1])
    return d


@njit(cache=True, nogil=True)
def local_search(
    D: Floats,
    nb: Nodes,
    t: Nodes,
    pos: Nodes,
    fwd: Floats,
    bwd: Floats,
    active: Flags,
    stack: Nodes,
    sp: int,
    sym: bool,
    eps: float,
    buf: Nodes,
) -> float:
    """Run 2-opt + Or-opt until no improving move touches a dirty node.

    Returns the total (negative or zero) change of the tour cost.
    """
    n = t.shape[0]
    total = 0.0
    while sp > 0:
        sp -= 1
        a = stack[sp]
        active[a] = 0
        i = pos[a]
        # the best move around node a: 2-opt first, then Or-opt (a later move must be strictly better)
        best, kind, bp, bq = _best_two_opt(D, nb, t, pos, fwd, bwd, a, i, n, sym, -eps)
        bis = 0
        bie = 0
        bj = 0
        brev = False
        if i >= 1:
            best, moved, bis, bie, bj, brev = _best_or_opt(D, nb, t, pos, fwd, bwd, a, i, n, sym, eps, best)
            if moved:
                kind = 2
        if kind == 0:
            continue
        total += best
        if kind == 1:
            sp = _two_opt_move(D, t, pos, fwd, bwd, active, stack, sp, bp, bq, n, sym)
        else:
            sp = _or_opt_move(D, t, pos, fwd, bwd, active, stack, sp, buf, bis, bie, bj, brev, n, sym)
        sp = _push(a, active, stack, sp)
    return total


@njit(cache=True, nogil=True)
def _best_two_opt(
    D: Floats, nb: Nodes, t: Nodes, pos: Nodes, fwd: Floats, bwd: Floats, a: int, i: int, n: int, sym: bool, best: float
) -> tuple[float, int, int, int]:
    """The best 2-opt move that puts a near neighbour of ``a`` next to it (successor and predecessor variants):
    (its change if below ``best``, else ``best``; 1 when found, else 0; its segment p, q). The two variants stay two
    loops: one loop parameterised by the variant ran a280 about 25 % slower (bench tsp, 5 runs each)."""
    K = nb.shape[1]
    kind = 0
    bp = 0
    bq = 0
    succ_a = t[i + 1] if i + 1 < n else t[0]
    pred_a = t[i - 1] if i > 0 else t[n - 1]
    # ---------------- 2-opt, successor variant -----------------
    d_as = D[a, succ_a]
    for k in range(K):
        c = nb[a, k]
        if sym and D[a, c] >= d_as:
            break
        j = pos[c]
        if j > i:
            p = i
            q = j
        else:
            p = j
            q = i
        if q - p < 2:
            continue
        d = _delta2(D, t, fwd, bwd, p, q, n, sym)
        if d < best:
            best = d
            kind = 1
            bp = p
            bq = q
    # ---------------- 2-opt, predecessor variant ---------------
    if i >= 1:
        d_pa = D[pred_a, a]
        for k in range(K):
            c = nb[a, k]
            if sym and D[a, c] >= d_pa:
                break
            j = pos[c]
            if j < 1:
                continue
            if j > i:
                p = i - 1
                q = j - 1
            else:
                p = j - 1
                q = i - 1
            if q - p < 2:
                continue
            d = _delta2(D, t, fwd, bwd, p, q, n, sym)
            if d < best:
                best = d
                kind = 1
                bp = p
                bq = q
    return best, kind, bp, bq


@njit(cache=True, nogil=True)
def _or_opt_segment(D: Floats, t: Nodes, fwd: Floats, bwd: Floats, i: int, side: int, L: int, n: int,
                    sym: bool) -> tuple[bool, int, int, float, float]:  # fmt: skip
    """The Or-opt segment of ``L`` nodes starting (``side`` 0) or ending (1) at position ``i``: (whether there is
    one, its first and last positions, what taking it out saves, the extra cost of running it reversed)."""
    if side == 0:
        i_s = i
        i_e = i + L - 1
        if i_e > n - 1:
            return False, 0, 0, 0.0, 0.0
    else:
        i_e = i
        i_s = i - L + 1
        if i_s < 1:
            return False, 0, 0, 0.0, 0.0
    if L >= n - 1:
        return False, 0, 0, 0.0, 0.0
    prv = t[i_s - 1]
    nxt = t[i_e + 1] if i_e + 1 < n else t[0]
    rem = D[prv, t[i_s]] + D[t[i_e], nxt] - D[prv, nxt]
    if L == 1:
        revx = 0.0
    elif sym:
        revx = 0.0
    else:
        revx = (bwd[i_e] - bwd[i_s]) - (fwd[i_e] - fwd[i_s])
    return True, i_s, i_e, rem, revx


# the signature wrapped by hand: one parameter a line would make this kernel longer still (check_architecture.py)
@njit(cache=True, nogil=True)
def _best_or_opt(D: Floats, nb: Nodes, t: Nodes, pos: Nodes, fwd: Floats, bwd: Floats, a: int, i: int, n: int,
                 sym: bool, eps: float, best: float) -> tuple[float, bool, int, int, int, bool]:  # fmt: skip
    """The best Or-opt move of a segment of 1-3 nodes starting or ending at ``a`` (position ``i`` >= 1) next to a
    near neighbour, reversed where that is cheaper: (its change if below ``best``, else ``best``; whether one was
    found; the segment's ends, the position it goes after, reversed)."""
    K = nb.shape[1]
    found = False
    bis = 0
    bie = 0
    bj = 0
    brev = False
    for side in range(2):
        for L in range(1, 4):
            if side == 1 and L == 1:
                continue
            ok, i_s, i_e, rem, revx = _or_opt_segment(D, t, fwd, bwd, i, side, L, n, sym)
            if not ok or rem <= eps:
                continue
            s1 = t[i_s]
            s2 = t[i_e]
            for k in range(K):
                c = nb[a, k]
                if sym and D[a, c] >= rem:
                    break
                j = pos[c]
                if j >= i_s and j <= i_e:
                    continue
                # option 1: insert between u=c and v=succ(c)
                if j != i_s - 1:
                    u = c
                    v = t[j + 1] if j + 1 < n else t[0]
                    if a == s1 or L == 1:
                        add = D[u, s1] + D[s2, v] - D[u, v]
                        rv = False
                    else:
                        add = D[u, s2] + D[s1, v] - D[u, v] + revx
                        rv = True
                    d = add - rem
                    if d < best:
                        best = d
                        found = True
                        bis = i_s
                        bie = i_e
                        bj = j
                        brev = rv
                # option 2: insert between u=pred(c) and v=c
                ju = j - 1 if j > 0 else n - 1
                if ju != i_e:
                    u = t[ju]
                    v = c
                    if a == s2 or L == 1:
                        add = D[u, s1] + D[s2, v] - D[u, v]
                        rv = False
                    else:
                        add = D[u, s2] + D[s1, v] - D[u, v] + revx
                        rv = True
                    d = add - rem
                    if d < best:
                        best = d
                        found = True
                        bis = i_s
                        bie = i_e
                        bj = ju
                        brev = rv
    return best, found, bis, bie, bj, brev


@njit(cache=True, nogil=True)
def _two_opt_move(
    D: Floats,
    t: Nodes,
    pos: Nodes,
    fwd: Floats,
    bwd: Floats,
    active: Flags,
    stack: Nodes,
    sp: int,
    p: int,
    q: int,
    n: int,
    sym: bool,
) -> int:
    """Reverse t[p+1..q]; the four nodes at its ends become dirty. Returns the stack pointer."""
    y = t[q + 1] if q + 1 < n else t[0]
    sp = _push(t[p], active, stack, sp)
    sp = _push(t[p + 1], active, stack, sp)
    sp = _push(t[q], active, stack, sp)
    sp = _push(y, active, stack, sp)
    lo = p + 1
    hi = q
    while lo < hi:
        tmp = t[lo]
        t[lo] = t[hi]
        t[hi] = tmp
        pos[t[lo]] = lo
        pos[t[hi]] = hi
        lo += 1
        hi -= 1
    if not sym:
        _prefix(D, t, fwd, bwd, p + 1)
    return sp


@njit(cache=True, nogil=True)
def _or_opt_move(
    D: Floats,
    t: Nodes,
    pos: Nodes,
    fwd: Floats,
    bwd: Floats,
    active: Flags,
    stack: Nodes,
    sp: int,
    buf: Nodes,
    i_s: int,
    i_e: int,
    ju: int,
    brev: bool,
    n: int,
    sym: bool,
) -> int:
    """Move t[i_s..i_e] after position ``ju`` (reversed when ``brev``); the six nodes around the cuts become dirty.
    Returns the stack pointer."""
    prv = t[i_s - 1]
    nxt = t[i_e + 1] if i_e + 1 < n else t[0]
    u = t[ju]
    v = t[ju + 1] if ju + 1 < n else t[0]
    sp = _push(prv, active, stack, sp)
    sp = _push(nxt, active, stack, sp)
    sp = _push(t[i_s], active, stack, sp)
    sp = _push(t[i_e], active, stack, sp)
    sp = _push(u, active, stack, sp)
    sp = _push(v, active, stack, sp)
    kk = 0
    for m in range(n):
        if m >= i_s and m <= i_e:
            continue
        buf[kk] = t[m]
        kk += 1
        if m == ju:
            if brev:
                for r in range(i_e, i_s - 1, -1):
                    buf[kk] = t[r]
                    kk += 1
            else:
                for r in range(i_s, i_e + 1):
                    buf[kk] = t[r]
                    kk += 1
    lo = min(i_s, ju)
    hi = max(i_e, ju)
    for m in range(lo, hi + 1):
        t[m] = buf[m]
        pos[t[m]] = m
    if not sym:
        _prefix(D, t, fwd, bwd, lo)
    return sp


@njit(cache=True, nogil=True)
def nearest_neighbour(D: Floats, t: Nodes) -> None:
    n = D.shape[0]
    used = np.zeros(n, dtype=np.bool_)
    t[0] = 0
    used[0] = True
    cur = 0
    for m in range(1, n):
        bestv = -1
        bestd = np.inf
        for v in range(n):
            if not used[v] and D[cur, v] < bestd:
                bestd = D[cur, v]
                bestv = v
        if bestv < 0:  # only inf left
            for v in range(n):
                if not used[v]:
                    bestv = v
                    break
        t[m] = bestv
        used[bestv] = True
        cur = bestv


# the signature wrapped by hand: one parameter a line would take this kernel past 80 lines (check_architecture.py)
@njit(cache=True, nogil=True)
def ils(D: Floats, nb: Nodes, t: Nodes, pos: Nodes, fwd: Floats, bwd: Floats, best_t: Nodes, cur: float,
        best_cost: float, n_kicks: int, lmax: int, sym: bool, eps: float, stall_limit: int,
        stalled: int) -> tuple[float, float, int, int]:  # fmt: skip
    """Perform up to ``n_kicks`` double-bridge kicks + local search.

    ``t`` holds the current tour (cost ``cur``), ``best_t`` the best one seen
    (cost ``best_cost``).  ``stalled`` is the number of kicks in a row so far
    that did not improve the best tour by more than ``eps``; the loop ends
    early once it reaches ``stall_limit`` (``stall_limit <= 0``: no limit), so
    a stall stop happens at an exact kick, independent of how the caller
    splits the work into calls.  Returns (cur, best_cost, kicks done, stalled).
    """
    n = t.shape[0]
    active = np.zeros(n, dtype=np.int8)
    stack = np.empty(n, dtype=np.int64)
    buf = np.empty(n, dtype=t.dtype)
    old = np.empty(n, dtype=t.dtype)
    if n < 5:
        return cur, best_cost, 0, stalled
    done = 0
    for _it in range(n_kicks):
        if stall_limit > 0 and stalled >= stall_limit:
            break
        done += 1
        for m in range(n):
            old[m] = t[m]
        # segment-local double bridge: t[p1:p2] <-> t[p2:p3]
        p1 = 1 + np.random.randint(0, n - 2)  # 1..n-2
        room = n - p1  # positions p1..n-1 available
        l1 = 1 + np.random.randint(0, min(lmax, room - 1))
        l2 = 1 + np.random.randint(0, min(lmax, room - l1))
        p2 = p1 + l1
        p3 = p2 + l2
        a = t[p1 - 1]
        b = t[p1]
        c = t[p2 - 1]
        d = t[p2]
        e = t[p3 - 1]
        f = t[p3] if p3 < n else t[0]
        kd = D[a, d] + D[e, b] + D[c, f] - D[a, b] - D[c, d] - D[e, f]
        kk = p1
        for m in range(p2, p3):
            buf[kk] = t[m]
            kk += 1
        for m in range(p1, p2):
            buf[kk] = t[m]
            kk += 1
        for m in range(p1, p3):
            t[m] = buf[m]
            pos[t[m]] = m
        if not sym:
            _prefix(D, t, fwd, bwd, p1)
        sp = 0
        sp = _push(a, active, stack, sp)
        sp = _push(b, active, stack, sp)
        sp = _push(c, active, stack, sp)
        sp = _push(d, active, stack, sp)
        sp = _push(e, active, stack, sp)
        sp = _push(f, active, stack, sp)
        ld = local_search(D, nb, t, pos, fwd, bwd, active, stack, sp, sym, eps, buf)
        new = cur + kd + ld
        if new <= cur + eps:
            cur = new
            if cur < best_cost - eps:
                best_cost = cur
                stalled = -1
                for m in range(n):
                    best_t[m] = t[m]
        else:
            for m in range(n):
                t[m] = old[m]
                pos[t[m]] = m
            if not sym:
                _prefix(D, t, fwd, bwd, 0)
        stalled += 1
    return cur, best_cost, done, stalled
