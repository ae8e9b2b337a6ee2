"""The trip store: trip drafts, their edit log, dry runs and commitments in SQLite.

``OMNI_DB_URL`` selects the database (``sqlite:///ABSOLUTE/PATH`` or ``sqlite:///:memory:``); the
schema is created when the store opens. Every write is one transaction under a lock, and a dry run
is consumed with a single conditional UPDATE, so a confirmation id can never commit twice.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from core.errors import InputError
from core.models.common import Priority, as_priority

SCHEMA = """
CREATE TABLE IF NOT EXISTS trips (
    trip_id     TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    title       TEXT NOT NULL,
    region      TEXT NOT NULL,
    days        INTEGER NOT NULL DEFAULT 1,
    start_date  TEXT,
    draft_json  TEXT NOT NULL,
    version     INTEGER NOT NULL DEFAULT 1,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS trips_user ON trips(user_id, updated_at);
CREATE TABLE IF NOT EXISTS trip_edits (
    edit_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    trip_id     TEXT NOT NULL REFERENCES trips(trip_id),
    op          TEXT NOT NULL,
    edit_json   TEXT NOT NULL,
    version     INTEGER NOT NULL,
    at          TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dry_runs (
    dry_run_id  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    trip_id     TEXT,
    action      TEXT NOT NULL,
    params_json TEXT NOT NULL,
    evidence_json TEXT NOT NULL,
    created_at  REAL NOT NULL,
    expires_at  REAL NOT NULL,
    used_at     REAL
);
CREATE TABLE IF NOT EXISTS commitments (
    commitment_id TEXT PRIMARY KEY,
    dry_run_id  TEXT NOT NULL UNIQUE REFERENCES dry_runs(dry_run_id),
    user_id     TEXT NOT NULL,
    trip_id     TEXT,
    action      TEXT NOT NULL,
    status      TEXT NOT NULL,
    detail_json TEXT NOT NULL,
    at          TEXT NOT NULL
);
"""


class TripChanged(InputError):
    """Another writer saved the trip between this writer's read and its write (optimistic locking)."""

    code = "TRIP_CHANGED"


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TripNode(BaseModel):
    name: str = Field(min_length=1, max_length=120)
    place_id: str | None = None
    day: int | None = Field(default=None, ge=1, le=30)
    priority: Priority = "should"
    resolved: bool = True

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


def parse_db_url(url: str) -> str:
    """``sqlite:///PATH`` -> PATH (``:memory:`` kept). Other schemes are refused with a clear message."""
    if not url.startswith("sqlite:///"):
        raise InputError("OMNI_DB_URL must be a sqlite:/// URL, e.g. sqlite:////abs/path/omni.db", field="db_url")
    path = url[len("sqlite:///") :]
    if path in ("", ":memory:"):
        return ":memory:"
    return path


class TripStore:
    def __init__(self, db_url: str):
        self.db_url = db_url
        path = parse_db_url(db_url)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        with self._lock:
            self._conn.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

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
            updated_at=_now_iso(),
        )
        with self._lock:
            self._conn.execute(
                "INSERT INTO trips(trip_id,user_id,title,region,days,start_date,draft_json,version,created_at,updated_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    draft.trip_id,
                    user_id,
                    draft.title,
                    region,
                    days,
                    start_date,
                    json.dumps([n.model_dump() for n in draft.nodes], ensure_ascii=False),
                    1,
                    draft.updated_at,
                    draft.updated_at,
                ),
            )
        return draft

    def _row_to_draft(self, row: sqlite3.Row) -> TripDraft:
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

    def get_trip(self, trip_id: str, *, user_id: str) -> TripDraft | None:
        """The user's trip; another user's is as absent as one that never existed (no existence is leaked)."""
        with self._lock:
            row = self._conn.execute("SELECT * FROM trips WHERE trip_id=? AND user_id=?", (trip_id, user_id)).fetchone()
        return self._row_to_draft(row) if row else None

    def latest_trip(self, user_id: str) -> TripDraft | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM trips WHERE user_id=? ORDER BY updated_at DESC, rowid DESC LIMIT 1", (user_id,)
            ).fetchone()
        return self._row_to_draft(row) if row else None

    def list_trips(self, user_id: str) -> list[TripDraft]:
        with self._lock:
            rows = self._conn.execute("SELECT * FROM trips WHERE user_id=? ORDER BY rowid", (user_id,)).fetchall()
        return [self._row_to_draft(r) for r in rows]

    def save_trip(self, draft: TripDraft, *, op: str, edit: dict[str, Any]) -> TripDraft:
        """Write the draft (optimistic: the stored version must be the draft's) and log the edit."""
        now = _now_iso()
        new = draft.model_copy(update={"version": draft.version + 1, "updated_at": now})
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                cur = self._conn.execute(
                    "UPDATE trips SET title=?, days=?, start_date=?, draft_json=?, version=?, updated_at=?"
                    " WHERE trip_id=? AND version=?",
                    (
                        new.title,
                        new.days,
                        new.start_date,
                        json.dumps([n.model_dump() for n in new.nodes], ensure_ascii=False),
                        new.version,
                        now,
                        draft.trip_id,
                        draft.version,
                    ),
                )
                if cur.rowcount != 1:
                    raise TripChanged(
                        f"trip {draft.trip_id} changed meanwhile (or does not exist); reload and retry", field="trip_id"
                    )
                self._conn.execute(
                    "INSERT INTO trip_edits(trip_id,op,edit_json,version,at) VALUES (?,?,?,?,?)",
                    (draft.trip_id, op, json.dumps(edit, ensure_ascii=False), new.version, now),
                )
                self._conn.execute("COMMIT")
            except Exception:
                self._conn.execute("ROLLBACK")
                raise
        return new

    def list_edits(self, trip_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT op, edit_json, version, at FROM trip_edits WHERE trip_id=? ORDER BY edit_id", (trip_id,)
            ).fetchall()
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
        )
        with self._lock:
            self._conn.execute(
                "INSERT INTO dry_runs(dry_run_id,user_id,trip_id,action,params_json,evidence_json,created_at,expires_at)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (
                    rec.dry_run_id,
                    user_id,
                    trip_id,
                    action,
                    json.dumps(params, ensure_ascii=False),
                    json.dumps(evidence, ensure_ascii=False),
                    now,
                    rec.expires_at,
                ),
            )
        return rec

    def get_dry_run(self, dry_run_id: str) -> DryRunRecord | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM dry_runs WHERE dry_run_id=?", (dry_run_id,)).fetchone()
        if not row:
            return None
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
        )

    def consume_dry_run(self, dry_run_id: str, *, user_id: str, now: float) -> bool:
        """Mark the dry run used, atomically: True only for the first valid, unexpired use by its owner."""
        with self._lock:
            cur = self._conn.execute(
                "UPDATE dry_runs SET used_at=? WHERE dry_run_id=? AND user_id=? AND used_at IS NULL AND expires_at>?",
                (now, dry_run_id, user_id, now),
            )
            return cur.rowcount == 1

    def record_commitment(
        self, *, dry_run_id: str, user_id: str, trip_id: str | None, action: str, status: str, detail: dict[str, Any]
    ) -> str:
        cid = f"cm-{uuid.uuid4().hex[:16]}"
        with self._lock:
            self._conn.execute(
                "INSERT INTO commitments(commitment_id,dry_run_id,user_id,trip_id,action,status,detail_json,at)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (cid, dry_run_id, user_id, trip_id, action, status, json.dumps(detail, ensure_ascii=False), _now_iso()),
            )
        return cid

    def list_commitments(self, user_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._conn.execute("SELECT * FROM commitments WHERE user_id=? ORDER BY rowid", (user_id,)).fetchall()
        return [dict(r) | {"detail": json.loads(r["detail_json"])} for r in rows]


_STORES: dict[str, TripStore] = {}
_STORES_LOCK = threading.Lock()


def open_store(db_url: str) -> TripStore:
    """One store per URL per process (so ``sqlite:///:memory:`` keeps its data across calls)."""
    with _STORES_LOCK:
        store = _STORES.get(db_url)
        if store is None:
            store = _STORES[db_url] = TripStore(db_url)
        return store
