"""``python -m core plan --request FILE``: plan a multi-stop route; prints RoutePlanResult as JSON."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from core.cli import read_json


def cmd_plan(args: argparse.Namespace) -> int:
    from core.config import get_settings
    from core.geo.registry import make_provider
    from core.models.route import RoutePlanRequest
    from core.route.planner import plan_route

    data = read_json(args.request)
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


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("plan", help="plan a multi-stop route; prints RoutePlanResult as JSON")
    p.add_argument("--request", required=True, help="RoutePlanRequest JSON file (or a scenario file)")
    p.add_argument(
        "--provider",
        default=None,
        help="offline (default), amap, amap-mcp or GEOCODER+ROUTER (e.g. pack+valhalla, nominatim+osrm)",
    )
    p.add_argument("--region", default=None, help="region pack name (default: shanghai)")
    p.add_argument("--html", default=None, help="also write the HTML report to this file")
    p.set_defaults(func=cmd_plan)
