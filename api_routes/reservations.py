"""The reservations over HTTP: the dry run, the confirmation with the dry run's token and the person's consent, the
cancellation and the list, all bound to the API key's user (``core.app.reservations``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, ConfigDict, Field, StrictBool

from api_routes.shared import AUTH_ERRORS, BODY_ERRORS, RESERVATION_ERRORS, context_for, current_user
from core.app import reservations as reservations_app
from core.models.reservations import DryRun, Outcome, Reservation, ReservationRequest

router = APIRouter()


class ConfirmBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=200, description="the dry run's token")
    idempotency_key: str = Field(min_length=1, max_length=100, description="the same key for every retry")
    consent: StrictBool = Field(description="the person agreed to exactly what the dry run showed")


class CancelBody(BaseModel):
    """Without a token: the cancellation's dry run (policy, fee, token). With one: the cancellation."""

    model_config = ConfigDict(extra="forbid")

    token: str | None = Field(default=None, min_length=1, max_length=200)
    idempotency_key: str | None = Field(
        default=None, min_length=1, max_length=100, description="default: one key per token (retries replay)"
    )
    consent: StrictBool = False


@router.post(
    "/reservations",
    response_model=DryRun,
    tags=["reservations"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **RESERVATION_ERRORS},
)
def reservation_dry_run(request: ReservationRequest, user: str = Depends(current_user)) -> Any:
    """The quote: what would be reserved (status ``quoted``), its price and source, the cancellation policy and a
    single-use token. Nothing is held and nothing is listed; POST /reservations/{id}/confirm makes the reservation
    ``pending`` and submits it (``confirmed``, or ``failed`` with its reason when the slot filled up meanwhile)."""
    return reservations_app.dry_run(context_for(user), request)


@router.post(
    "/reservations/{reservation_id}/confirm",
    response_model=Outcome,
    tags=["reservations"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **RESERVATION_ERRORS},
)
def reservation_confirm(
    reservation_id: Annotated[str, Path(max_length=40)], body: ConfirmBody, user: str = Depends(current_user)
) -> Any:
    """Confirm a quote with its token and the person's consent: only now is the reservation made ``pending`` (under
    the quote's id) and submitted; the answer is its outcome, its history reading pending then the venue's answer."""
    return reservations_app.confirm(
        context_for(user), reservation_id, token=body.token, idempotency_key=body.idempotency_key, consent=body.consent
    )


@router.post(
    "/reservations/{reservation_id}/cancel",
    response_model=DryRun | Outcome,
    tags=["reservations"],
    responses={**BODY_ERRORS, **AUTH_ERRORS, **RESERVATION_ERRORS},
)
def reservation_cancel(
    reservation_id: Annotated[str, Path(max_length=40)], body: CancelBody, user: str = Depends(current_user)
) -> Any:
    return reservations_app.cancel(
        context_for(user),
        reservation_id,
        token=body.token,
        idempotency_key=body.idempotency_key,
        consent=body.consent,
    )


@router.get("/reservations", response_model=list[Reservation], tags=["reservations"], responses=AUTH_ERRORS)
def reservation_list(user: str = Depends(current_user)) -> Any:
    return reservations_app.reservations_of(context_for(user))
