"""Numba primitives of the VRPTW search: route evaluation (forward earliest starts, backward latest starts),
O(1) insertion feasibility, string removal (ruin), greedy blink insertion (recreate) and work arrays.

Works on the integer model of :mod:`bench.vrptw_solver` (see :mod:`bench.vrptw_sisr` for the
searches built from these kernels).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def seed_rng(s):
    np.random.seed(s)


@njit(cache=True)
def route_eval(T, C, e, l, q, H, rt, rlen, k, A, Z, load, rcost):
    """Recompute A, Z, load and cost of route ``k``; returns feasibility (time windows + horizon)."""
    m = rlen[k]
    t = e[0]
    prev = 0
    cs = 0
    ld = 0
    ok = True
    for i in range(m):
        c = rt[k, i]
        t = t + T[prev, c]
        if t < e[c]:
            t = e[c]
        if t > l[c]:
            ok = False
        A[k, i] = t
        cs += C[prev, c]
        ld += q[c]
        prev = c
    cs += C[prev, 0]
    if m > 0 and t + T[prev, 0] > H:
        ok = False
    nz = H
    nxt = 0
    for i in range(m - 1, -1, -1):
        c = rt[k, i]
        zi = nz - T[c, nxt]
        if l[c] < zi:
            zi = l[c]
        Z[k, i] = zi
        nz = zi
        nxt = c
    load[k] = ld
    rcost[k] = cs
    return ok


@njit(cache=True)
def routes_feasible_int(T, C, e, l, q, Q, H, rt, rlen):
    """All routes feasible in the integer model (windows, horizon, capacity)."""
    R = rt.shape[0]
    A = np.zeros(rt.shape, np.int64)
    Z = np.zeros(rt.shape, np.int64)
    load = np.zeros(R, np.int64)
    rcost = np.zeros(R, np.int64)
    for k in range(R):
        if not route_eval(T, C, e, l, q, H, rt, rlen, k, A, Z, load, rcost):
            return False
        if load[k] > Q:
            return False
    return True


@njit(cache=True)
def _best_insert(T, C, e, l, q, Q, H, rt, rlen, A, Z, load, v, blink):
    """Cheapest feasible insertion of ``v`` (with blinks). Returns (route, pos, delta) or (-1, 0, 0)."""
    R = rt.shape[0]
    bk = -1
    bp = 0
    bc = 0
    empty_done = False
    ev = e[v]
    lv = l[v]
    qv = q[v]
    for k in range(R):
        m = rlen[k]
        if m == 0:
            if empty_done:
                continue
            empty_done = True
        if load[k] + qv > Q:
            continue
        prev = 0
        tp = e[0]
        for p in range(m + 1):
            tv = tp + T[prev, v]
            if tv < ev:
                tv = ev
            if tv > lv:
                break
            if p < m:
                nxt = rt[k, p]
                tn = tv + T[v, nxt]
                if tn < e[nxt]:
                    tn = e[nxt]
                ok = tn <= Z[k, p]
            else:
                nxt = 0
                ok = tv + T[v, 0] <= H
            if ok:
                dc = C[prev, v] + C[v, nxt] - C[prev, nxt]
                if (bk < 0 or dc < bc) and np.random.random() >= blink:
                    bk = k
                    bp = p
                    bc = dc
            if p < m:
                prev = nxt
                tp = A[k, p]
    return bk, bp, bc


@njit(cache=True)
def _copy_route(
    src_rt, src_len, src_A, src_Z, src_load, src_cost, dst_rt, dst_len, dst_A, dst_Z, dst_load, dst_cost, k
):
    m = src_len[k]
    for i in range(m):
        dst_rt[k, i] = src_rt[k, i]
        dst_A[k, i] = src_A[k, i]
        dst_Z[k, i] = src_Z[k, i]
    dst_len[k] = m
    dst_load[k] = src_load[k]
    dst_cost[k] = src_cost[k]


@njit(cache=True)
def _ruin(
    T,
    C,
    e,
    l,
    q,
    H,
    neigh,
    wrt,
    wlen,
    wA,
    wZ,
    wload,
    wcost,
    touched,
    ruined,
    rof,
    pof,
    removed,
    nrem,
    is_rem,
    cbar,
    lmax,
    beta,
):
    """SISR ruin: string / split-string removals around a random seed customer. Appends the removed
    customers to ``removed[nrem:]`` and returns the new count; marks ruined routes in ``touched``."""
    R = wrt.shape[0]
    n = T.shape[0]
    n_cust = n - 1
    nonempty = 0
    for c in range(n):
        rof[c] = -1
    for k in range(R):
        touched[k] = False
        ruined[k] = False
        if wlen[k] > 0:
            nonempty += 1
        for i in range(wlen[k]):
            rof[wrt[k, i]] = k
            pof[wrt[k, i]] = i
    avg = n_cust / max(1, nonempty)
    ls_max = lmax if lmax < avg else avg
    ks_max = 4.0 * cbar / (1.0 + ls_max) - 1.0
    ks = int(1.0 + np.random.random() * ks_max)
    seed_c = 1 + np.random.randint(n_cust)
    nr = 0
    for j in range(-1, n_cust):
        if nr >= ks:
            break
        c = seed_c if j < 0 else neigh[seed_c, j]
        if is_rem[c]:
            continue
        k = rof[c]
        if k < 0 or ruined[k]:
            continue
        m = wlen[k]
        lr = ls_max if ls_max < m else m
        ln = int(1.0 + np.random.random() * lr)
        if ln > m:
            ln = m
        if ln < 1:
            ln = 1
        pos = pof[c]
        if np.random.random() < 0.5 or ln >= m:
            # plain string of length ln containing c
            lo = pos - np.random.randint(ln)
            if lo < 0:
                lo = 0
            if lo > m - ln:
                lo = m - ln
            hi = lo + ln
            keep_lo = -1
            keep_hi = -1
        else:
            # split string: ln + mm consecutive, mm of them (a sub-string) preserved
            mm = 1
            while ln + mm < m and np.random.random() > beta:
                mm += 1
            tot = ln + mm
            lo = pos - np.random.randint(tot)
            if lo < 0:
                lo = 0
            if lo > m - tot:
                lo = m - tot
            hi = lo + tot
            keep_lo = lo + np.random.randint(ln + 1)
            keep_hi = keep_lo + mm
        w = 0
        for i in range(m):
            cc = wrt[k, i]
            if i >= lo and i < hi and not (i >= keep_lo and i < keep_hi):
                removed[nrem] = cc
                nrem += 1
                is_rem[cc] = True
            else:
                wrt[k, w] = cc
                w += 1
        wlen[k] = w
        route_eval(T, C, e, l, q, H, wrt, wlen, k, wA, wZ, wload, wcost)
        ruined[k] = True
        touched[k] = True
        nr += 1
    return nrem


@njit(cache=True)
def _recreate(
    T, C, e, l, q, Q, H, wrt, wlen, wA, wZ, wload, wcost, touched, removed, nrem, keys, is_rem, blink, unassigned_out
):
    """Greedy insertion with blinks; order: random 4 / demand 4 / far 2 / close 1. Customers that fit
    nowhere go to ``unassigned_out``; returns their number."""
    u = np.random.random() * 11.0
    for i in range(nrem):
        c = removed[i]
        if u < 4.0:
            keys[i] = np.random.random()
        elif u < 8.0:
            keys[i] = -q[c] + 1e-3 * np.random.random()
        elif u < 10.0:
            keys[i] = -C[0, c] + 1e-3 * np.random.random()
        else:
            keys[i] = C[0, c] + 1e-3 * np.random.random()
    order = np.argsort(keys[:nrem])
    unassigned = 0
    for oi in range(nrem):
        v = removed[order[oi]]
        is_rem[v] = False
        bk, bp, bc = _best_insert(T, C, e, l, q, Q, H, wrt, wlen, wA, wZ, wload, v, blink)
        if bk < 0:
            unassigned_out[unassigned] = v
            unassigned += 1
            continue
        m = wlen[bk]
        for i in range(m, bp, -1):
            wrt[bk, i] = wrt[bk, i - 1]
        wrt[bk, bp] = v
        wlen[bk] = m + 1
        route_eval(T, C, e, l, q, H, wrt, wlen, bk, wA, wZ, wload, wcost)
        touched[bk] = True
    return unassigned


@njit(cache=True)
def _route_state(T, C, e, l, q, H, rt, rlen):
    """Evaluated route arrays (forward times A, slacks Z, loads, costs) and working copies of all of them."""
    R = rt.shape[0]
    W = rt.shape[1]
    A = np.zeros((R, W), np.int64)
    Z = np.zeros((R, W), np.int64)
    load = np.zeros(R, np.int64)
    rcost = np.zeros(R, np.int64)
    for k in range(R):
        route_eval(T, C, e, l, q, H, rt, rlen, k, A, Z, load, rcost)
    return A, Z, load, rcost, rt.copy(), rlen.copy(), A.copy(), Z.copy(), load.copy(), rcost.copy()


@njit(cache=True)
def _scratch(n, R):
    """Work arrays of one ruin & recreate kernel call: route/position of each customer, the removed customers,
    their insertion keys, touched/ruined route flags, removal marks and the customers left unassigned."""
    return (
        np.full(n, -1, np.int64),
        np.zeros(n, np.int64),
        np.zeros(n, np.int64),
        np.zeros(n, np.float64),
        np.zeros(R, np.bool_),
        np.zeros(R, np.bool_),
        np.zeros(n, np.bool_),
        np.zeros(n, np.int64),
    )
