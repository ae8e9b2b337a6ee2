"""``python -m core itinerary --request FILE``: optimise a multi-day itinerary; prints ItineraryResult as JSON."""

from __future__ import annotations

import argparse
from typing import Any

from core.cli import read_json


def cmd_itinerary(args: argparse.Namespace) -> int:
    from core.config import get_settings
    from core.geo.registry import make_provider
    from core.itinerary.edits import itinerary_from_json

    data = read_json(args.request)
    settings = get_settings()
    provider = None
    if args.provider or args.region:
        provider = make_provider(args.provider, region=args.region or data.get("region"), settings=settings)
    result = itinerary_from_json(data, provider=provider, settings=settings)
    print(result.model_dump_json(indent=2))
    return 0


def add_parsers(sub: Any) -> None:
    it = sub.add_parser("itinerary", help="optimise a multi-day itinerary; prints ItineraryResult as JSON")
    it.add_argument("--request", required=True, help="TripRequest JSON file (or {request, edits})")
    it.add_argument(
        "--provider",
        default=None,
        help="offline (default), amap, amap-mcp or GEOCODER+ROUTER (e.g. pack+valhalla, nominatim+osrm)",
    )
    it.add_argument("--region", default=None, help="region pack name (default: the request's region)")
    it.set_defaults(func=cmd_itinerary)
