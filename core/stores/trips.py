"""The trip store: trip drafts, their edit log, dry runs and commitments, through SQLAlchemy.

``OMNI_DB_URL`` selects the database, the one the reservation service uses (core/stores/db.py): SQLite by default
(``sqlite:///ABSOLUTE/PATH`` or ``sqlite:///:memory:``), PostgreSQL when a team shares one. The schema is
Alembic revision 0002 (core/reservations/migrations/versions/0002_trips.py; 0004 adds the agent's pending bookings, 0007 its browse consents),
applied when the store opens; a file the earlier raw SQLite store made is migrated, its rows kept. Every write is
one transaction (``BEGIN IMMEDIATE`` on SQLite), and a dry run is consumed by one conditional UPDATE that matches
only an unused row, so a confirmation id can never commit twice, across threads and processes alike.
"""

from __future__ import annotations

import json
import threading
import uuid
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, Field, field_validator
from sqlalchemy.engine import Engine, RowMapping

from core.errors import InputError
from core.i18n import Lang, normalize_lang
from core.models.common import Priority, as_priority
from core.models.itinerary import Meal
from core.stores import db

# The tables as revision 0002 makes them (the migration is the schema; these are for building queries).
metadata = sa.MetaData()
trips = sa.Table(
    "trips",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),  # insertion order (SQLite's rowid before)
    sa.Column("trip_id", sa.String(120)),
    sa.Column("user_id", sa.String(120)),
    sa.Column("title", sa.Text),
    sa.Column("region", sa.String(120)),
    sa.Column("days", sa.Integer),
    sa.Column("start_date", sa.String(40)),
    sa.Column("draft_json", sa.Text),
    sa.Column("version", sa.Integer),
    sa.Column("created_at", sa.String(40)),
    sa.Column("updated_at", sa.String(40)),
)
trip_edits = sa.Table(
    "trip_edits",
    metadata,
    sa.Column("edit_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("trip_id", sa.String(120)),
    sa.Column("op", sa.String(40)),
    sa.Column("edit_json", sa.Text),
    sa.Column("version", sa.Integer),
    sa.Column("at", sa.String(40)),
)
dry_runs = sa.Table(
    "dry_runs",
    metadata,
    sa.Column("dry_run_id", sa.String(120), primary_key=True),
    sa.Column("user_id", sa.String(120)),
    sa.Column("trip_id", sa.String(120)),
    sa.Column("action", sa.String(120)),
    sa.Column("params_json", sa.Text),
    sa.Column("evidence_json", sa.Text),
    sa.Column("created_at", sa.Float),
    sa.Column("expires_at", sa.Float),
    sa.Column("used_at", sa.Float),
)
commitments = sa.Table(
    "commitments",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("commitment_id", sa.String(120)),
    sa.Column("dry_run_id", sa.String(120)),
    sa.Column("user_id", sa.String(120)),
    sa.Column("trip_id", sa.String(120)),
    sa.Column("action", sa.String(120)),
    sa.Column("status", sa.String(40)),
    sa.Column("detail_json", sa.Text),
    sa.Column("at", sa.String(40)),
)
#: revision 0004: one pending booking per user (what the agent asked them to complete), with an expiry
pending_bookings = sa.Table(
    "agent_pending_bookings",
    metadata,
    sa.Column("user_id", sa.String(120), primary_key=True),
    sa.Column("facts_json", sa.Text),
    sa.Column("created_at", sa.Float),
    sa.Column("expires_at", sa.Float),
)
#: revision 0007: a consent to browse, per user and conversation, with an expiry
browse_consents = sa.Table(
    "agent_browse_consents",
    metadata,
    sa.Column("user_id", sa.String(120), primary_key=True),
    sa.Column("conversation_id", sa.String(80), primary_key=True),
    sa.Column("granted_at", sa.Float),
    sa.Column("expires_at", sa.Float),
)
#: revision 0008: the language a conversation is answered in, per user and conversation
conversation_langs = sa.Table(
    "agent_conversation_langs",
    metadata,
    sa.Column("user_id", sa.String(120), primary_key=True),
    sa.Column("conversation_id", sa.String(80), primary_key=True),
    sa.Column("lang", sa.String(8)),
    sa.Column("set_at", sa.Float),
)
#: revision 0008: the language each dry run was offered in (its confirmation is answered in it)
dry_run_langs = sa.Table(
    "agent_dry_run_langs",
    metadata,
    sa.Column("dry_run_id", sa.String(120), primary_key=True),
    sa.Column("lang", sa.String(8)),
)
#: what ``list_commitments`` returns of a row (all but ``seq``), beside the parsed ``detail``
COMMITMENT_FIELDS = tuple(c for c in commitments.c if c.name != "seq")


class TripChanged(InputError):
    """Another writer saved the trip between this writer's read and its write (optimistic locking)."""

    code = "TRIP_CHANGED"


def _stamp(now: datetime) -> str:
    """A stored stamp: the caller's moment (a request's; the store never reads a clock)."""
    return now.astimezone(UTC).isoformat(timespec="seconds")


class TripNode(BaseModel):
    name: str = Field(min_length=1, max_length=120)
    place_id: str | None = None
    day: int | None = Field(default=None, ge=1, le=30)
    priority: Priority = "should"
    resolved: bool = True
    meal: Meal | None = None  # visited as that meal (core.models.itinerary.TripPlace.meal): a saved plan keeps it

    @field_validator("priority", mode="before")
    @classmethod
    def _legacy_priority(cls, v: object) -> object:
        return as_priority(v)  # rows written before the one vocabulary hold "normal"/"optional"


class TripDraft(BaseModel):
    trip_id: str
    user_id: str
    title: str
    region: str
    days: int = Field(default=1, ge=1, le=30)
    start_date: str | None = None
    nodes: list[TripNode] = Field(default_factory=list)
    version: int = 1
    updated_at: str = ""

    def node_names(self) -> list[str]:
        return [n.name for n in self.nodes]


class DryRunRecord(BaseModel):
    dry_run_id: str
    user_id: str
    trip_id: str | None
    action: str
    params: dict[str, Any]
    evidence: list[dict[str, Any]]
    created_at: float
    expires_at: float
    used_at: float | None = None
    lang: Lang | None = None  # the language it was offered in (None: a dry run from before revision 0008)


class PendingBooking(BaseModel):
    """What a person has said so far about a booking the agent asked them to complete (server-side, per user)."""

    user_id: str
    facts: dict[str, Any]
    created_at: float
    expires_at: float


class DryRunAlreadyCommitted(InputError):
    """A commitment for this dry run is already recorded (the gate lets a dry run through once)."""

    code = "DRY_RUN_ALREADY_COMMITTED"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _row_to_draft(row: RowMapping) -> TripDraft:
    return TripDraft(
        trip_id=row["trip_id"],
        user_id=row["user_id"],
        title=row["title"],
        region=row["region"],
        days=row["days"],
        start_date=row["start_date"],
        nodes=[TripNode.model_validate(n) for n in json.loads(row["draft_json"])],
        version=row["version"],
        updated_at=row["updated_at"],
    )


class TripStore:
    def __init__(self, database: db.Database):
        self.db_url = database.url
        self.engine: Engine = db.open_engine(database)  # shared per database and process; migrated to the newest schema

    def close(self) -> None:
        """Let go of the pooled connections (the engine reconnects if used again). An in-memory database is
        its one connection, so it is kept."""
        if not db.is_memory_url(self.db_url):
            self.engine.dispose()

    def _read(self, query: sa.Executable) -> list[RowMapping]:
        with db.transaction(self.engine) as conn:
            return list(conn.execute(query).mappings())

    # --- trips ------------------------------------------------------------------------------------
    def create_trip(
        self,
        *,
        user_id: str,
        region: str,
        title: str | None = None,
        days: int = 1,
        start_date: str | None = None,
        nodes: list[TripNode] | None = None,
        now: datetime,
    ) -> TripDraft:
        draft = TripDraft(
            trip_id=f"trip-{uuid.uuid4().hex[:16]}",  # always the server's: a client never names a trip
            user_id=user_id,
            title=title or "My trip",
            region=region,
            days=days,
            start_date=start_date,
            nodes=nodes or [],
            version=1,
            updated_at=_stamp(now),
        )
        with db.transaction(self.engine) as conn:
            conn.execute(
                trips.insert().values(
                    trip_id=draft.trip_id,
                    user_id=user_id,
                    title=draft.title,
                    region=region,
                    days=days,
                    start_date=start_date,
                    draft_json=_json([n.model_dump() for n in draft.nodes]),
                    version=1,
                    created_at=draft.updated_at,
                    updated_at=draft.updated_at,
                )
            )
        return draft

    def get_trip(self, trip_id: str, *, user_id: str) -> TripDraft | None:
        """The user's trip; another user's is as absent as one that never existed (no existence is leaked)."""
        rows = self._read(sa.select(trips).where(trips.c.trip_id == trip_id, trips.c.user_id == user_id))
        return _row_to_draft(rows[0]) if rows else None

    def latest_trip(self, user_id: str) -> TripDraft | None:
        rows = self._read(
            sa.select(trips)
            .where(trips.c.user_id == user_id)
            .order_by(trips.c.updated_at.desc(), trips.c.seq.desc())
            .limit(1)
        )
        return _row_to_draft(rows[0]) if rows else None

    def list_trips(self, user_id: str) -> list[TripDraft]:
        return [
            _row_to_draft(r)
            for r in self._read(sa.select(trips).where(trips.c.user_id == user_id).order_by(trips.c.seq))
        ]

    def save_trip(self, draft: TripDraft, *, op: str, edit: dict[str, Any], now: datetime) -> TripDraft:
        """Write the draft (optimistic: the stored version must be the draft's) and log the edit, in one transaction.
        ``now``: the request's moment (stamps)."""
        stamp = _stamp(now)
        new = draft.model_copy(update={"version": draft.version + 1, "updated_at": stamp})
        with db.transaction(self.engine) as conn:
            cur = conn.execute(
                trips.update()
                .where(trips.c.trip_id == draft.trip_id, trips.c.version == draft.version)
                .values(
                    title=new.title,
                    days=new.days,
                    start_date=new.start_date,
                    draft_json=_json([n.model_dump() for n in new.nodes]),
                    version=new.version,
                    updated_at=stamp,
                )
            )
            if cur.rowcount != 1:  # leaving the block rolls the transaction back
                raise TripChanged(
                    f"trip {draft.trip_id} changed meanwhile (or does not exist); reload and retry", field="trip_id"
                )
            conn.execute(
                trip_edits.insert().values(
                    trip_id=draft.trip_id, op=op, edit_json=_json(edit), version=new.version, at=stamp
                )
            )
        return new

    def list_edits(self, trip_id: str) -> list[dict[str, Any]]:
        rows = self._read(
            sa.select(trip_edits.c.op, trip_edits.c.edit_json, trip_edits.c.version, trip_edits.c.at)
            .where(trip_edits.c.trip_id == trip_id)
            .order_by(trip_edits.c.edit_id)
        )
        return [
            {"op": r["op"], "edit": json.loads(r["edit_json"]), "version": r["version"], "at": r["at"]} for r in rows
        ]

    # --- dry runs and commitments (the commit gate's memory) -----------------------------------------
    def create_dry_run(
        self,
        *,
        user_id: str,
        trip_id: str | None,
        action: str,
        params: dict[str, Any],
        evidence: list[dict[str, Any]],
        now: float,
        ttl_s: float,
        lang: Lang | None = None,
    ) -> DryRunRecord:
        rec = DryRunRecord(
            dry_run_id=f"dr-{uuid.uuid4().hex}",
            user_id=user_id,
            trip_id=trip_id,
            action=action,
            params=params,
            evidence=evidence,
            created_at=now,
            expires_at=now + ttl_s,
            lang=lang,
        )
        with db.transaction(self.engine) as conn:
            conn.execute(
                dry_runs.insert().values(
                    dry_run_id=rec.dry_run_id,
                    user_id=user_id,
                    trip_id=trip_id,
                    action=action,
                    params_json=_json(params),
                    evidence_json=_json(evidence),
                    created_at=now,
                    expires_at=rec.expires_at,
                )
            )
            if lang is not None:
                conn.execute(dry_run_langs.insert().values(dry_run_id=rec.dry_run_id, lang=lang))
        return rec

    def get_dry_run(self, dry_run_id: str) -> DryRunRecord | None:
        rows = self._read(
            sa.select(dry_runs, dry_run_langs.c.lang)
            .outerjoin(dry_run_langs, dry_run_langs.c.dry_run_id == dry_runs.c.dry_run_id)
            .where(dry_runs.c.dry_run_id == dry_run_id)
        )
        if not rows:
            return None
        row = rows[0]
        return DryRunRecord(
            dry_run_id=row["dry_run_id"],
            user_id=row["user_id"],
            trip_id=row["trip_id"],
            action=row["action"],
            params=json.loads(row["params_json"]),
            evidence=json.loads(row["evidence_json"]),
            created_at=row["created_at"],
            expires_at=row["expires_at"],
            used_at=row["used_at"],
            lang=normalize_lang(row["lang"]),
        )

    def consume_dry_run(self, dry_run_id: str, *, user_id: str, now: float) -> bool:
        """Mark the dry run used, atomically: True only for the first valid, unexpired use by its owner.

        One UPDATE that matches only an unused row: of any number of concurrent callers, in any number of
        processes, the database lets exactly one match it."""
        with db.transaction(self.engine) as conn:
            cur = conn.execute(
                dry_runs.update()
                .where(
                    dry_runs.c.dry_run_id == dry_run_id,
                    dry_runs.c.user_id == user_id,
                    dry_runs.c.used_at.is_(None),
                    dry_runs.c.expires_at > now,
                )
                .values(used_at=now)
            )
            return cur.rowcount == 1

    def record_commitment(
        self,
        *,
        dry_run_id: str,
        user_id: str,
        trip_id: str | None,
        action: str,
        status: str,
        detail: dict[str, Any],
        now: datetime,
    ) -> str:
        cid = f"cm-{uuid.uuid4().hex[:16]}"
        try:
            with db.transaction(self.engine) as conn:
                conn.execute(
                    commitments.insert().values(
                        commitment_id=cid,
                        dry_run_id=dry_run_id,
                        user_id=user_id,
                        trip_id=trip_id,
                        action=action,
                        status=status,
                        detail_json=_json(detail),
                        at=_stamp(now),
                    )
                )
        except sa.exc.IntegrityError:  # one commitment per dry run (a unique column)
            raise DryRunAlreadyCommitted(
                f"dry run {dry_run_id} is already committed (or does not exist)", field="dry_run_id"
            ) from None
        return cid

    def list_commitments(self, user_id: str) -> list[dict[str, Any]]:
        rows = self._read(
            sa.select(*COMMITMENT_FIELDS).where(commitments.c.user_id == user_id).order_by(commitments.c.seq)
        )
        return [dict(r) | {"detail": json.loads(r["detail_json"])} for r in rows]

    # --- the agent's pending booking (one per user, forgotten after its time to live) ---------------------
    def hold_pending_booking(self, *, user_id: str, facts: dict[str, Any], now: float, ttl_s: float) -> PendingBooking:
        """Keep (replace) the user's pending booking until ``now + ttl_s``."""
        rec = PendingBooking(user_id=user_id, facts=facts, created_at=now, expires_at=now + ttl_s)
        values = {"user_id": user_id, "facts_json": _json(facts), "created_at": now, "expires_at": rec.expires_at}
        with db.transaction(self.engine) as conn:
            db.upsert(conn, pending_bookings, values, keys=["user_id"])
        return rec

    def pending_booking(self, user_id: str, *, now: float) -> PendingBooking | None:
        """The user's pending booking if it has not expired; an expired one is deleted (forgotten)."""
        with db.transaction(self.engine) as conn:
            row = (
                conn.execute(sa.select(pending_bookings).where(pending_bookings.c.user_id == user_id))
                .mappings()
                .first()
            )
            if row is None:
                return None
            if row["expires_at"] <= now:
                conn.execute(pending_bookings.delete().where(pending_bookings.c.user_id == user_id))
                return None
        return PendingBooking(
            user_id=row["user_id"],
            facts=json.loads(row["facts_json"]),
            created_at=row["created_at"],
            expires_at=row["expires_at"],
        )

    def drop_pending_booking(self, user_id: str) -> None:
        with db.transaction(self.engine) as conn:
            conn.execute(pending_bookings.delete().where(pending_bookings.c.user_id == user_id))

    # --- the agent's browse consent (per user and conversation, forgotten after its time to live) -------------
    def grant_browse_consent(self, *, user_id: str, conversation_id: str, now: float, ttl_s: float) -> None:
        """Remember (renew) that ``user_id`` consented to browsing in ``conversation_id`` until ``now + ttl_s``."""
        values = {"user_id": user_id, "conversation_id": conversation_id, "granted_at": now, "expires_at": now + ttl_s}
        with db.transaction(self.engine) as conn:
            db.upsert(conn, browse_consents, values, keys=["user_id", "conversation_id"])

    def forget_browse_consents(self, user_id: str) -> int:
        """Every browse consent of ``user_id`` forgotten (the person asked to be forgotten); how many there were."""
        with db.transaction(self.engine) as conn:
            gone = conn.execute(browse_consents.delete().where(browse_consents.c.user_id == user_id))
        return int(gone.rowcount or 0)

    def has_browse_consent(self, *, user_id: str, conversation_id: str, now: float) -> bool:
        """Whether ``user_id`` consented to browsing in ``conversation_id`` and the consent has not expired."""
        rows = self._read(
            sa.select(browse_consents.c.expires_at).where(
                browse_consents.c.user_id == user_id, browse_consents.c.conversation_id == conversation_id
            )
        )
        return bool(rows) and float(rows[0]["expires_at"]) > now

    # --- the agent's reply language per conversation (one language per conversation, issue 31) ---------------
    def keep_conversation_lang(self, *, user_id: str, conversation_id: str, lang: Lang, now: float) -> None:
        """Remember that ``conversation_id`` of ``user_id`` is answered in ``lang`` (the latest the face chose)."""
        values = {"user_id": user_id, "conversation_id": conversation_id, "lang": lang, "set_at": now}
        with db.transaction(self.engine) as conn:
            db.upsert(conn, conversation_langs, values, keys=["user_id", "conversation_id"])

    def conversation_lang(self, *, user_id: str, conversation_id: str) -> Lang | None:
        """The language ``conversation_id`` of ``user_id`` is answered in; None when none was kept."""
        rows = self._read(
            sa.select(conversation_langs.c.lang).where(
                conversation_langs.c.user_id == user_id, conversation_langs.c.conversation_id == conversation_id
            )
        )
        return normalize_lang(rows[0]["lang"]) if rows else None

    def forget_conversation_langs(self, user_id: str) -> int:
        """Every conversation language of ``user_id`` forgotten (the person asked to be forgotten)."""
        with db.transaction(self.engine) as conn:
            gone = conn.execute(conversation_langs.delete().where(conversation_langs.c.user_id == user_id))
        return int(gone.rowcount or 0)


_STORES: dict[db.Database, TripStore] = {}
_STORES_LOCK = threading.Lock()


class LazyTripStore:
    """The trip store of ``database``, opened at its first use: a request that never needs the database (a weather
    question, a travel time) never waits for it, nor fails when it is down."""

    def __init__(self, database: db.Database) -> None:
        self.database = database
        self._store: TripStore | None = None

    @property
    def opened(self) -> bool:
        return self._store is not None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._store is None:
            self._store = open_store(self.database)
        return getattr(self._store, name)


def open_store(database: db.Database) -> TripStore:
    """One store per database per process (so ``sqlite:///:memory:`` keeps its data across calls)."""
    with _STORES_LOCK:
        store = _STORES.get(database)
        if store is None:
            store = _STORES[database] = TripStore(database)
        return store
