"""``python -m core itinerary --request FILE``: optimise a multi-day itinerary; prints ItineraryResult as JSON.

One context from --region (else the request's region) and --provider, then
``core.app.itinerary.plan_itinerary`` (with the file's edits, if any, applied to the request)."""

from __future__ import annotations

import argparse
from typing import Any

from core.cli import add_provider_argument, read_json, request_context


def cmd_itinerary(args: argparse.Namespace) -> int:
    from pydantic import TypeAdapter

    from core.app import itinerary as itinerary_app
    from core.models.itinerary import TripRequest, UserEdit

    data = read_json(args.request)
    request = TripRequest.model_validate(data.get("request", data))  # a TripRequest, or {request, edits}
    edits = TypeAdapter(list[UserEdit]).validate_python(data.get("edits", []))
    ctx = request_context(region=args.region or request.region, provider=args.provider)
    result = itinerary_app.plan_itinerary(ctx, request, edits=edits)
    print(result.model_dump_json(indent=2))
    return 0


def add_parsers(sub: Any) -> None:
    it = sub.add_parser("itinerary", help="optimise a multi-day itinerary; prints ItineraryResult as JSON")
    it.add_argument("--request", required=True, help="TripRequest JSON file (or {request, edits})")
    add_provider_argument(it)
    it.add_argument("--region", default=None, help="region pack name (default: the request's region)")
    it.set_defaults(func=cmd_itinerary)
