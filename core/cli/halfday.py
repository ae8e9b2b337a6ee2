"""``python -m core halfday --goal "TEXT"``: the half-day planner from the command line.

Prints the result (``HalfDayResult``) as JSON, or with ``--events`` every event as one JSON line as it happens
(the same stream the API sends as server-sent events). A clarification or an error ends with exit code 2 and the
``done`` event's data on stderr. ``halfday memory --user U [--reset]`` shows or forgets what was learned.
One context from --user, --lang, --region, --provider and --now (the clock), then ``core.app.halfday``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from core.cli import add_provider_argument, parse_now, request_context


def cmd_plan(args: argparse.Namespace) -> int:
    from core.app import halfday as halfday_app
    from core.errors import InputError
    from core.models.halfday.events import DoneEvent, DonePlans
    from core.models.halfday.plans import HalfDayRequest

    if not args.goal:
        raise InputError("give the goal sentence with --goal", field="goal")
    now = parse_now(args.now)
    ctx = request_context(user=args.user, lang=args.lang, region=args.region, provider=args.provider, now=now)
    request = HalfDayRequest(
        goal=args.goal,
        user_id=args.user,
        region=args.region,
        origin=args.origin,
        now=now,
        on_degraded=args.on_degraded,
    )
    done: Any = None
    for event in halfday_app.plan_half_day(ctx, request):
        event = halfday_app.worded(event, args.lang)  # a done with plans gets their intros and reasons in words
        if args.events:
            print(event.model_dump_json(), flush=True)
        done = event
    assert isinstance(done, DoneEvent)
    if isinstance(done.data, DonePlans):
        if not args.events:  # the result, and beside it (``words``) the plans in words in --lang, else the goal's
            words = done.data.words.model_dump(mode="json") if done.data.words else None
            print(json.dumps({**done.data.result.model_dump(mode="json"), "words": words}, ensure_ascii=False))
        return 0
    print(json.dumps({"done": done.data.model_dump(mode="json"), "trace_id": done.trace_id}, ensure_ascii=False),
          file=sys.stderr)  # fmt: skip
    return 2


def cmd_memory(args: argparse.Namespace) -> int:
    from core.app import halfday as halfday_app

    ctx = request_context(user=args.user, region=args.region)
    if args.reset:
        print(json.dumps({"forgotten_events": halfday_app.forget(ctx)}))
        return 0
    print(halfday_app.remembered(ctx).model_dump_json())
    return 0


def add_parsers(sub: Any) -> None:
    half = sub.add_parser("halfday", help="half-day planner: --goal TEXT [--events] | memory --user U [--reset]")
    half.add_argument("--goal", help="the goal sentence, Chinese or English")
    half.add_argument("--user", default="cli", help="whose memory and reservations (default: cli)")
    half.add_argument("--region", default=None, help="region pack (default: OMNI_REGION)")
    add_provider_argument(half)
    half.add_argument("--lang", choices=("en", "zh"), default=None, help="the plans' language (default: the goal's)")
    half.add_argument("--origin", default=None, help="where the half day starts (a place name)")
    half.add_argument("--now", default=None, help="plan as if it were this moment (ISO 8601, with offset)")
    half.add_argument("--events", action="store_true", help="print every event as a JSON line")
    half.add_argument(
        "--on-degraded",
        choices=("ask", "continue", "stop"),
        default="ask",
        help="part of the plan on local data (a map service down): continue or stop; ask: nobody can answer here, "
        "so OMNI_HALFDAY_DEGRADED_DEFAULT applies (default: ask)",
    )
    half.set_defaults(func=cmd_plan)
    cmds = half.add_subparsers(dest="halfday_command", metavar="COMMAND")
    mem = cmds.add_parser("memory", help="what the planner learned of a user; --reset forgets it")
    mem.add_argument("--user", required=True)
    mem.add_argument("--region", default=None)
    mem.add_argument("--reset", action="store_true")
    mem.set_defaults(func=cmd_memory)
