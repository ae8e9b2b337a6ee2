"""Route minimisation for the VRPTW: an ejection-pool heuristic (after Nagata & Bräysy, 2009, simplified).

Works on the integer model of :mod:`core.optimizer.vrptw` (``transit[i][j]`` = service time of ``i`` plus the
travel time ``i -> j`` rounded up, windows scaled), so every route it produces is accepted by the OR-Tools
model and is feasible in double precision.

One elimination step: remove a route, put its customers into the ejection pool (EP) and, until the pool is
empty or the deadline passes, pop a customer ``v`` and

1. insert it at the cheapest feasible position of any route, if there is one; otherwise
2. increase its penalty counter ``p[v]`` and insert it at the position where ejecting at most ``kmax``
   other customers restores feasibility with the smallest sum of their counters; the ejected customers
   go back into the pool; then
3. perturb the solution with random feasible relocate / 2-opt* moves (diversification).

Pure Python (lists of ints), no external dependency.
"""

from __future__ import annotations

import math
import random
import time
from typing import Sequence


class RouteMinimizer:
    def __init__(
        self,
        transit: Sequence[Sequence[int]],
        cost: Sequence[Sequence[int]],
        ready: Sequence[int],
        due: Sequence[int],
        demand: Sequence[int],
        capacity: int,
        seed: int = 0,
        kmax: int = 3,
    ):
        self.T = [list(map(int, r)) for r in transit]
        self.C = [list(map(int, r)) for r in cost]
        self.e = [int(x) for x in ready]
        self.l = [int(x) for x in due]
        self.q = [int(x) for x in demand]
        self.Q = int(capacity)
        self.H = int(due[0])
        self.n = len(self.e)
        self.rng = random.Random(seed)
        self.kmax = kmax
        self.log = None

    # ----------------------------------------------------------------------------------------------
    # route bookkeeping
    # ----------------------------------------------------------------------------------------------

    def _schedule(self, route: list[int]):
        """(a, z, load): earliest service starts, latest service starts, load; None if infeasible."""
        T, e, l = self.T, self.e, self.l
        a = []
        t = e[0]
        prev = 0
        for c in route:
            t = max(t + T[prev][c], e[c])
            if t > l[c]:
                return None
            a.append(t)
            prev = c
        if t + T[prev][0] > self.H:
            return None
        z = [0] * len(route)
        nxt_z = self.H
        nxt = 0
        for i in range(len(route) - 1, -1, -1):
            c = route[i]
            zi = min(l[c], nxt_z - T[c][nxt])
            z[i] = zi
            nxt_z, nxt = zi, c
        load = sum(self.q[c] for c in route)
        if load > self.Q:
            return None
        return a, z, load

    def feasible(self, route: list[int]) -> bool:
        return self._schedule(route) is not None

    def _set(self, k: int, route: list[int]) -> None:
        sch = self._schedule(route)
        assert sch is not None
        self.routes[k] = route
        self.A[k], self.Z[k], self.load[k] = sch

    def _load_state(self, routes: list[list[int]]) -> None:
        self.routes = [list(r) for r in routes]
        self.A = [None] * len(routes)
        self.Z = [None] * len(routes)
        self.load = [0] * len(routes)
        for k, r in enumerate(self.routes):
            self._set(k, r)

    # ----------------------------------------------------------------------------------------------
    # insertion
    # ----------------------------------------------------------------------------------------------

    def _best_insertion(self, v: int):
        T, C, e, l, q, Q, H = self.T, self.C, self.e, self.l, self.q, self.Q, self.H
        best = None
        best_cost = None
        ev, lv, qv = e[v], l[v], q[v]
        Tv = T[v]
        Cv = C[v]
        for k, route in enumerate(self.routes):
            if self.load[k] + qv > Q:
                continue
            a, z = self.A[k], self.Z[k]
            m = len(route)
            prev = 0
            t_prev = e[0]
            for p in range(m + 1):
                tv = t_prev + T[prev][v]
                if tv < ev:
                    tv = ev
                if tv > lv:
                    break  # later positions only arrive later
                if p < m:
                    nxt = route[p]
                    tn = tv + Tv[nxt]
                    ok = (tn if tn > e[nxt] else e[nxt]) <= z[p]
                else:
                    nxt = 0
                    ok = tv + Tv[0] <= H
                if ok:
                    dc = C[prev][v] + Cv[nxt] - C[prev][nxt]
                    if best_cost is None or dc < best_cost:
                        best_cost = dc
                        best = (k, p)
                if p < m:
                    prev = nxt
                    t_prev = a[p]
        return best

    # ----------------------------------------------------------------------------------------------
    # ejection
    # ----------------------------------------------------------------------------------------------

    def _best_ejection(self, v: int, pen: list[int]):
        T, e, l, q, Q, H = self.T, self.e, self.l, self.q, self.Q, self.H
        kmax = self.kmax
        best = [None, 1 << 60]  # (k, p, ejected), psum
        order = list(range(len(self.routes)))
        self.rng.shuffle(order)
        for k in order:
            route = self.routes[k]
            z = self.Z[k]
            m = len(route)
            over = self.load[k] + q[v] - Q  # load that must be ejected (if > 0)
            for p in range(m + 1):
                seq = route[:p] + [v] + route[p:]
                # z for original nodes after v: index i in seq (> p) -> z[i-1]
                L = len(seq)
                ej: list[int] = []

                def dfs(i, prev, t_prev, psum, removed):
                    if psum >= best[1]:
                        return
                    if i == L:
                        if t_prev + T[prev][0] <= H and removed >= over:
                            best[0] = (k, p, list(ej))
                            best[1] = psum
                        return
                    node = seq[i]
                    t = t_prev + T[prev][node]
                    if t < e[node]:
                        t = e[node]
                    if t <= l[node]:
                        if i > p and t <= z[i - 1] and removed >= over:
                            best[0] = (k, p, list(ej))
                            best[1] = psum
                            return  # any further ejection costs more
                        dfs(i + 1, node, t, psum, removed)
                    elif i == p:
                        return  # v itself cannot be served in time
                    if node != v and len(ej) < kmax:
                        ej.append(node)
                        dfs(i + 1, prev, t_prev, psum + pen[node], removed + q[node])
                        ej.pop()

                dfs(0, 0, e[0], 0, 0)
        return best[0]

    # ----------------------------------------------------------------------------------------------
    # perturbation
    # ----------------------------------------------------------------------------------------------

    def _perturb(self, moves: int) -> None:
        rng = self.rng
        R = len(self.routes)
        if R < 2:
            return
        T, e, Q, H = self.T, self.e, self.Q, self.H
        for _ in range(moves):
            k1 = rng.randrange(R)
            k2 = rng.randrange(R - 1)
            if k2 >= k1:
                k2 += 1
            r1, r2 = self.routes[k1], self.routes[k2]
            if rng.random() < 0.5:
                # 2-opt*: r1[:i] + r2[j:], r2[:j] + r1[i:]
                i = rng.randrange(len(r1) + 1)
                j = rng.randrange(len(r2) + 1)
                n1 = r1[:i] + r2[j:]
                n2 = r2[:j] + r1[i:]
                if not n1 or not n2:
                    continue
                if self.feasible(n1) and self.feasible(n2):
                    self._set(k1, n1)
                    self._set(k2, n2)
            else:
                # relocate one customer of r1 into r2 (random feasible position)
                if len(r1) <= 1:
                    continue
                i = rng.randrange(len(r1))
                c = r1[i]
                if self.load[k2] + self.q[c] > Q:
                    continue
                j = rng.randrange(len(r2) + 1)
                n2 = r2[:j] + [c] + r2[j:]
                if self.feasible(n2):
                    n1 = r1[:i] + r1[i + 1 :]
                    self._set(k1, n1)
                    self._set(k2, n2)

    # ----------------------------------------------------------------------------------------------
    # driver
    # ----------------------------------------------------------------------------------------------

    def eliminate_one(self, routes: list[list[int]], deadline: float, drop: int | None = None) -> list[list[int]] | None:
        """Try to serve all customers of ``routes`` with one route fewer. Returns the new routes or None."""
        if len(routes) <= 1:
            return None
        if drop is None:
            drop = self.rng.randrange(len(routes))
        pool = list(routes[drop])
        self._load_state([r for i, r in enumerate(routes) if i != drop])
        pen = [1] * self.n
        rng = self.rng
        it = 0
        while pool:
            it += 1
            if (it & 7) == 0 and time.monotonic() > deadline:
                return None
            v = pool.pop()
            ins = self._best_insertion(v)
            if ins is not None:
                k, p = ins
                r = self.routes[k]
                self._set(k, r[:p] + [v] + r[p:])
                continue
            pen[v] += 1
            ej = self._best_ejection(v, pen)
            if ej is None:
                # cannot even place it with kmax ejections: put it back and shake harder
                pool.insert(0, v)
                self._perturb(200)
                if time.monotonic() > deadline:
                    return None
                continue
            k, p, ejected = ej
            r = self.routes[k]
            seq = r[:p] + [v] + r[p:]
            gone = set(ejected)
            self._set(k, [c for c in seq if c not in gone])
            pool.extend(ejected)
            rng.shuffle(pool) if len(pool) > 1 and rng.random() < 0.1 else None
            self._perturb(60)
        return [list(r) for r in self.routes]

    def minimize(
        self, routes: list[list[int]], deadline: float, lower_bound: int = 1, stall_s: float | None = None
    ) -> list[list[int]]:
        """Eliminate routes until the deadline; returns the best (fewest routes) complete solution.

        ``stall_s``: give up once one elimination has run that long without success."""
        best = [list(r) for r in routes if r]
        while len(best) > lower_bound and time.monotonic() < deadline:
            dl = deadline if stall_s is None else min(deadline, time.monotonic() + stall_s)
            # smallest routes are the easiest to dissolve; pick randomly among the three smallest
            order = sorted(range(len(best)), key=lambda i: (len(best[i]), self.rng.random()))
            drop = order[self.rng.randrange(min(3, len(order)))]
            new = self.eliminate_one(best, dl, drop)
            if new is None:
                break
            best = [r for r in new if r]
            if self.log:
                self.log(f"  rm -> {len(best)} at {time.monotonic():.1f}")
        return best


# --------------------------------------------------------------------------------------------------
# Distance phase: ruin & recreate (SISR-style string removals, greedy insertion with blinks, annealing)
# --------------------------------------------------------------------------------------------------


class StringLns:
    """Slack-induction-by-string-removals LNS (after Christiaens & Vanden Berghe, 2020), fleet capped.

    Costs are the integer ones of the model (distance x SCALE). Solutions that leave customers unserved
    are allowed during the search (large penalty) but only complete ones are returned.
    """

    def __init__(self, rm: RouteMinimizer, seed: int = 0, cbar: float = 10.0, lmax: float = 10.0, blink: float = 0.01):
        self.rm = rm
        self.rng = random.Random(seed)
        self.cbar, self.lmax, self.blink = cbar, lmax, blink
        C = rm.C
        n = rm.n
        self.neigh = [sorted(range(1, n), key=lambda j, i=i: C[i][j]) for i in range(n)]
        self.far = sorted(range(1, n), key=lambda j: -C[0][j])

    def _info(self, route: list[int]):
        T, e, l, C, H, Q = self.rm.T, self.rm.e, self.rm.l, self.rm.C, self.rm.H, self.rm.Q
        a = []
        t = e[0]
        prev = 0
        cost = 0
        for c in route:
            t = t + T[prev][c]
            if t < e[c]:
                t = e[c]
            a.append(t)
            cost += C[prev][c]
            prev = c
        cost += C[prev][0]
        z = [0] * len(route)
        nz = H
        nxt = 0
        for i in range(len(route) - 1, -1, -1):
            c = route[i]
            zi = nz - T[c][nxt]
            if l[c] < zi:
                zi = l[c]
            z[i] = zi
            nz, nxt = zi, c
        return (a, z, sum(self.rm.q[c] for c in route), cost)

    def run(self, routes: list[list[int]], deadline: float, max_routes: int, t0: float = 5000.0, tf: float = 50.0):
        rm = self.rm
        rng = self.rng
        T, C, e, l, q, Q, H = rm.T, rm.C, rm.e, rm.l, rm.q, rm.Q, rm.H
        n_cust = rm.n - 1
        big = 10 * max(max(r) for r in C) * (rm.n + 1)
        cur = [list(r) for r in routes] + [[] for _ in range(max(0, max_routes - len(routes)))]
        cur_info = [self._info(r) for r in cur]
        cur_cost = sum(i[3] for i in cur_info)
        best, best_cost = [list(r) for r in cur if r], cur_cost
        start = time.monotonic()
        span = max(1e-3, deadline - start)
        blink = self.blink
        it = 0
        temp = t0
        while True:
            it += 1
            if (it & 15) == 0:
                now = time.monotonic()
                if now >= deadline:
                    break
                temp = t0 * (tf / t0) ** ((now - start) / span)
            routes_ = list(cur)
            infos = list(cur_info)
            # ---- ruin
            where = {}
            for k, r in enumerate(routes_):
                for i, c in enumerate(r):
                    where[c] = k
            nonempty = sum(1 for r in routes_ if r)
            avg = n_cust / max(1, nonempty)
            ls_max = min(self.lmax, avg)
            ks_max = 4.0 * self.cbar / (1.0 + ls_max) - 1.0
            ks = int(rng.uniform(1.0, ks_max + 1.0))
            seed_c = rng.randrange(1, rm.n)
            removed: list[int] = []
            ruined: set[int] = set()
            for c in [seed_c] + self.neigh[seed_c]:
                if len(ruined) >= ks:
                    break
                k = where.get(c)
                if k is None or k in ruined:
                    continue
                r = routes_[k]
                pos = r.index(c)
                lr = min(len(r), ls_max)
                ln = int(rng.uniform(1.0, lr + 1.0))
                ln = max(1, min(ln, len(r)))
                lo = pos - rng.randrange(ln)
                lo = max(0, min(lo, len(r) - ln))
                removed.extend(r[lo : lo + ln])
                routes_[k] = r[:lo] + r[lo + ln :]
                infos[k] = self._info(routes_[k])
                ruined.add(k)
            # ---- recreate
            mode = rng.random()
            if mode < 4 / 11:
                rng.shuffle(removed)
            elif mode < 8 / 11:
                removed.sort(key=lambda c: -q[c])
            elif mode < 10 / 11:
                removed.sort(key=lambda c: -C[0][c])
            else:
                removed.sort(key=lambda c: C[0][c])
            unassigned = 0
            for v in removed:
                ev, lv, qv = e[v], l[v], q[v]
                Tv, Cv = T[v], C[v]
                bk = -1
                bp = 0
                bc = None
                empty_tried = False
                for k, r in enumerate(routes_):
                    a, z, load, _ = infos[k]
                    if load + qv > Q:
                        continue
                    m = len(r)
                    if m == 0:
                        if empty_tried:
                            continue
                        empty_tried = True
                    prev = 0
                    t_prev = e[0]
                    for p in range(m + 1):
                        tv = t_prev + T[prev][v]
                        if tv < ev:
                            tv = ev
                        if tv > lv:
                            break
                        if p < m:
                            nxt = r[p]
                            tn = tv + Tv[nxt]
                            ok = (tn if tn > e[nxt] else e[nxt]) <= z[p]
                        else:
                            nxt = 0
                            ok = tv + Tv[0] <= H
                        if ok:
                            dc = C[prev][v] + Cv[nxt] - C[prev][nxt]
                            if (bc is None or dc < bc) and rng.random() >= blink:
                                bc, bk, bp = dc, k, p
                        if p < m:
                            prev = nxt
                            t_prev = a[p]
                if bk < 0:
                    unassigned += 1
                    continue
                r = routes_[bk]
                routes_[bk] = r[:bp] + [v] + r[bp:]
                infos[bk] = self._info(routes_[bk])
            cost = sum(i[3] for i in infos) + big * unassigned
            if cost < cur_cost + (-temp * math.log(max(1e-300, rng.random()))):
                cur, cur_info, cur_cost = routes_, infos, cost
                if unassigned == 0 and cost < best_cost:
                    best, best_cost = [list(r) for r in cur if r], cost
        self.iterations = it
        return best
