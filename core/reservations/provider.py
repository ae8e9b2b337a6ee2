"""What every caller (pages, agent, API, CLI, the half-day planner) needs of a reservation provider. The mock
``ReservationService`` is one; a real booking API would be another class with these methods and the same gates:
a dry run that holds nothing, then a confirmation with the dry run's single-use, user-bound token, the person's
consent and an idempotency key; cancellation as its own dry run and confirmation; a user reads only their own."""

from __future__ import annotations

from datetime import date, time
from typing import Protocol, runtime_checkable

from core.clock import Clock
from core.models.reservations import DryRun, Outcome, Reservation, ReservationRequest


@runtime_checkable
class ReservationProvider(Protocol):
    def dry_run(self, user_id: str, request: ReservationRequest) -> DryRun: ...

    def confirm(
        self, user_id: str, reservation_id: str, *, token: str, idempotency_key: str, consent: bool
    ) -> Outcome: ...

    def cancel_dry_run(self, user_id: str, reservation_id: str) -> DryRun: ...

    def cancel(
        self, user_id: str, reservation_id: str, *, token: str, idempotency_key: str, consent: bool
    ) -> Outcome: ...

    def reservations_of(self, user_id: str) -> list[Reservation]: ...

    def get(self, user_id: str, reservation_id: str) -> Reservation: ...

    def free_slots(self, item_id: str, day: date) -> list[time]: ...


class ReservationsAt(Protocol):
    """A region's reservation service on ``clock`` (a request's moment), as the composition root hands it to a domain:
    called by the step that books, so a request that books nothing never opens the database."""

    def __call__(self, clock: Clock) -> ReservationProvider: ...
