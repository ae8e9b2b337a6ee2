"""Reservation actions, on the reservation service (core/reservations/service.py) of the active region pack:
reservations.dry_run, reservations.confirm, reservations.cancel_dry_run, reservations.cancel, reservations.list.

Every action acts for the request's own user (``ctx.request.user_id``; no input names a user, so nobody reads or
cancels another's) and goes through the service's gates, never its tables. A refusal by the venue's terms
(``SLOT_FULL``, ``TOO_LATE``, ``TOKEN_INVALID``, …) is an answer, returned as ``refusal`` with its code and details
(the free slots nearby), for the flow to put in words.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from pydantic import BaseModel, Field, StrictBool

from core.agent.actions.names import ActionName
from core.agent.actions.spec import ActionSpec
from core.agent.state import AgentContext
from core.models.agent import AgentState
from core.models.reservations import DryRun, Outcome, Reservation, ReservationRequest
from core.reservations.provider import ReservationProvider
from core.reservations.service import ReservationError


class Refusal(BaseModel):
    code: str
    field: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class DryRunIn(BaseModel):
    request: ReservationRequest


class DryRunOut(BaseModel):
    dry_run: DryRun | None = None
    refusal: Refusal | None = None


class CommitIn(BaseModel):
    reservation_id: str = Field(min_length=1, max_length=40)
    token: str = Field(min_length=1, max_length=200)
    idempotency_key: str = Field(min_length=1, max_length=100)
    consent: StrictBool


class CommitOut(BaseModel):
    outcome: Outcome | None = None
    refusal: Refusal | None = None


class CancelDryRunIn(BaseModel):
    reservation_id: str = Field(min_length=1, max_length=40)


class ListIn(BaseModel):
    pass


class ListOut(BaseModel):
    reservations: list[Reservation]


def service_for(ctx: AgentContext) -> ReservationProvider:
    """The service of the active region pack the root handed in; its clock is the request's "now"."""
    now = ctx.now.astimezone(UTC)
    return ctx.reservations(lambda: now)


def _refusal(exc: ReservationError) -> Refusal:
    return Refusal(code=exc.code, field=exc.field, details=dict(exc.details or {}))


def _dry_run(inp: DryRunIn, state: AgentState, ctx: AgentContext) -> DryRunOut:
    try:
        return DryRunOut(dry_run=service_for(ctx).dry_run(ctx.request.user_id, inp.request))
    except ReservationError as exc:
        return DryRunOut(refusal=_refusal(exc))


def _commit(action: str, inp: CommitIn, ctx: AgentContext) -> CommitOut:
    """Confirm a reservation or a cancellation: the same gate (token, consent, idempotency key) either way."""
    service = service_for(ctx)
    call = service.confirm if action == "confirm" else service.cancel
    try:
        out = call(
            ctx.request.user_id,
            inp.reservation_id,
            token=inp.token,
            idempotency_key=inp.idempotency_key,
            consent=inp.consent,
        )
    except ReservationError as exc:
        return CommitOut(refusal=_refusal(exc))
    return CommitOut(outcome=out)


def _confirm(inp: CommitIn, state: AgentState, ctx: AgentContext) -> CommitOut:
    return _commit("confirm", inp, ctx)


def _cancel_dry_run(inp: CancelDryRunIn, state: AgentState, ctx: AgentContext) -> DryRunOut:
    try:
        return DryRunOut(dry_run=service_for(ctx).cancel_dry_run(ctx.request.user_id, inp.reservation_id))
    except ReservationError as exc:
        return DryRunOut(refusal=_refusal(exc))


def _cancel(inp: CommitIn, state: AgentState, ctx: AgentContext) -> CommitOut:
    return _commit("cancel", inp, ctx)


def _list(inp: ListIn, state: AgentState, ctx: AgentContext) -> ListOut:
    return ListOut(reservations=service_for(ctx).reservations_of(ctx.request.user_id))


def actions() -> list[ActionSpec]:
    common: dict[str, Any] = {"kind": "internal", "preconditions": (), "cacheable": False}
    return [
        ActionSpec(
            name=ActionName.RESERVATIONS_DRY_RUN,
            description="Check a reservation against the venue's terms and hold nothing: the reservation as it "
            "would be (price and its source, cancellation policy, what is unverified) and a single-use token",
            cost="low",
            side_effect="writes_db",
            idempotent=False,
            input_model=DryRunIn,
            output_model=DryRunOut,
            fn=_dry_run,
            **common,
        ),
        ActionSpec(
            name=ActionName.RESERVATIONS_CONFIRM,
            description="Confirm a dry run with its token, the person's consent and an idempotency key (a repeated "
            "key replays the first outcome)",
            cost="low",
            side_effect="writes_db",
            idempotent=True,
            input_model=CommitIn,
            output_model=CommitOut,
            fn=_confirm,
            **common,
        ),
        ActionSpec(
            name=ActionName.RESERVATIONS_CANCEL_DRY_RUN,
            description="What cancelling one's own confirmed reservation costs now (policy, fee), and a token",
            cost="low",
            side_effect="writes_db",
            idempotent=False,
            input_model=CancelDryRunIn,
            output_model=DryRunOut,
            fn=_cancel_dry_run,
            **common,
        ),
        ActionSpec(
            name=ActionName.RESERVATIONS_CANCEL,
            description="Cancel with the cancellation dry run's token, consent and an idempotency key",
            cost="low",
            side_effect="writes_db",
            idempotent=True,
            input_model=CommitIn,
            output_model=CommitOut,
            fn=_cancel,
            **common,
        ),
        ActionSpec(
            name=ActionName.RESERVATIONS_LIST,
            description="The request's user's reservations with their status and history (expired dry runs "
            "are marked failed)",
            cost="low",
            side_effect="writes_db",
            idempotent=True,
            input_model=ListIn,
            output_model=ListOut,
            fn=_list,
            **common,
        ),
    ]
