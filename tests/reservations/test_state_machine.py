"""Any sequence of calls (hypothesis' stateful testing): no reservation reaches an illegal state, no token makes a
second change, a slot never holds more than its capacity or less than its confirmed reservations."""

from __future__ import annotations

import tempfile
from datetime import UTC, date, datetime, time

import sqlalchemy as sa
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from core.models.reservations import TRANSITIONS, ReservationRequest
from core.packs.loader import load_region
from core.reservations import store
from core.reservations.catalog import catalogue
from core.reservations.service import ReservationError, ReservationService
from tests.support.db import db_at

PACK = load_region("shanghai")
ITEM = next(i for i in catalogue(PACK) if i.category == "restaurant")
USERS = ("alice", "bob")
SLOTS = (time(18, 30), time(19, 0))


class Reservations(RuleBasedStateMachine):
    dry_runs = Bundle("dry_runs")

    def __init__(self) -> None:
        super().__init__()
        folder = tempfile.mkdtemp(prefix="omni-stateful-")
        self.service = ReservationService(
            pack=PACK,
            engine=store.engine_for(db_at(f"sqlite:///{folder}/r.db")),
            clock=lambda: datetime(2026, 12, 1, 1, 0, tzinfo=UTC),
        )
        self.changes: dict[tuple[str, str], int] = {}  # (reservation, action) -> successful, non-replayed changes

    @rule(target=dry_runs, user=st.sampled_from(USERS), at=st.sampled_from(SLOTS), party=st.integers(1, 4))
    def reserve_dry_run(self, user, at, party):
        try:
            dry = self.service.dry_run(
                user, ReservationRequest(item_id=ITEM.id, date=date(2026, 12, 5), time=at, party_size=party)
            )
        except ReservationError as exc:
            assert exc.code == "SLOT_FULL"
            return None
        return (user, dry)

    @rule(run=dry_runs, as_user=st.sampled_from(USERS), key=st.sampled_from(["k1", "k2", "k3"]), consent=st.booleans())
    def confirm(self, run, as_user, key, consent):
        if run is None:
            return
        owner, dry = run
        call = self.service.confirm if dry.action == "reserve" else self.service.cancel
        try:
            out = call(
                as_user, dry.reservation.id, token=dry.token, idempotency_key=f"{key}-{dry.token[:6]}", consent=consent
            )
        except ReservationError as exc:
            assert exc.code in {"CONSENT_REQUIRED", "TOKEN_INVALID"}
            return
        assert as_user == owner and consent  # a change only by the owner, with consent
        if not out.replayed:
            k = (dry.reservation.id, dry.action)
            self.changes[k] = self.changes.get(k, 0) + 1

    @rule(target=dry_runs, run=dry_runs)
    def cancel_dry_run(self, run):
        if run is None:
            return None
        owner, dry = run
        try:
            return (owner, self.service.cancel_dry_run(owner, dry.reservation.id))
        except ReservationError as exc:
            assert exc.code in {"NOT_CANCELLABLE", "NOT_FOUND"}  # failed, cancelled; or a quote never confirmed
            return None

    @invariant()
    def every_reservation_followed_the_rules(self):
        assert all(n == 1 for n in self.changes.values())  # one change per reservation and action, ever
        for user in USERS:
            for r in self.service.reservations_of(user):
                moves = [(t.from_status, t.to_status) for t in r.transitions]
                assert moves[0] == (None, "pending")  # made by a confirmation, never by a dry run
                assert r.status != "pending"  # submitted in the same transaction: accepted or refused
                for frm, to in moves[1:]:
                    assert to in TRANSITIONS[frm]
                assert moves[-1][1] == r.status

    @invariant()
    def slots_count_exactly_the_confirmed(self):
        confirmed: dict[str, int] = {}
        for user in USERS:
            for r in self.service.reservations_of(user):
                if r.status == "confirmed":
                    confirmed[r.time.strftime("%H:%M")] = confirmed.get(r.time.strftime("%H:%M"), 0) + 1
        with self.service.engine.connect() as conn:
            rows = conn.execute(sa.select(store.slots.c.slot_time, store.slots.c.booked)).all()
        booked = {row.slot_time: row.booked for row in rows if row.booked}
        assert booked == confirmed
        assert all(n <= ITEM.terms.capacity_per_slot for n in booked.values())


# 12 runs of up to 20 steps: every rule and every user meet several times (derandomized, so the same runs each time)
Reservations.TestCase.settings = settings(max_examples=12, stateful_step_count=20, deadline=None, derandomize=True)
TestReservations = Reservations.TestCase
