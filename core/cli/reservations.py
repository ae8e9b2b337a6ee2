"""``python -m core reservations list|book|cancel``: the reservation service from the command line.

``book`` and ``cancel`` print the dry run (a booking's is a quote: nothing is held, ``list`` does not show it); with
``--yes`` (the person's consent, given on the command line) they confirm it with the dry run's token under a fresh
idempotency key: a booking is then made pending and submitted, and printed confirmed (or failed, with its reason).
Output is JSON; refusals exit with code 2.
One context from --user and --region, then ``core.app.reservations`` (the venue's owner found by its one resolver).
"""

from __future__ import annotations

import argparse
import json
import uuid
from datetime import date, time
from typing import TYPE_CHECKING, Any

from core.cli import request_context

if TYPE_CHECKING:
    from core.app import RequestContext


def _context(args: argparse.Namespace) -> RequestContext:
    return request_context(user=args.user, region=args.region)


def _print(value: Any) -> None:
    print(json.dumps(value.model_dump(mode="json") if hasattr(value, "model_dump") else value, ensure_ascii=False))


def cmd_list(args: argparse.Namespace) -> int:
    from core.app import reservations as reservations_app

    mine = reservations_app.reservations_of(_context(args))
    print(json.dumps([r.model_dump(mode="json") for r in mine], ensure_ascii=False))
    return 0


def cmd_book(args: argparse.Namespace) -> int:
    from core.app import reservations as reservations_app
    from core.models.reservations import ReservationRequest

    ctx = _context(args)
    request = ReservationRequest(
        item_id=args.item,
        date=date.fromisoformat(args.date),
        time=time.fromisoformat(args.time),
        party_size=args.party,
        contact=args.contact,
        notes=args.notes,
    )
    dry = reservations_app.dry_run(ctx, request)
    if not args.yes:
        _print(dry)
        return 0
    key = uuid.uuid4().hex
    _print(reservations_app.confirm(ctx, dry.reservation.id, token=dry.token, idempotency_key=key, consent=True))
    return 0


def cmd_cancel(args: argparse.Namespace) -> int:
    from core.app import reservations as reservations_app
    from core.models.reservations import DryRun

    ctx = _context(args)
    dry = reservations_app.cancel(ctx, args.id)  # without a token: the cancellation's dry run
    if not args.yes or not isinstance(dry, DryRun):
        _print(dry)
        return 0
    key = uuid.uuid4().hex
    _print(reservations_app.cancel(ctx, args.id, token=dry.token, idempotency_key=key, consent=True))
    return 0


def add_parsers(sub: Any) -> None:
    res = sub.add_parser("reservations", help="reservations: list | book | cancel")
    cmds = res.add_subparsers(dest="reservations_command", required=True, metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--user", required=True, help="whose reservations")
    common.add_argument("--region", default=None, help="region pack (default: OMNI_REGION)")
    ls = cmds.add_parser("list", parents=[common], help="the user's reservations with their status")
    ls.set_defaults(func=cmd_list)
    book = cmds.add_parser("book", parents=[common], help="dry run a reservation; --yes confirms it")
    book.add_argument("--item", required=True, help="a place id of the pack that takes reservations")
    book.add_argument("--date", required=True, help="YYYY-MM-DD")
    book.add_argument("--time", required=True, help="HH:MM, one of the venue's slots")
    book.add_argument("--party", type=int, required=True, help="number of people")
    book.add_argument("--contact", default="", help="a name or phone number for the venue")
    book.add_argument("--notes", default="")
    book.add_argument("--yes", action="store_true", help="I consent: confirm the dry run")
    book.set_defaults(func=cmd_book)
    cancel = cmds.add_parser("cancel", parents=[common], help="dry run a cancellation (fee); --yes confirms it")
    cancel.add_argument("--id", required=True, help="the reservation id")
    cancel.add_argument("--yes", action="store_true", help="I consent: confirm the cancellation")
    cancel.set_defaults(func=cmd_cancel)
