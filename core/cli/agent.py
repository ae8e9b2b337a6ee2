"""Command-line faces of the agent (wired by core/__main__.py):

python -m core route "MESSAGE"            -> the router output as JSON
python -m core route --file FILE          -> one JSON line per message (one message a line), with router_ms
python -m core run --message "MESSAGE" [--allow-webbrowse] [--lang zh|en] [--user U] [--region R] [--provider P]
    [--now MOMENT] [--confirm DRY_RUN_ID] [--dry-run] [--max-steps N] [--max-seconds S] [--max-browser-steps N]
    [--cost-budget UNITS]                       -> the full response as JSON (core.app.agent.ask on one context)

Every field of the request's ``options`` (AgentOptions) has its flag; one not given keeps the contract's default.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.cli import EXIT_BAD_INPUT, EXIT_FAILED, add_provider_argument, parse_now, request_context, settings
from core.errors import InputError

if TYPE_CHECKING:
    from core.config import Settings


def route_json(message: str) -> dict[str, Any]:
    from core.agent.router import route_message

    if not message or not message.strip():
        raise InputError("the message is empty", field="message")
    return route_message(message, settings=settings()).output.model_dump(mode="json")


def route_file_lines(path: str) -> Iterator[str]:
    """One JSON line per non-blank line of FILE: the router output plus ``message`` and ``router_ms``."""
    from core.agent.router import route_message

    p = Path(path)
    if not p.is_file():
        raise InputError(f"file not found: {path}", field="file")
    in_force = settings()
    for line in p.read_text(encoding="utf-8").splitlines():
        msg = line.strip()
        if not msg:
            continue
        d = route_message(msg, settings=in_force)
        yield json.dumps(
            {"message": msg, **d.output.model_dump(mode="json"), "router_ms": round(d.router_ms, 3)}, ensure_ascii=False
        )


def run_json(
    message: str,
    *,
    allow_webbrowse: bool = False,
    user_id: str = "cli",
    trip_id: str | None = None,
    confirm_dry_run_id: str | None = None,
    lang: str | None = None,
    region: str | None = None,
    provider: str | None = None,
    now: datetime | None = None,
    budget: dict[str, float | int | bool] | None = None,
) -> dict[str, Any]:
    """Ask the agent as ``user_id``, in ``lang`` (None: the message's language), on one context; ``budget``: the
    request's other options as given (max_steps, max_seconds, max_browser_steps, cost_budget_usd, dry_run)."""
    from pydantic import ValidationError

    from core.app import agent as agent_app
    from core.errors import error_from_validation
    from core.models.agent import AgentOptions

    if not message or not message.strip():
        raise InputError("the message is empty", field="message")
    options: dict[str, float | int | bool | str] = {"allow_webbrowse": allow_webbrowse, **(budget or {})}
    if confirm_dry_run_id:
        options["confirm_dry_run_id"] = confirm_dry_run_id
    try:  # a value out of the contract's range is the caller's to correct: said by its field, exit 2
        AgentOptions.model_validate(options)
    except ValidationError as exc:
        raise error_from_validation(exc) from None
    in_force = with_running_demo_sites(settings())
    ctx = request_context(user=user_id, lang=lang, region=region, provider=provider, now=now, in_force=in_force)
    resp = agent_app.ask(ctx, {"message": message, "user_id": user_id, "trip_id": trip_id, "options": options})
    return resp.model_dump(mode="json")


def with_running_demo_sites(in_force: Settings) -> Settings:
    """The settings with the demo venue sites allowed when they answer on their port here (``python -m core venues
    serve`` in another terminal) though nothing said they run: a command is not started by ``make run``, which says
    so (OMNI_VENUES_SERVE). A list of allowed sites of the person's own (OMNI_BROWSE_ALLOWLIST, not empty) is kept as
    it is; a port that answers as anything but the demo sites is not allowed (core.venues.serve.demo_sites_running)."""
    from core.venues.serve import demo_sites_running

    if in_force.venues_serve or in_force.browse_allowlist:
        return in_force
    if not demo_sites_running(in_force.venues_port):
        return in_force  # the refusal says how to start or allow them (agent.browse.demo_sites_off)
    return in_force.model_copy(update={"venues_serve": True, "browse_allowlist": [f"127.0.0.1:{in_force.venues_port}"]})


def cmd_route(args: argparse.Namespace) -> int:
    if args.file:
        for line in route_file_lines(args.file):
            print(line, flush=True)
        return 0
    if not args.message:
        raise InputError("give a MESSAGE or --file FILE", field="message")
    print(json.dumps(route_json(args.message), ensure_ascii=False, indent=2))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    out = run_json(
        args.message,
        allow_webbrowse=args.allow_webbrowse,
        user_id=args.user_id,
        trip_id=args.trip_id,
        confirm_dry_run_id=args.confirm,
        lang=args.lang,
        region=args.region,
        provider=args.provider,
        now=parse_now(args.now),
        budget=_options_given(args),
    )
    print(json.dumps(out, ensure_ascii=False, indent=2))
    result = out["result"]
    if result["status"] in ("FAILED", "TIMEOUT"):
        return EXIT_FAILED  # the answer is printed; the exit code says it is not a success
    if result.get("error_code") == "INVALID_INPUT":
        return EXIT_BAD_INPUT
    return 0


#: the run flags that set one of the request's options, by the option's name (AgentOptions)
_OPTION_FLAGS = ("max_steps", "max_seconds", "max_browser_steps", "cost_budget_usd", "dry_run")


def _options_given(args: argparse.Namespace) -> dict[str, float | int | bool]:
    """The options the command line gave (None: not given, the contract's default holds)."""
    given = {name: value for name in _OPTION_FLAGS if (value := getattr(args, name, None)) is not None}
    if given.get("dry_run") is False:  # a switch not given
        del given["dry_run"]
    return given


def add_parsers(sub: Any) -> None:  # argparse's sub-parser set (its class is private), as the other CLIs
    """Add the ``route`` and ``run`` sub-commands to an argparse sub-parser set."""
    r = sub.add_parser("route", help="route a message; prints the router output as JSON")
    r.add_argument("message", nargs="?", default=None)
    r.add_argument("--file", default=None, help="one message per line; prints one JSON line each (with router_ms)")
    r.set_defaults(func=cmd_route)
    u = sub.add_parser("run", help="route and run a message; prints the full response as JSON")
    u.add_argument("--message", required=True)
    u.add_argument("--allow-webbrowse", action="store_true")
    u.add_argument("--user", "--user-id", dest="user_id", default="cli", help="who asks (default: cli)")
    u.add_argument("--lang", choices=("en", "zh"), default=None, help="the answer's language (default: the message's)")
    u.add_argument("--region", default=None, help="region pack (default: OMNI_REGION)")
    add_provider_argument(u)
    u.add_argument("--now", default=None, help="ask as if it were this moment (ISO 8601, with offset)")
    u.add_argument("--trip-id", default=None)
    u.add_argument("--confirm", default=None, help="a dry run id to confirm (commits it once)")
    u.add_argument("--dry-run", dest="dry_run", action="store_true", help="prepare a commit, never make it")
    u.add_argument("--max-steps", dest="max_steps", type=int, default=None, help="System 2's step budget (default 8)")
    u.add_argument("--max-seconds", dest="max_seconds", type=float, default=None, help="the time budget (default 60)")
    u.add_argument(
        "--max-browser-steps", dest="max_browser_steps", type=int, default=None, help="browser steps (default 12)"
    )
    u.add_argument(
        "--cost-budget", dest="cost_budget_usd", type=float, default=None, help="the cost budget (default 0.20)"
    )
    u.set_defaults(func=cmd_run)
