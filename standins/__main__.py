"""``python -m standins amap --port P --qps Q --daily N``: a stand-in AMap Web Service on 127.0.0.1 that keeps
AMap's limits (standins/amap.py), for trying the planner at a key's real QPS and quota without a key (``make
amap-standin``). Point the planner at it with ``OMNI_AMAP_BASE_URL`` (any ``OMNI_AMAP_KEY`` is accepted)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any


def cmd_amap_standin(args: argparse.Namespace) -> int:
    from core.errors import InputError
    from standins.amap import AMapLimitedStandIn

    if args.qps is not None and args.qps <= 0:
        raise InputError(f"--qps must be a positive number, not {args.qps:g}", field="qps")
    if args.daily is not None and args.daily < 0:
        raise InputError(f"--daily must be 0 or more, not {args.daily}", field="daily")
    if args.per_minute is not None and args.per_minute < 1:
        raise InputError(f"--per-minute must be 1 or more, not {args.per_minute}", field="per_minute")
    if not args.traffic > 0:
        raise InputError(f"--traffic must be a positive number, not {args.traffic:g}", field="traffic")
    server = AMapLimitedStandIn(
        args.region,
        qps=args.qps,
        daily=args.daily,
        per_minute=args.per_minute,
        latency_s=args.latency_ms / 1000,
        port=args.port,
        traffic=args.traffic,
        failing=args.fail,
    )
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    print(json.dumps({"base_url": server.base_url, "qps": args.qps, "daily": args.daily}), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("amap", help="a stand-in AMap on 127.0.0.1 keeping AMap's QPS and daily quota")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one, printed)")
    p.add_argument("--qps", type=float, default=1.0, help="calls per second per key before CUQPS (10021); default 1")
    p.add_argument("--daily", type=int, default=5000, help="calls per key per day before 10003; default 5000")
    p.add_argument(
        "--per-minute", type=int, default=None, help="calls per key per minute before 10004 (default: no such limit)"
    )
    p.add_argument("--region", default="shanghai", help="the region pack whose places it knows (default shanghai)")
    p.add_argument("--latency-ms", type=float, default=0.0, help="time each answer takes, in ms (default 0)")
    p.add_argument(
        "--traffic",
        type=float,
        default=1.0,
        help="driving durations of the distance service x this (AMap's is traffic-aware; default 1: the estimate)",
    )
    p.add_argument(
        "--fail",
        action="append",
        default=[],
        metavar="PATH",
        help="a path answered with AMap's engine failure (30001), e.g. /v3/weather/weatherInfo; repeatable",
    )
    p.set_defaults(func=cmd_amap_standin)


def main(argv: list[str] | None = None) -> int:
    from core.errors import InputError

    parser = argparse.ArgumentParser(
        prog="python -m standins", description="Stand-ins of remote services on 127.0.0.1."
    )
    add_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except InputError as exc:
        print(json.dumps({"error": exc.code, "field": exc.field, "message": exc.message}), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
