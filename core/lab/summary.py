"""What a results table says (``python -m core lab summary``; docs/ARCHITECTURE.md, "Strategy lab").

* Per pair of strategies (a, b), per region × provider × mode: the distribution over requests of the time ``a``
  saves against ``b`` (``b.duration - a.duration``) and the distance it adds (``a.distance - b.distance``): n,
  median, p10-p90 and a seeded bootstrap interval of the median; never a lone mean.
* Per optimiser, objective and problem-size bucket: n, mean / median / p90 / worst gap to the best known, how
  often it reached the best known, and its time (mean, median, worst).
* Flags (codes, not silence): ``STRATEGIES_CANNOT_DIFFER`` where every figure is the offline straight-line
  estimate (duration is then a fixed function of distance, so every strategy picks the same order),
  ``PARTLY_ESTIMATED`` where some are, ``ERRORS`` with their codes.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel

from core.errors import InputError
from core.models.lab import LabSummary, OptimiserSummary, PairSummary, Spread, SummaryFlag

OFFLINE_SOURCE = "offline_estimate"
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95


def spread(values: Any, *, seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES) -> Spread:
    """n, median, p10, p90 (linear interpolation) and the percentile-bootstrap interval of the median."""
    x = np.asarray(pd.Series(values, dtype="float64").dropna(), dtype=np.float64)
    n = len(x)
    if n == 0:
        return Spread(n=0)
    rng = np.random.default_rng(seed)
    medians = np.median(x[rng.integers(0, n, size=(resamples, n))], axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    lo, hi = np.percentile(medians, [tail, 100 - tail])
    p10, p50, p90 = np.percentile(x, [10, 50, 90])
    return Spread(
        n=n,
        median=float(p50),
        p10=float(p10),
        p90=float(p90),
        median_ci_low=float(lo),
        median_ci_high=float(hi),
        mean=float(x.mean()),
    )


def _bucket_key(bucket: str) -> int:
    head = str(bucket).split("-")[0]
    return int(head) if head.isdigit() else -1


def _estimate_flags(group: pd.DataFrame) -> list[str]:
    sources = group["metric_source"].dropna()
    if len(sources) and (sources == OFFLINE_SOURCE).all():
        return ["STRATEGIES_CANNOT_DIFFER"]
    if ((sources == OFFLINE_SOURCE) | (group["estimated_pairs"].fillna(0) > 0)).any():
        return ["PARTLY_ESTIMATED"]
    return []


def pair_summaries(
    frame: pd.DataFrame, *, pairs: list[tuple[str, str]], optimiser: str, seed: int
) -> list[PairSummary]:
    ok = frame[(frame["status"] == "ok") & (frame["optimiser"] == optimiser) & frame["strategy"].notna()]
    out = []
    for (region, provider, mode), group in ok.groupby(["region", "provider", "mode"], sort=True):
        wide = group.pivot_table(
            index="request_id",
            columns="strategy",
            values=["distance_m", "duration_s"],
            aggfunc="first",
        )
        orders = group.pivot_table(index="request_id", columns="strategy", values="stop_order", aggfunc="first")
        for a, b in pairs:
            if ("duration_s", a) not in wide.columns or ("duration_s", b) not in wide.columns:
                continue
            both = wide[[("duration_s", a), ("duration_s", b), ("distance_m", a), ("distance_m", b)]].dropna()
            saved = both[("duration_s", b)] - both[("duration_s", a)]
            added = both[("distance_m", a)] - both[("distance_m", b)]
            differ = int((orders.loc[both.index, a] != orders.loc[both.index, b]).sum())
            out.append(
                PairSummary(
                    region=str(region),
                    provider=str(provider),
                    mode=str(mode),
                    optimiser=optimiser,
                    a=a,
                    b=b,
                    n=len(both),
                    n_differ=differ,
                    time_saved_s=spread(saved, seed=seed),
                    distance_added_m=spread(added, seed=seed),
                    flags=_estimate_flags(group),
                )
            )
    return out


def _counts(values: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in values.dropna().value_counts().sort_index().items()}


def optimiser_summaries(frame: pd.DataFrame, *, seed: int) -> list[OptimiserSummary]:
    rows = frame[frame["objective"].isin(["distance_m", "duration_s"])]
    out = []
    keys = ["region", "provider", "mode", "optimiser", "objective", "size_bucket"]
    for key, group in rows.groupby(keys, sort=True):
        region, provider, mode, optimiser, objective, bucket = (str(k) for k in key)
        gaps = group["gap"].dropna()
        times = group.loc[group["status"] != "not_applicable", "opt_time_s"].dropna()
        out.append(
            OptimiserSummary(
                region=region,
                provider=provider,
                mode=mode,
                optimiser=optimiser,
                objective=objective,
                size_bucket=bucket,
                n=len(gaps),
                n_errors=int((group["status"] == "error").sum()),
                n_at_best=int((gaps <= 1e-9).sum()),
                n_best_exact=int(group.loc[gaps.index, "best_known_exact"].fillna(False).astype(bool).sum()),
                gap=spread(gaps, seed=seed),
                worst_gap=float(gaps.max()) if len(gaps) else None,
                time_s=spread(times, seed=seed),
                worst_time_s=float(times.max()) if len(times) else None,
                stops=_counts(group["search_stop"]) if "search_stop" in group else {},
                n_reproducible=int(group["reproducible"].fillna(False).astype(bool).sum())
                if "reproducible" in group
                else 0,
            )
        )
    out.sort(key=lambda s: (s.region, s.provider, s.mode, s.objective, s.optimiser, _bucket_key(s.size_bucket)))
    return out


def summarize(
    frame: pd.DataFrame,
    *,
    a: str | None = None,
    b: str | None = None,
    optimiser: str | None = None,
    seed: int = 0,
) -> LabSummary:
    """The summary of a results table. ``a``/``b``: one pair of strategies (default: every pair present);
    ``optimiser``: whose routes the strategy pairs compare (default: ``project`` when present)."""
    if (a is None) != (b is None):
        raise InputError("give both --a and --b, or neither", field="a" if a is None else "b")
    strategies = [s for s in dict.fromkeys(frame["strategy"].dropna()) if isinstance(s, str)]
    if a is not None and b is not None:
        for name, value in (("a", a), ("b", b)):
            if value not in strategies:
                raise InputError(
                    f"strategy '{value}' is not in the results (they hold {', '.join(strategies) or 'none'})",
                    field=name,
                )
        pairs = [(a, b)]
    else:
        pairs = list(itertools.combinations(strategies, 2))
    optimisers = list(dict.fromkeys(frame["optimiser"].dropna()))
    chosen = optimiser or ("project" if "project" in optimisers else (optimisers[0] if optimisers else "project"))
    flags: list[SummaryFlag] = []
    for (region, provider, mode), group in frame.groupby(["region", "provider", "mode"], sort=True):
        routes = group[(group["status"] == "ok") & group["strategy"].notna()]  # trip rows have no strategies
        for code in _estimate_flags(routes):
            flags.append(
                SummaryFlag(
                    code=code,
                    region=str(region),
                    provider=str(provider),
                    mode=str(mode),
                    count=int(
                        ((routes["metric_source"] == OFFLINE_SOURCE) | (routes["estimated_pairs"].fillna(0) > 0)).sum()
                    ),
                )
            )
    errors = frame[frame["status"] == "error"]["error_code"].fillna("UNKNOWN").value_counts().sort_index()
    if len(errors):
        flags.append(SummaryFlag(code="ERRORS", count=int(errors.sum()), detail=", ".join(errors.index)))
    return LabSummary(
        rows=len(frame),
        requests=int(frame["request_id"].nunique()),
        pairs=pair_summaries(frame, pairs=pairs, optimiser=chosen, seed=seed),
        optimisers=optimiser_summaries(frame, seed=seed),
        flags=flags,
        errors={str(k): int(v) for k, v in errors.items()},
        bootstrap={"resamples": BOOTSTRAP_RESAMPLES, "confidence": CONFIDENCE, "seed": seed},
    )


def summary_frames(summary: LabSummary) -> dict[str, pd.DataFrame]:
    """The summary as flat tables (pairs, optimisers, flags) for CSV export and charts."""

    def flat(model: BaseModel) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in model.model_dump().items():
            if isinstance(value, dict):
                out.update({f"{key}.{k}": v for k, v in value.items()})
            elif isinstance(value, list):
                out[key] = "|".join(map(str, value))
            else:
                out[key] = value
        return out

    return {
        "pairs": pd.DataFrame([flat(p) for p in summary.pairs]),
        "optimisers": pd.DataFrame([flat(o) for o in summary.optimisers]),
        "flags": pd.DataFrame([f.model_dump() for f in summary.flags]),
    }
