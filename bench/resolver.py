"""The resolver on the evaluation set of place names (``python -m core bench resolver``; docs/BENCHMARKS.md).

``tests/data/place_names.jsonl`` holds ways people name the bundled packs' places, written from the place
data and how people write (issue 12). Each line is resolved by the route planner's own resolution path
(``core.route.resolver.resolve_point`` on the offline provider, as a stop of a request in the pack's city)
and graded:

* ``correct``: the expected place (or another feature of the same spot, ``same_place``); for an ambiguous
  line, an ambiguity whose candidates include every expected one (and lie in ``candidates_district`` when the
  line names a district alone); for a place the pack lacks (``expect``
  null), no resolution or an ambiguity (the user chooses);
* ``asked``: the expected place is among the candidates of an ambiguity the line did not expect;
* ``wrong_warned``: another place, resolved with a warning beside it;
* ``wrong_silent``: another place, resolved with no warning (the one outcome that must never happen);
* ``missed``: nothing resolved although the pack has the place, or an ambiguity lacking an expected candidate.

Top-1 accuracy is ``correct / lines``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from core.config import PROJECT_ROOT, Settings, get_settings
from core.errors import ResolutionError
from core.geo.offline import OfflineProvider
from core.models.route import RawStop
from core.packs.loader import load_region
from core.route.resolver import resolve_point

EVAL_SET = PROJECT_ROOT / "tests" / "data" / "place_names.jsonl"
OUTCOMES = ("correct", "asked", "wrong_warned", "wrong_silent", "missed")


def read_lines(path: Path = EVAL_SET) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _attempt(text: str, provider: OfflineProvider, settings: Settings, city: str) -> dict[str, Any]:
    """What the route planner makes of ``text`` typed as a stop: a place, an ambiguity or nothing."""
    try:
        res = resolve_point(
            RawStop(address=text), role="stop", provider=provider, settings=settings, index=0, default_city=city
        )
    except ResolutionError as exc:
        options = [o for choice in (getattr(exc, "candidates", None) or {}).values() for o in choice.get("options", [])]
        return {
            "status": "ambiguous" if options else "unresolved",
            "candidates": [o.get("poi_id") for o in options],
            "districts": sorted({str(o.get("district")) for o in options}),
            "code": exc.code,
        }
    return {"status": "resolved", "poi_id": res.point.poi_id, "warned": bool(res.warnings)}


def grade(line: dict[str, Any], got: dict[str, Any]) -> str:
    expect = line.get("expect")
    if isinstance(expect, dict):  # an ambiguous name: the user must be asked, with these among the choices
        wanted = set(expect.get("candidates_include") or [])
        district = expect.get("candidates_district")  # a district named alone: the choice is among its places
        if got["status"] == "ambiguous":
            in_district = district is None or got["districts"] == [district]
            return "correct" if wanted <= set(got["candidates"]) and in_district else "missed"
        if got["status"] == "unresolved":
            return "missed"
        return "wrong_warned" if got["warned"] else "wrong_silent"
    if expect is None:  # not in the pack: anything but a resolution is right
        if got["status"] != "resolved":
            return "correct"
        return "wrong_warned" if got["warned"] else "wrong_silent"
    same = {expect, *line.get("same_place", [])}
    if got["status"] == "resolved":
        if got["poi_id"] in same:
            return "correct"
        return "wrong_warned" if got["warned"] else "wrong_silent"
    if got["status"] == "ambiguous" and same & set(got["candidates"]):
        return "asked"
    return "missed"


def evaluate(lines: Iterable[dict[str, Any]], *, settings: Settings | None = None) -> dict[str, Any]:
    """Resolve every line and count the outcomes, overall, per kind and per region; the failures listed."""
    settings = settings or get_settings()
    providers: dict[str, tuple[OfflineProvider, str]] = {}
    total: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    by_region: dict[str, Counter[str]] = {}
    failures: list[dict[str, Any]] = []
    for line in lines:
        region = line["region"]
        if region not in providers:
            pack = load_region(region, settings.data_dir)
            providers[region] = (OfflineProvider(pack), pack.city)
        provider, city = providers[region]
        got = _attempt(line["text"], provider, settings, city)
        outcome = grade(line, got)
        total[outcome] += 1
        by_kind.setdefault(line["kind"], Counter())[outcome] += 1
        by_region.setdefault(region, Counter())[outcome] += 1
        if outcome != "correct":
            failures.append(
                {"text": line["text"], "region": region, "expect": line.get("expect"), "got": got, "outcome": outcome}
            )
    n = sum(total.values())

    def table(counts: Counter[str]) -> dict[str, Any]:
        lines_n = sum(counts.values())
        return {"lines": lines_n, "top1": round(counts["correct"] / lines_n, 4) if lines_n else 0.0} | {
            k: counts[k] for k in OUTCOMES
        }

    return {
        **table(total),
        "lines": n,
        "by_kind": {k: table(v) for k, v in sorted(by_kind.items())},
        "by_region": {k: table(v) for k, v in sorted(by_region.items())},
        "failures": failures,
    }


def bench_resolver(*, path: Path | None = None, show_failures: bool = False) -> dict[str, Any]:
    lines = read_lines(path or EVAL_SET)
    t0 = time.perf_counter()
    out = evaluate(lines)
    elapsed = time.perf_counter() - t0
    out["ms_per_line"] = round(1000 * elapsed / max(1, len(lines)), 2)
    if not show_failures:
        out["failures"] = len(out["failures"])
    return {"benchmark": "resolver", "eval_set": str((path or EVAL_SET).relative_to(PROJECT_ROOT)), **out}
