"""``python -m core plan --request FILE``: plan a multi-stop route; prints RoutePlanResult as JSON.

One context from --region, --provider and --lang, then ``core.app.route.plan_route``."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.cli import add_provider_argument, read_json, request_context
from core.errors import InputError, ResolutionError
from core.models.common import echo
from core.words.place_choice import resolution_message

if TYPE_CHECKING:
    from core.models.route import RoutePlanResult


def cmd_plan(args: argparse.Namespace) -> int:
    from core.app import route as route_app
    from core.models.route import RoutePlanRequest

    data = read_json(args.request)
    if "request" in data and "origin_mode" not in data:  # a scenario file holds the request under "request"
        data = data["request"]
    request = RoutePlanRequest.model_validate({**data, **_own_order_options(args)})
    ctx = request_context(lang=args.lang, region=args.region, provider=args.provider)
    try:
        result = route_app.plan_route(ctx, request)
    except ResolutionError as exc:  # not found, or a choice: in --lang's words (English by default), places so named
        exc.message = (
            resolution_message(exc.facts, exc.candidates, ctx.lang if ctx.lang_given else "en", ctx.region)
            or exc.message
        )
        raise
    html_path = _html_path(args.html, need_html=request.need_html, result=result, today=ctx.today())
    if html_path is not None:
        try:
            html_path.write_text(
                route_app.export_html(result, lang=args.lang or "en", data_dir=ctx.settings.data_dir), encoding="utf-8"
            )
        except OSError as exc:
            raise InputError(
                f"the HTML report cannot be written to {echo(str(html_path))} ({exc.strerror})", field="html"
            ) from None
        print(f"HTML report: {html_path}", file=sys.stderr)  # stdout stays the JSON alone
    # the summary and the optimiser's note in the chosen language (English by default), worded here: the core
    # returns facts
    print(route_app.with_sentences(result, lang=args.lang or "en").model_dump_json(indent=2))
    return 0


def _own_order_options(args: argparse.Namespace) -> dict[str, Any]:
    """``--keep-order`` and ``--own-order 2,0,1`` as the request's fields (issue 32: the person's order beside the
    best); a flag not given leaves the file's value."""
    options: dict[str, Any] = {"keep_order": True} if args.keep_order else {}
    if args.own_order is not None:
        parts = [p.strip() for p in args.own_order.split(",")]
        if not all(p.lstrip("-").isdigit() for p in parts):
            raise InputError(
                f"--own-order takes stop indices separated by commas (0 is the first stop), not {echo(args.own_order)}",
                field="own_order",
            )
        options["own_order"] = [int(p) for p in parts]
    return options


def _html_path(option: str | None, *, need_html: bool, result: RoutePlanResult, today: date) -> Path | None:
    """Where the HTML report goes: ``--html PATH`` when given; else, when the request has ``need_html``, a file
    in the current directory named after the trip and the day (like the page's download); else nowhere."""
    if option:
        return Path(option)
    if not need_html:
        return None
    from core.words.route_export import export_stem

    return Path(f"{export_stem(result, on=today)}.html")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("plan", help="plan a multi-stop route; prints RoutePlanResult as JSON")
    p.add_argument("--request", required=True, help="RoutePlanRequest JSON file (or a scenario file)")
    add_provider_argument(p)
    p.add_argument("--region", default=None, help="region pack name (default: shanghai)")
    p.add_argument(
        "--html",
        default=None,
        help="also write the HTML report to this file (default with need_html: TRIP-DATE.html here)",
    )
    p.add_argument(
        "--lang", choices=("en", "zh"), default=None, help="the HTML report's and the summary's language (default: en)"
    )
    p.add_argument(
        "--keep-order",
        action="store_true",
        help="also plan the stops in the order listed, beside the best (own_route, own_difference)",
    )
    p.add_argument(
        "--own-order",
        default=None,
        metavar="I,J,…",
        help="also plan the stops in this order (indices into stops, 0 first), beside the best",
    )
    p.set_defaults(func=cmd_plan)
