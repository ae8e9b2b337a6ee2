"""What the reservation service takes and returns (pydantic at the boundary; codes, not sentences)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, tzinfo
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.models.common import CleanStr, PlaceName

#: ``quoted`` is a reserve dry run's quote only (``DryRun.reservation``): not a reservation yet, never stored as one,
#: never listed. A reservation is made ``pending`` when the person confirms the quote, and submitted to the venue.
Status = Literal["quoted", "pending", "confirmed", "failed", "cancelled"]
#: the only moves a reservation can make (it starts ``pending``, made by the confirmation)
TRANSITIONS: dict[str, set[str]] = {"pending": {"confirmed", "failed"}, "confirmed": {"cancelled"}}


class ReservationRequest(BaseModel):
    """What a person asks to reserve."""

    model_config = ConfigDict(str_strip_whitespace=True, extra="forbid")

    item_id: CleanStr = Field(min_length=1, max_length=80)
    date: date
    time: time
    party_size: int = Field(ge=1, le=20)
    contact: PlaceName = Field(default="", description="a name or phone number for the venue")
    notes: CleanStr = Field(default="", max_length=500)


class Quote(BaseModel):
    price_per_person: float | None
    total: float | None
    currency: str = "CNY"
    source: str = Field(description="where the price comes from (the pack's price_per_person), or 'unknown'")


class CancellationPolicy(BaseModel):
    free_until_hours: int = Field(ge=0, description="free cancellation until this many hours before the slot")
    fee_share: float = Field(ge=0, le=1, description="share of the total charged after that")


class Transition(BaseModel):
    from_status: Status | None
    to_status: Status
    at: datetime
    reason: str


class Reservation(BaseModel):
    id: str
    user_id: str
    item_id: str
    item_name: str
    date: date
    time: time
    party_size: int
    contact: str
    notes: str
    status: Status
    quote: Quote
    policy: CancellationPolicy
    created_at: datetime
    transitions: list[Transition] = Field(default_factory=list)


class DryRun(BaseModel):
    """What will happen if the person confirms: shown before any consent is asked. A reserve dry run is a quote
    (``reservation.status`` ``quoted``, no transitions): nothing is held and nothing is listed; confirming it makes
    the reservation (under the same id) ``pending`` and submits it. A cancel dry run shows the reservation as it is."""

    action: Literal["reserve", "cancel"]
    reservation: Reservation
    token: str = Field(description="single-use, bound to this user and quote (or reservation); give it back to confirm")
    expires_at: datetime
    fee: float | None = Field(default=None, description="for a cancellation: what it costs now")
    unverified: list[str] = Field(default_factory=list, description="facts the mock cannot check (codes)")
    suggestions: list[time] = Field(default_factory=list, description="free slots near the one asked for")


class Outcome(BaseModel):
    """The answer to a confirmation: the reservation as it now is."""

    reservation: Reservation
    replayed: bool = Field(default=False, description="the same idempotency key was confirmed before")
    fee: float | None = Field(
        default=None,
        ge=0,
        description="for a cancellation: the fee charged, by the policy at the moment it was cancelled (CNY); "
        "None for a booking",
    )


class Terms(BaseModel):
    """How one kind of item is booked."""

    slot_minutes: int = Field(default=30, ge=5, le=240)
    first_slot: time = time(10, 0)
    last_slot: time = time(20, 0)
    capacity_per_slot: int = Field(default=20, ge=1, description="parties (tables, ticket batches) per slot")
    max_party: int = Field(default=10, ge=1, le=20)
    lead_time_hours: int = Field(default=2, ge=0, description="how long before the slot a booking closes")
    cancellation: CancellationPolicy = CancellationPolicy(free_until_hours=24, fee_share=0.0)


class BookableItem(BaseModel):
    id: str
    name: str
    category: str
    price_per_person: float | None
    terms: Terms

    def slots(self) -> list[time]:
        start = datetime.combine(date(2000, 1, 1), self.terms.first_slot)
        end = datetime.combine(date(2000, 1, 1), self.terms.last_slot)
        out = []
        while start <= end:
            out.append(start.time())
            start += timedelta(minutes=self.terms.slot_minutes)
        return out

    def next_slot(self, at: time) -> time:
        """The first slot at or after ``at`` (the last slot when ``at`` is later than all of them)."""
        slots = self.slots()
        return next((s for s in slots if s >= at), slots[-1])

    def closes_at(self, day: date, slot: time, zone: tzinfo) -> datetime:
        """When bookings for ``slot`` on ``day`` close: the lead time before it starts."""
        return datetime.combine(day, slot, tzinfo=zone) - timedelta(hours=self.terms.lead_time_hours)
