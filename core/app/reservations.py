"""Reserve, confirm, cancel and list (every page's venues, the half-day plans, the API, the CLI).

The gates are the reservation service's: a dry run is a quote (it holds nothing, is not listed, and issues a
single-use token bound to the user); only confirm makes the reservation (pending, then submitted). Confirm and
cancel need that token, the person's consent and an idempotency key. Here the use cases find the
service that owns the venue (``AppServices.reservations_for_item``) and act for the context's user only."""

from __future__ import annotations

import hashlib

from core.app.context import RequestContext
from core.errors import InputError
from core.models.region import RegionPack
from core.models.reservations import BookableItem, DryRun, Outcome, Reservation, ReservationRequest
from core.reservations.service import ReservationService

__all__ = [
    "ReservationService",
    "cancel",
    "cancel_key",
    "confirm",
    "current",
    "dry_run",
    "item_for",
    "reservations_of",
]


def _user(ctx: RequestContext) -> str:
    if not ctx.user:
        raise InputError("a reservation needs a user", field="user_id", code="USER_REQUIRED")
    return ctx.user


def _owner(ctx: RequestContext, reservation_id: str) -> ReservationService:
    """The service of the venue a reservation is for (it may be another region than the request's)."""
    service = ctx.reservations()
    item = service.item_of(reservation_id)
    if item is None:
        return service  # its gates answer NOT_FOUND
    try:
        return ctx.reservations_for_item(item)
    except InputError:  # a venue no pack offers any more: the gates still settle the token and the state
        return service


def dry_run(ctx: RequestContext, request: ReservationRequest) -> DryRun:
    """The quote: what would be reserved, its price and source and the cancellation policy; nothing is held or listed."""
    return ctx.reservations_for_item(request.item_id).dry_run(_user(ctx), request)


def confirm(ctx: RequestContext, reservation_id: str, *, token: str, idempotency_key: str, consent: bool) -> Outcome:
    """After consent: the quote becomes the reservation, pending, and is submitted (confirmed, or failed with why)."""
    return _owner(ctx, reservation_id).confirm(
        _user(ctx), reservation_id, token=token, idempotency_key=idempotency_key, consent=consent
    )


def cancel_key(token: str) -> str:
    """The idempotency key of a cancellation when the caller gives none: one per token, so a retry replays."""
    return "cancel-" + hashlib.sha256(token.encode("utf-8")).hexdigest()[:40]


def cancel(
    ctx: RequestContext,
    reservation_id: str,
    *,
    token: str | None = None,
    idempotency_key: str | None = None,
    consent: bool = False,
) -> DryRun | Outcome:
    """Without a token: the cancellation's dry run (its fee, a token). With one: the cancellation itself."""
    service = _owner(ctx, reservation_id)
    if token is None:
        return service.cancel_dry_run(_user(ctx), reservation_id)
    key = idempotency_key or cancel_key(token)
    return service.cancel(_user(ctx), reservation_id, token=token, idempotency_key=key, consent=consent)


def current(ctx: RequestContext, reservation_id: str) -> Reservation:
    """The reservation as it is now, by its id (a receipt shown before may since have been cancelled from the list):
    every card, receipt and list reads its state here, never from an outcome kept earlier."""
    return _owner(ctx, reservation_id).get(_user(ctx), reservation_id)


def reservations_of(ctx: RequestContext) -> list[Reservation]:
    """The user's reservations, every region's, with their current state."""
    return ctx.reservations().reservations_of(_user(ctx))


def item_for(pack: RegionPack, item_id: str) -> BookableItem | None:
    """The bookable item ``item_id`` of ``pack`` (None: the pack offers nothing of that id)."""
    from core.reservations.catalog import item_for as _item_for

    return _item_for(pack, item_id)
