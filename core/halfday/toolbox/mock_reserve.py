"""Stage 7: a plan's bookable step through the reservation service's dry run (a quote that holds nothing; consent
and confirmation follow through its gates), behind the payment side's breaker. The mock: a quote from the pack's
terms that is stored nowhere and confirms nothing."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import sqlalchemy.exc

from core.clock import Clock
from core.config import HalfDayToolName
from core.errors import InputError, ProviderUnavailable
from core.halfday.tools import MOCK, ToolDeps, ToolSpec
from core.models.halfday.plans import ReserveInput
from core.models.region import RegionPack
from core.models.reservations import DryRun, Quote, Reservation, ReservationRequest
from core.reservations.catalog import item_for

NAME = HalfDayToolName.MOCK_RESERVE
#: what counts against the reservation (payment) side: the service or its database not answering
PAYMENT_FAILURES: tuple[type[BaseException], ...] = (
    ProviderUnavailable,
    OSError,
    TimeoutError,
    sqlalchemy.exc.OperationalError,
)


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=7,
        input_model=ReserveInput,
        output_model=DryRun,
        fn=_reserve(deps),
        mock=mock_reserve(deps.provider.region, clock=deps.clock),
    )


def _reserve(deps: ToolDeps) -> Callable[[ReserveInput], DryRun]:
    def reserve(inp: ReserveInput) -> DryRun:
        """Through the payment side's breaker: a reservation service that keeps failing is refused at once
        (``BREAKER_OPEN``) for its cool-down; a refusal of the person's request (a full slot) is no failure."""
        region = deps.provider.region.name
        breaker = deps.breakers.breaker("payment", region, settings=deps.settings, counts=PAYMENT_FAILURES)
        with breaker.calling():
            return deps.reservations.dry_run(
                inp.user_id,
                ReservationRequest(
                    item_id=inp.place_id, date=inp.date, time=inp.time, party_size=inp.party_size, contact=inp.contact
                ),
            )

    return reserve


def mock_reserve(pack: RegionPack, *, clock: Clock) -> Callable[[ReserveInput], DryRun]:
    """A quote from the pack's terms that holds nothing and is stored nowhere: its token confirms nothing."""

    def reserve(inp: ReserveInput) -> DryRun:
        item = item_for(pack, inp.place_id)
        if item is None:
            raise InputError("that place takes no reservations", field="place_id", code="NOT_BOOKABLE")
        price = item.price_per_person
        now = clock()
        reservation = Reservation(
            id="mock-" + uuid.uuid4().hex[:16],
            user_id=inp.user_id,
            item_id=item.id,
            item_name=item.name,
            date=inp.date,
            time=inp.time,
            party_size=inp.party_size,
            contact=inp.contact,
            notes=MOCK,
            status="quoted",
            quote=Quote(
                price_per_person=price,
                total=None if price is None else round(price * inp.party_size, 2),
                source=f"{MOCK}: region pack {pack.name}: price_per_person" if price is not None else "unknown",
            ),
            policy=item.terms.cancellation,
            created_at=now,
        )
        return DryRun(
            action="reserve",
            reservation=reservation,
            token=f"{MOCK}-{uuid.uuid4().hex}",
            expires_at=now,  # already spent: a mock quote is never confirmed
            unverified=["MOCK_RESERVATION", "MOCK_VENUE"],
        )

    return reserve
