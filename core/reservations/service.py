"""The reservation service: dry run, then consent, then a confirmation that spends a single-use, user-bound
token under an idempotency key. The same gates for every caller (pages, agent, API, CLI).

The order is the half-day document's (stage 7): the dry run is a *quote* (the venue's terms checked, the price,
the token; stored in ``reservation_quotes``, holding nothing, never listed); only the confirmation makes the
reservation ``pending`` (under the quote's id) and submits it to the venue, which accepts it (``confirmed``) or
refuses it (``failed``, ``SLOT_FULL`` when the slot filled up meanwhile). A reservation moves only
``pending -> confirmed | failed`` and ``confirmed -> cancelled``; each move is stored with its time and reason, so
its history reads pending, then the venue's answer. The mock venue has a capacity per slot: the dry run already
names free slots nearby when the asked one is full.
"""

from __future__ import annotations

import copy
import hashlib
import secrets
import uuid
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from core.clock import Clock
from core.config import Settings
from core.errors import InputError
from core.models.region import RegionPack
from core.models.reservations import (
    TRANSITIONS,
    BookableItem,
    CancellationPolicy,
    DryRun,
    Outcome,
    Quote,
    Reservation,
    ReservationRequest,
    Transition,
)
from core.reservations import store
from core.reservations.catalog import item_for
from core.stores.db import Database


class ReservationError(InputError):
    """A reservation the rules refuse; ``code`` says which rule (the edge words it for people)."""

    code = "RESERVATION_REFUSED"


def _key_reused() -> ReservationError:
    return _refuse(
        "IDEMPOTENCY_KEY_REUSED", "this idempotency key was used for another request", field="idempotency_key"
    )


class _TokenNotSpent(Exception):
    """The token matched no unspent row: a retry to replay, or a refusal."""


def _refuse(code: str, message: str, *, field: str | None = None, **details: Any) -> ReservationError:
    return ReservationError(message, field=field, code=code, details=details or None)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class ReservationService:
    """Reservations in ``pack``'s venues, stored in ``engine``."""

    def __init__(
        self,
        *,
        pack: RegionPack,
        engine: Engine,
        token_ttl_s: float = 600.0,
        clock: Clock,
    ) -> None:
        self.pack = pack
        self.engine = engine
        self.token_ttl = timedelta(seconds=token_ttl_s)
        self.clock = clock
        self.zone = ZoneInfo(pack.timezone)

    @classmethod
    def from_settings(cls, settings: Settings, pack: RegionPack, *, clock: Clock) -> ReservationService:
        """The service on the settings' database: the composition root's to make (core.app), never a domain's."""
        return cls(
            pack=pack,
            engine=store.open_engine(Database.from_settings(settings)),
            token_ttl_s=settings.dry_run_ttl_s,
            clock=clock,
        )

    def at(self, clock: Clock) -> ReservationService:
        """This service on another clock (one request's): the same pack, database and token lifetime; the shared
        service is never re-clocked, so two requests at two moments cannot see each other's "now"."""
        view = copy.copy(self)
        view.clock = clock
        return view

    # ---- reading ------------------------------------------------------------------------------------
    def _load(self, conn: Connection, reservation_id: str) -> Reservation | None:
        row = conn.execute(sa.select(store.reservations).where(store.reservations.c.id == reservation_id)).first()
        if row is None:
            return None
        moves = conn.execute(
            sa.select(store.transitions)
            .where(store.transitions.c.reservation_id == reservation_id)
            .order_by(store.transitions.c.id)
        ).all()
        return _reservation(row, moves)

    def item_of(self, reservation_id: str) -> str | None:
        """The venue a reservation (or a quote, to be confirmed) is for, whoever made it (to find the service that
        owns the venue; the gates then check the user)."""
        with store.transaction(self.engine) as conn:
            found = self._load(conn, reservation_id)
            if found is not None:
                return found.item_id
            quoted = conn.execute(
                sa.select(store.quotes.c.item_id).where(store.quotes.c.id == reservation_id)
            ).scalar_one_or_none()
        return None if quoted is None else str(quoted)

    def get(self, user_id: str, reservation_id: str) -> Reservation:
        """The user's own reservation; another user's is "not found", never "forbidden"."""
        with store.transaction(self.engine) as conn:
            found = self._load(conn, reservation_id)
        if found is None or found.user_id != user_id:
            raise _refuse("NOT_FOUND", "no such reservation", field="reservation_id")
        return found

    def reservations_of(self, user_id: str) -> list[Reservation]:
        """The user's reservations: what they confirmed (a dry run's quote is not one, confirmed or not)."""
        with store.transaction(self.engine) as conn:
            rows = conn.execute(
                sa.select(store.reservations)
                .where(store.reservations.c.user_id == user_id)
                .order_by(store.reservations.c.slot_date, store.reservations.c.slot_time, store.reservations.c.id)
            ).all()
            moves = conn.execute(
                sa.select(store.transitions)
                .where(store.transitions.c.reservation_id.in_([r.id for r in rows]))
                .order_by(store.transitions.c.id)
            ).all()
        by_reservation: dict[str, list[Any]] = {}
        for m in moves:
            by_reservation.setdefault(m.reservation_id, []).append(m)
        return [_reservation(row, by_reservation.get(row.id, [])) for row in rows]

    # ---- availability -------------------------------------------------------------------------------
    def _booked(self, conn: Connection, item: BookableItem, day: date) -> dict[str, int]:
        rows = conn.execute(
            sa.select(store.slots.c.slot_time, store.slots.c.booked).where(
                store.slots.c.item_id == item.id, store.slots.c.slot_date == day
            )
        ).all()
        return {r.slot_time: r.booked for r in rows}

    def free_slots(self, item_id: str, day: date) -> list[time]:
        item = self._item(item_id)
        with store.transaction(self.engine) as conn:
            booked = self._booked(conn, item, day)
        return [s for s in item.slots() if booked.get(s.strftime("%H:%M"), 0) < item.terms.capacity_per_slot]

    def item(self, item_id: str) -> BookableItem | None:
        """The bookable venue ``item_id`` of this service's pack (None: not bookable here)."""
        return item_for(self.pack, item_id)

    def bookable_at(self, item: BookableItem, day: date, slot: time) -> bool:
        """Whether ``slot`` on ``day`` can still be booked now (the venue's lead time): the rule the dry run
        enforces, for every face that proposes a slot."""
        return item.closes_at(day, slot, self.zone) >= self.clock()

    def earliest_slot(self, item: BookableItem, *, days: int = 7) -> tuple[date, time]:
        """Today's first slot that can still be booked, else the next day's (within ``days``; past that, tomorrow's
        first slot, which the dry run will refuse with its reason)."""
        today = self.clock().astimezone(self.zone).date()
        for offset in range(days + 1):
            day = today + timedelta(days=offset)
            for slot in item.slots():
                if self.bookable_at(item, day, slot):
                    return day, slot
        return today + timedelta(days=1), item.slots()[0]

    def _item(self, item_id: str) -> BookableItem:
        item = item_for(self.pack, item_id)
        if item is None:
            raise _refuse("NOT_BOOKABLE", f"'{item_id}' cannot be reserved in {self.pack.name}", field="item_id")
        return item

    # ---- the gates ----------------------------------------------------------------------------------
    def in_venue_zone(self, request: ReservationRequest) -> ReservationRequest:
        """The request with its date and time in the venue's zone, without an offset: ``12:00+08:00`` at a Shanghai
        venue is its 12:00 slot, ``04:00Z`` the same; a time without an offset is the venue's already."""
        if request.time.tzinfo is None or request.time.utcoffset() is None:
            return request.model_copy(update={"time": request.time.replace(tzinfo=None)})
        try:
            local = datetime.combine(request.date, request.time).astimezone(self.zone)
        except OverflowError:  # 0001-01-01 00:00+00:22 or 9999-12-31 23:59-05:00: no such moment in the venue's zone
            raise InputError(
                f"{request.date.isoformat()} {request.time.isoformat()} has no date in the venue's time zone",
                field="date",
            ) from None
        return request.model_copy(update={"date": local.date(), "time": local.time().replace(tzinfo=None)})

    def dry_run(self, user_id: str, request: ReservationRequest) -> DryRun:
        """Check the request against the venue's terms and quote it: the quote (status ``quoted``, under the id the
        reservation will have) and a single-use token bound to this user. Nothing is held and no reservation is
        made; the confirmation does that. A time with an offset (12:00+08:00) is read in the venue's zone."""
        request = self.in_venue_zone(request)
        item = self._item(request.item_id)
        terms = item.terms
        if request.time not in item.slots():
            raise _refuse(
                "NOT_A_SLOT",
                f"{item.name} takes reservations every {terms.slot_minutes} min from "
                f"{terms.first_slot:%H:%M} to {terms.last_slot:%H:%M}",
                field="time",
            )
        if request.party_size > terms.max_party:
            raise _refuse("PARTY_TOO_LARGE", f"at most {terms.max_party} people per booking", field="party_size")
        now = self.clock()
        if not self.bookable_at(item, request.date, request.time):
            raise _refuse(
                "TOO_LATE", f"bookings close {terms.lead_time_hours} h before the slot", field="time",
                closes_at=item.closes_at(request.date, request.time, self.zone).isoformat(),
            )  # fmt: skip
        free = self.free_slots(item.id, request.date)
        suggestions = sorted(free, key=lambda s: abs(_minutes(s) - _minutes(request.time)))[:3]
        if request.time not in free:
            raise _refuse(
                "SLOT_FULL", f"{item.name} is full at {request.time:%H:%M}", field="time",
                suggestions=[s.strftime("%H:%M") for s in suggestions],
            )  # fmt: skip
        price = item.price_per_person
        quote = Quote(
            price_per_person=price,
            total=None if price is None else round(price * request.party_size, 2),
            source=f"region pack {self.pack.name}: price_per_person" if price is not None else "unknown",
        )
        reservation_id = "r-" + uuid.uuid4().hex[:20]
        token, expires = secrets.token_urlsafe(24), now + self.token_ttl
        with store.transaction(self.engine) as conn:
            conn.execute(
                store.quotes.insert().values(
                    id=reservation_id,
                    user_id=user_id,
                    item_id=item.id,
                    item_name=item.name,
                    slot_date=request.date,
                    slot_time=request.time.strftime("%H:%M"),
                    party_size=request.party_size,
                    contact=request.contact,
                    notes=request.notes,
                    quote=quote.model_dump(),
                    policy=terms.cancellation.model_dump(),
                    created_at=now,
                    token_hash=_hash(token),
                    expires_at=expires,
                    used_at=None,
                )
            )
            row = conn.execute(sa.select(store.quotes).where(store.quotes.c.id == reservation_id)).one()
        reservation = _reservation(row, [], status="quoted")
        unverified = ["MOCK_VENUE"] + ([] if price is not None else ["PRICE_UNKNOWN"])
        return DryRun(
            action="reserve", reservation=reservation, token=token, expires_at=expires, unverified=unverified,
            suggestions=[s for s in suggestions if s != request.time],
        )  # fmt: skip

    def confirm(self, user_id: str, reservation_id: str, *, token: str, idempotency_key: str, consent: bool) -> Outcome:
        """In one transaction: spend the quote's token, make the reservation ``pending`` and submit it (the slot
        taken: ``confirmed``; full: ``failed``); a repeated key returns the first outcome."""
        return self._commit(user_id, reservation_id, "reserve", token, idempotency_key, consent)

    def cancel_dry_run(self, user_id: str, reservation_id: str) -> DryRun:
        """What cancelling costs now (the policy, the fee), and a token to confirm it."""
        current = self.get(user_id, reservation_id)
        if current.status != "confirmed":
            raise _refuse(
                "NOT_CANCELLABLE", f"a {current.status} reservation cannot be cancelled", field="reservation_id"
            )
        now = self.clock()
        with store.transaction(self.engine) as conn:
            token, expires = self._issue(conn, user_id, reservation_id, "cancel", now)
        return DryRun(
            action="cancel", reservation=current, token=token, expires_at=expires, fee=self._fee(current, now),
            unverified=["MOCK_VENUE"],
        )  # fmt: skip

    def cancel(self, user_id: str, reservation_id: str, *, token: str, idempotency_key: str, consent: bool) -> Outcome:
        return self._commit(user_id, reservation_id, "cancel", token, idempotency_key, consent)

    # ---- inside the gates ---------------------------------------------------------------------------
    def _fee(self, reservation: Reservation, now: datetime) -> float:
        starts = datetime.combine(reservation.date, reservation.time, tzinfo=self.zone)
        free_until = starts - timedelta(hours=reservation.policy.free_until_hours)
        if now <= free_until or reservation.quote.total is None:
            return 0.0
        return round(reservation.quote.total * reservation.policy.fee_share, 2)

    def _charged(self, reservation: Reservation) -> float | None:
        """The fee of a cancelled reservation: its policy at the moment it was cancelled (None if it never was)."""
        at = next((t.at for t in reversed(reservation.transitions) if t.to_status == "cancelled"), None)
        return None if at is None else self._fee(reservation, at)

    def _issue(
        self, conn: Connection, user_id: str, reservation_id: str, action: str, now: datetime
    ) -> tuple[str, datetime]:
        """A cancellation's token (a booking's is its quote's)."""
        token = secrets.token_urlsafe(24)
        expires = now + self.token_ttl
        conn.execute(
            store.tokens.insert().values(
                token_hash=_hash(token),
                user_id=user_id,
                reservation_id=reservation_id,
                action=action,
                expires_at=expires,
                used_at=None,
            )  # fmt: skip
        )
        return token, expires

    def _move(self, conn: Connection, rid: str, frm: str | None, to: str, reason: str, now: datetime) -> None:
        if frm is not None and to not in TRANSITIONS.get(frm, set()):
            raise _refuse("ILLEGAL_TRANSITION", f"{frm} cannot become {to}")
        if frm is not None:
            moved = conn.execute(
                store.reservations.update()
                .where(store.reservations.c.id == rid, store.reservations.c.status == frm)
                .values(status=to)
            ).rowcount
            if moved != 1:
                raise _refuse("STATE_CHANGED", "the reservation changed meanwhile", field="reservation_id")
        conn.execute(
            store.transitions.insert().values(reservation_id=rid, from_status=frm, to_status=to, at=now, reason=reason)
        )

    def _commit(self, user_id: str, rid: str, action: str, token: str, key: str, consent: bool) -> Outcome:
        if consent is not True:
            raise _refuse("CONSENT_REQUIRED", "the person has not agreed to this", field="consent")
        if not key or len(key) > 100:
            raise InputError("an idempotency key of 1 to 100 characters is required", field="idempotency_key")
        now = self.clock()
        try:
            with store.transaction(self.engine) as conn:
                replay = self._earlier(conn, user_id, rid, action, key)
                if replay is not None:  # a retry: the first outcome
                    return replay
                if not self._spend(conn, user_id, rid, action, token, now):
                    raise _TokenNotSpent  # spent meanwhile, perhaps by this very retry racing in: then it is a replay
                if action == "reserve":  # the person confirmed: now the reservation is made, pending
                    self._create(conn, rid, now)
                conn.execute(
                    store.confirmations.insert().values(
                        idempotency_key=key, user_id=user_id, reservation_id=rid, action=action
                    )
                )
                return self._apply(conn, rid, action, now)
        except (sa.exc.IntegrityError, _TokenNotSpent) as lost:  # another request won the race: look again
            with store.transaction(self.engine) as conn:
                replay = self._earlier(conn, user_id, rid, action, key)
            if replay is not None:
                return replay
            if isinstance(lost, sa.exc.IntegrityError):
                raise _key_reused() from None
            raise _refuse(
                "TOKEN_INVALID", "the confirmation token is unknown, spent, expired or not yours", field="token"
            ) from None

    def _spend(self, conn: Connection, user_id: str, rid: str, action: str, token: str, now: datetime) -> bool:
        """Spend the token by one conditional UPDATE (it matches only an unspent, unexpired token of this user):
        a booking's on its quote, a cancellation's in the tokens table."""
        table = store.quotes if action == "reserve" else store.tokens
        match = [table.c.token_hash == _hash(token), table.c.user_id == user_id, table.c.used_at.is_(None),
                 table.c.expires_at > now]  # fmt: skip
        if action == "reserve":
            match.append(store.quotes.c.id == rid)
        else:
            match += [store.tokens.c.reservation_id == rid, store.tokens.c.action == action]
        return conn.execute(table.update().where(*match).values(used_at=now)).rowcount == 1

    def _create(self, conn: Connection, rid: str, now: datetime) -> None:
        """The confirmed quote becomes the reservation, ``pending`` (its id is the quote's: a primary key, so one
        quote makes one reservation at most)."""
        q = conn.execute(sa.select(store.quotes).where(store.quotes.c.id == rid)).one()
        conn.execute(
            store.reservations.insert().values(
                id=q.id,
                user_id=q.user_id,
                item_id=q.item_id,
                item_name=q.item_name,
                slot_date=q.slot_date,
                slot_time=q.slot_time,
                party_size=q.party_size,
                contact=q.contact,
                notes=q.notes,
                status="pending",
                quote=q.quote,
                policy=q.policy,
                created_at=now,
            )  # fmt: skip
        )
        self._move(conn, rid, None, "pending", "confirmed by the user; submitted to the venue", now)

    def _earlier(self, conn: Connection, user_id: str, rid: str, action: str, key: str) -> Outcome | None:
        """The outcome of an earlier confirmation under ``key`` (a replay), None if there was none; a key the user
        already spent on another request is refused."""
        earlier = conn.execute(
            sa.select(store.confirmations).where(
                store.confirmations.c.user_id == user_id, store.confirmations.c.idempotency_key == key
            )
        ).first()
        if earlier is None:
            return None
        if earlier.reservation_id != rid or earlier.action != action:
            raise _key_reused()
        found = self._load(conn, rid)
        assert found is not None
        return Outcome(reservation=found, replayed=True, fee=self._charged(found) if action == "cancel" else None)

    def _apply(self, conn: Connection, rid: str, action: str, now: datetime) -> Outcome:
        """Inside the confirming transaction: take the slot (or fail), or cancel and give the slot back."""
        current = self._load(conn, rid)
        assert current is not None
        fee: float | None = None
        if action == "reserve":
            if self._take_slot(conn, current):  # the mock venue accepts it while the slot has room
                self._move(conn, rid, "pending", "confirmed", "accepted by the venue", now)
            else:  # the slot filled up between the quote and the confirmation
                self._move(conn, rid, "pending", "failed", "SLOT_FULL", now)
        else:
            fee = self._fee(current, now)
            self._move(conn, rid, "confirmed", "cancelled", f"cancelled by the user; fee {fee:g}", now)
            self._release_slot(conn, current)
        final = self._load(conn, rid)
        assert final is not None
        return Outcome(reservation=final, fee=fee)

    def _slot_key(self, r: Reservation) -> dict[str, Any]:
        return {"item_id": r.item_id, "slot_date": r.date, "slot_time": r.time.strftime("%H:%M")}

    def _take_slot(self, conn: Connection, r: Reservation) -> bool:
        capacity = self._item(r.item_id).terms.capacity_per_slot
        key = self._slot_key(r)
        insert = _insert_ignore(conn).values(**key, booked=0)
        conn.execute(insert)
        took = conn.execute(
            store.slots.update()
            .where(*(store.slots.c[k] == v for k, v in key.items()), store.slots.c.booked < capacity)
            .values(booked=store.slots.c.booked + 1)
        ).rowcount
        return took == 1

    def _release_slot(self, conn: Connection, r: Reservation) -> None:
        key = self._slot_key(r)
        conn.execute(
            store.slots.update()
            .where(*(store.slots.c[k] == v for k, v in key.items()), store.slots.c.booked > 0)
            .values(booked=store.slots.c.booked - 1)
        )


def _reservation(row: Any, moves: Sequence[Any], *, status: str | None = None) -> Reservation:
    """A reservation row and its transition rows (in order) as the model; a quote row with ``status`` quoted."""
    return Reservation(
        id=row.id,
        user_id=row.user_id,
        item_id=row.item_id,
        item_name=row.item_name,
        date=store.as_date(row.slot_date),
        time=time.fromisoformat(row.slot_time),
        party_size=row.party_size,
        contact=row.contact,
        notes=row.notes,
        status=status or row.status,
        quote=Quote.model_validate(row.quote),
        policy=CancellationPolicy.model_validate(row.policy),
        created_at=store.as_utc(row.created_at),
        transitions=[
            Transition(from_status=m.from_status, to_status=m.to_status, at=store.as_utc(m.at), reason=m.reason)
            for m in moves
        ],
    )


def _insert_ignore(conn: Connection) -> Any:
    """INSERT ... ON CONFLICT DO NOTHING in the connection's dialect."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(store.slots).on_conflict_do_nothing()
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(store.slots).on_conflict_do_nothing()


def _minutes(t: time) -> int:
    return t.hour * 60 + t.minute
