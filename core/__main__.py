"""Command line: ``python -m core plan|bench ...`` (a stable interface, see ARCHITECTURE.md).

Bad input exits with code 2 and prints ``{"error": {"code", "message", "field"}}`` on stderr.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from pydantic import ValidationError

from core.errors import InputError, OmniError, error_from_validation

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1


def _fail(err: OmniError, code: int = EXIT_BAD_INPUT) -> int:
    print(json.dumps(err.to_dict(), ensure_ascii=False), file=sys.stderr)
    return code


def _read_json(path: str, field: str = "request") -> dict:
    p = Path(path)
    if not p.is_file():
        raise InputError(f"request file not found: {path}", field=field)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"request file is not valid JSON: {exc.msg} (line {exc.lineno})", field=field) from None
    if not isinstance(data, dict):
        raise InputError("the request must be a JSON object", field=field)
    return data


def cmd_plan(args: argparse.Namespace) -> int:
    from core.config import get_settings
    from core.models.route import RoutePlanRequest
    from core.route.planner import plan_route
    from core.geo.registry import make_provider

    data = _read_json(args.request)
    if "request" in data and "origin_mode" not in data:  # a scenario file holds the request under "request"
        data = data["request"]
    request = RoutePlanRequest.model_validate(data)
    settings = get_settings()
    provider = make_provider(args.provider, region=args.region, settings=settings)
    result = plan_route(request, provider=provider, settings=settings)
    if args.html:
        from core.route.export import result_to_html

        Path(args.html).write_text(result_to_html(result), encoding="utf-8")
    print(result.model_dump_json(indent=2))
    return 0


def cmd_itinerary(args: argparse.Namespace) -> int:
    from core.config import get_settings
    from core.itinerary.edits import itinerary_from_json
    from core.geo.registry import make_provider

    data = _read_json(args.request)
    settings = get_settings()
    provider = make_provider(args.provider, region=args.region or data.get("region"), settings=settings) if (args.provider or args.region) else None
    result = itinerary_from_json(data, provider=provider, settings=settings)
    print(result.model_dump_json(indent=2))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    kind, target = args.kind, args.target
    if args.repeats < 1:
        raise InputError(f"--repeats must be at least 1, not {args.repeats}", field="repeats")
    if not args.time_limit > 0:
        raise InputError(f"--time-limit must be a positive number of seconds, not {args.time_limit:g}", field="time_limit")
    if kind == "plan":
        try:
            n_stops = int(target) if target is not None else 12
        except ValueError:
            raise InputError(f"bench plan takes a number of stops, not {target!r}", field="target") from None
        if n_stops < 1:
            raise InputError(f"bench plan needs at least 1 stop, not {n_stops}", field="target")
    if kind in {"tsp", "vrptw"}:
        if not target or not Path(target).is_file():
            raise InputError(f"instance file not found: {target}", field="file")
    try:
        if kind == "tsp":
            from core.bench.tsp import bench_tsp

            out = bench_tsp(target, time_limit_s=args.time_limit)
        elif kind == "vrptw":
            from core.bench.vrptw import bench_vrptw

            out = bench_vrptw(target, time_limit_s=args.time_limit)
        elif kind == "agent":
            from core.bench.agent import bench_agent

            out = bench_agent(repeats=args.repeats)
        else:  # plan
            from core.bench.plan import bench_plan

            out = bench_plan(stops=n_stops, repeats=args.repeats)
    except ValidationError:
        raise  # reported field by field by main()
    except ValueError as exc:  # a malformed instance or argument: the user's input
        raise InputError(str(exc), field="file") from None
    print(json.dumps(out, ensure_ascii=False))
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse that also prints the structured ``{"error": ...}`` line on a usage error (exit code 2)."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        m = re.search(r"(?:^|\s)--?([A-Za-z][\w-]*)", message) or re.search(r"argument (\w+)", message)
        field = m.group(1).replace("-", "_") if m else None
        print(json.dumps(InputError(f"{self.prog}: {message}", field=field).to_dict(), ensure_ascii=False), file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m core", description="Omni-Travel Planner command line")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("plan", help="plan a multi-stop route; prints RoutePlanResult as JSON")
    p.add_argument("--request", required=True, help="RoutePlanRequest JSON file (or a scenario file)")
    p.add_argument("--provider", default=None, help="offline (default) or amap")
    p.add_argument("--region", default=None, help="region pack name (default: shanghai)")
    p.add_argument("--html", default=None, help="also write the HTML report to this file")
    p.set_defaults(func=cmd_plan)

    it = sub.add_parser("itinerary", help="optimise a multi-day itinerary; prints ItineraryResult as JSON")
    it.add_argument("--request", required=True, help="TripRequest JSON file (or {request, edits})")
    it.add_argument("--provider", default=None, help="offline (default) or amap")
    it.add_argument("--region", default=None, help="region pack name (default: the request's region)")
    it.set_defaults(func=cmd_itinerary)

    b = sub.add_parser("bench", help="benchmarks: tsp FILE.tsp | vrptw FILE.txt | plan N_STOPS | agent")
    b.add_argument("kind", choices=["tsp", "vrptw", "plan", "agent"])
    b.add_argument("target", nargs="?", help="instance file (tsp, vrptw) or number of stops (plan)")
    b.add_argument("--time-limit", type=float, default=1.0)
    b.add_argument("--repeats", type=int, default=5)
    b.set_defaults(func=cmd_bench)

    from core.agent.cli import add_parsers

    add_parsers(sub)  # route "MESSAGE" | route --file FILE | run --message "MESSAGE" [--allow-webbrowse]
    return parser




def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage; keep the documented exit code
        return EXIT_BAD_INPUT if exc.code else 0
    try:
        return args.func(args)
    except ValidationError as exc:
        return _fail(error_from_validation(exc))
    except InputError as exc:
        return _fail(exc)
    except OmniError as exc:
        # unresolvable places are bad input too: the user must change the request
        from core.errors import ResolutionError

        return _fail(exc, EXIT_BAD_INPUT if isinstance(exc, ResolutionError) else EXIT_FAILED)


if __name__ == "__main__":
    sys.exit(main())
