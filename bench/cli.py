"""``python -m bench ...`` (also ``python -m core bench ...``, which hands over to it): every benchmark behind one
command (docs/BENCHMARKS.md).

Single runs print one JSON object: ``tsp FILE``, ``vrptw FILE``, ``plan [N]``, ``agent``, ``itinerary``, ``ui``
(the dashboard in Chromium; its table goes to stderr).
Batch tables print Markdown rows as they go: ``tsplib``, ``lkh``, ``solomon``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from core.cli import Parser
from core.errors import InputError

#: --time-limit / --repeats of the single runs, with the defaults they always had
SINGLE_DEFAULTS = {"time_limit": 1.0, "repeats": 5}
_BEFORE_KIND = "_before_kind_"  # dest prefix of an option given before KIND (bench --repeats 3 plan 12)


def _options_before_kind(args: argparse.Namespace) -> dict[str, Any]:
    return {k.removeprefix(_BEFORE_KIND): v for k, v in vars(args).items() if k.startswith(_BEFORE_KIND)}


def _check_common(args: argparse.Namespace) -> None:
    # a single run takes --time-limit / --repeats before or after KIND (the original command line allowed both)
    for name, value in {**SINGLE_DEFAULTS, **_options_before_kind(args)}.items():
        vars(args).setdefault(name, value)  # given after KIND: that value stands
    if args.repeats < 1:
        raise InputError(f"--repeats must be at least 1, not {args.repeats}", field="repeats")
    if not args.time_limit > 0:
        raise InputError(
            f"--time-limit must be a positive number of seconds, not {args.time_limit:g}", field="time_limit"
        )


def _instance(target: str | None) -> str:
    if not target or not Path(target).is_file():
        raise InputError(f"instance file not found: {target}", field="file")
    return target


def _single(args: argparse.Namespace) -> int:
    _check_common(args)
    kind = args.kind
    out: dict[str, Any]
    try:
        if kind == "tsp":
            from bench.tsp import bench_tsp

            out = bench_tsp(_instance(args.target), time_limit_s=args.time_limit)
        elif kind == "vrptw":
            from bench.vrptw import bench_vrptw

            out = bench_vrptw(_instance(args.target), time_limit_s=args.time_limit)
        elif kind == "agent":
            from bench.agent import bench_agent

            out = bench_agent(repeats=args.repeats)
        elif kind == "itinerary":
            from bench.itinerary import bench_itinerary

            out = bench_itinerary(repeats=args.repeats)
        elif kind == "daysfit":
            from bench.daysfit import bench_daysfit

            out = bench_daysfit(repeats=args.repeats)
        elif kind == "fuzz":
            from bench.fuzz import bench_fuzz

            if args.examples < 1:
                raise InputError(f"--examples must be at least 1, not {args.examples}", field="examples")
            out = bench_fuzz(examples=args.examples, progress=lambda line: print(line, file=sys.stderr, flush=True))
        elif kind == "reservations":
            from bench.reservations import bench_reservations

            out = bench_reservations(pg_url=args.pg or os.environ.get("OMNI_TEST_PG_URL") or None)
        elif kind == "halfday":
            from bench.halfday import bench_halfday

            out = bench_halfday(repeats=args.repeats, pg_url=args.pg or os.environ.get("OMNI_TEST_PG_URL") or None)
        elif kind == "browse":
            from bench.browse import bench_browse

            out = bench_browse(repeats=args.repeats)
        elif kind == "amap-cache":
            from bench.amap_cache import bench_amap_cache

            out = bench_amap_cache()
        elif kind == "amap-live":
            from bench.amap_live import bench_amap_live

            out = bench_amap_live(progress=lambda line: print(line, file=sys.stderr, flush=True))
        elif kind == "amap-mcp":
            from bench.amap_mcp import bench_amap_mcp

            out = bench_amap_mcp(progress=lambda line: print(line, file=sys.stderr, flush=True))
        elif kind == "roads":
            from bench.roads import bench_roads

            out = bench_roads(region=args.target or "helsinki", repeats=args.repeats)
        elif kind == "walk-detours":
            from bench.walk_detours import bench_walk_detours

            out = bench_walk_detours()
        elif kind == "faults":
            from bench.faults import bench_faults

            out = bench_faults()
        elif kind == "resolver":
            from bench.resolver import bench_resolver

            out = bench_resolver(show_failures=args.failures)
        elif kind == "ui":
            from bench.ui import run_cli

            return run_cli(args)
        elif kind == "lab":
            from bench.lab import bench_lab

            out = bench_lab(n=int(args.target) if args.target else None)
        else:  # plan
            try:
                n_stops = int(args.target) if args.target is not None else 12
            except ValueError:
                raise InputError(f"bench plan takes a number of stops, not {args.target!r}", field="target") from None
            if n_stops < 1:
                raise InputError(f"bench plan needs at least 1 stop, not {n_stops}", field="target")
            from bench.plan import bench_plan

            out = bench_plan(stops=n_stops, repeats=args.repeats)
    except (ValidationError, InputError):
        raise  # reported field by field by the CLI
    except ValueError as exc:  # a malformed instance or argument: the user's input
        raise InputError(str(exc), field="target" if kind == "plan" else "file") from None
    print(json.dumps(out, ensure_ascii=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """``python -m bench``'s parser: KIND and its options, --time-limit / --repeats also before KIND."""
    from bench import halfday_amap, lkh, load, solomon, team, tsplib

    bench = Parser(
        prog="python -m bench",
        description="benchmarks: tsp FILE | vrptw FILE | plan N | agent | itinerary | fuzz | faults | roads | "
        "walk-detours | amap-cache | amap-live | amap-mcp | reservations | halfday | halfday-amap | browse | ... "
        "(docs/BENCHMARKS.md)",
    )
    bench.add_argument(
        "--time-limit", type=float, dest=_BEFORE_KIND + "time_limit", default=argparse.SUPPRESS, help=argparse.SUPPRESS
    )
    bench.add_argument(
        "--repeats", type=int, dest=_BEFORE_KIND + "repeats", default=argparse.SUPPRESS, help=argparse.SUPPRESS
    )
    kinds = bench.add_subparsers(dest="kind", required=True, metavar="KIND", parser_class=Parser)
    singles = {
        "tsp": ("solve a TSPLIB EUC_2D instance as a closed tour", "FILE.tsp"),
        "vrptw": ("solve a Solomon VRPTW instance", "FILE.txt"),
        "plan": ("end-to-end offline route plan timing", "N_STOPS"),
        "agent": ("router / System 1 / System 2 timings", None),
        "itinerary": ("itinerary timing on the demo trips, per variant", None),
        "daysfit": ("the agent's two-day plans: seconds, visits per day, first events, drops and swaps", None),
        "fuzz": ("generated input against every CLI command and API route; counts unhandled errors", None),
        "faults": (
            "worst-case wait when AMap never answers, and per face when the database is frozen, stopped or "
            "read-only (with a load run of 10 and 30 clients)",
            None,
        ),
        "reservations": ("50 concurrent confirmations and 50 parties for one slot, SQLite and PostgreSQL", None),
        "halfday": ("half-day planner: first event, full plan, 50 confirmations of a planned step", None),
        "browse": (
            "the browse executor on the demo hotel site: first browse after the browser starts, then warm",
            None,
        ),
        "amap-cache": ("AMap calls of a 10-stop plan, cold and warm in a new process (stand-in server)", None),
        "amap-live": ("5-30 place plans through a stand-in AMap at QPS 1 and 3: calls, pacing, legs from AMap", None),
        "amap-mcp": ("the amap-live trips through AMap's MCP tools (REST fills): calls by tool, pacing, legs", None),
        "roads": ("a pack's road network: plans, a networkx reference, matrix times (embedded and HTTP)", "REGION"),
        "walk-detours": ("walking detour ratios between nearby landmarks, before/after snapping, vs a reference", None),
        "resolver": ("place-name resolution: top-1 accuracy on tests/data/place_names.jsonl", None),
        "lab": ("strategy lab: 200 Helsinki requests x 3 strategies x 2 modes, local vs Dask; optimiser gaps", "N"),
        "ui": ("the dashboard in Chromium: click to finished result, route 8/30 stops, itinerary edit", None),
    }
    for kind, (text, target) in singles.items():
        p = kinds.add_parser(kind, help=text)
        if target:
            p.add_argument("target", nargs="?", metavar=target)
        else:
            p.set_defaults(target=None)
        # no defaults here: a value given before KIND must survive (_check_common fills in the defaults)
        p.add_argument("--time-limit", type=float, default=argparse.SUPPRESS, help="default: 1")
        p.add_argument("--repeats", type=int, default=argparse.SUPPRESS, help="default: 5")
        if kind in ("reservations", "halfday"):
            p.add_argument("--pg", default=None, help="a PostgreSQL URL (default: OMNI_TEST_PG_URL)")
        if kind == "resolver":
            p.add_argument("--failures", action="store_true", help="list every line not resolved as expected")
        if kind == "ui":
            from bench.ui import configure

            configure(p)
        if kind == "fuzz":
            p.add_argument("--examples", type=int, default=2000, help="generated cases in all (default 2000)")
        p.set_defaults(func=_single)
    for kind, module, text in (
        ("tsplib", tsplib, "the TSPLIB table (known optima)"),
        ("lkh", lkh, "random instances against LKH-3 (needs elkai)"),
        ("solomon", solomon, "all Solomon VRPTW instances against the best known"),
        (
            "load",
            load,
            "the API's fast path (a new zh/en question each request) under 10/30/100 clients on 1 and 2 "
            "workers: requests/s, p50/p95/p99, errors, server CPU per request, RSS per worker, load",
        ),
        ("team", team, "a team on one key: what a Redis-paced call costs; three processes on one key with and without"),
        (
            "halfday-amap",
            halfday_amap,
            "half-day plans through the AMap stand-in at 1 QPS: calls and seconds per plan, cold and warm, per goal",
        ),
    ):
        p = kinds.add_parser(kind, help=text)
        module.configure(p)
        p.set_defaults(func=_batch(kind, module.run))
    return bench


def _batch(kind: str, run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A batch table's own options follow its name: one given before it would be silently replaced."""

    def checked(args: argparse.Namespace) -> int:
        before = _options_before_kind(args)
        if before:
            name = next(iter(before))
            raise InputError(f"put --{name.replace('_', '-')} after the benchmark: bench {kind} ...", field=name)
        return run(args)

    return checked
