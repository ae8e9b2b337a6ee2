"""The trip store's schema is Alembic revision 0002 on the reservations' 0001, in one history: an old SQLite file
written by the raw store (the default .omni/omni.db of every developer) is migrated with every row, a database with
trip tables of an unknown shape is refused with a code and left as it was, tables whose history row was dropped are
kept, processes that open an empty database at once migrate it once, and 0002 goes down to 0001 and up again."""

from __future__ import annotations

import sqlite3
import threading
from datetime import date

import pytest
import sqlalchemy as sa

from core.stores import db
from core.stores.trips import TripStore
from tests.stores.conftest import HEAD, history, migrate
from tests.support.clock import SUITE_NOW
from tests.support.db import db_at

# The raw SQLite store's schema, as it created it on opening (core/stores/trips.py before revision 0002).
LEGACY_SCHEMA = """
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
TRIP_TABLES = {"trips", "trip_edits", "dry_runs", "commitments"}
RESERVATION_TABLES = {
    "reservations", "reservation_transitions", "reservation_tokens", "reservation_confirmations", "reservation_slots",
}  # fmt: skip


def write_legacy_store(path) -> None:
    """What the raw store left in a file: two users' trips (alice's second edited twice), a spent dry run with its
    commitment and an unspent one. ``updated_at`` ties on purpose: the store broke ties by SQLite's rowid."""
    with sqlite3.connect(path) as conn:
        conn.executescript(LEGACY_SCHEMA)
        conn.executemany(
            "INSERT INTO trips VALUES (?,?,?,?,?,?,?,?,?,?)",
            [
                ("trip-a1", "alice", "上海", "shanghai", 2, "2026-12-05", '[{"name": "外滩", "priority": "normal"}]',
                 1, "2026-11-01T08:00:00+00:00", "2026-11-02T08:00:00+00:00"),
                ("trip-b1", "bob", "Helsinki", "helsinki", 1, None, "[]",
                 1, "2026-11-01T09:00:00+00:00", "2026-11-01T09:00:00+00:00"),
                ("trip-a2", "alice", "My trip", "shanghai", 1, None,
                 '[{"name": "豫园", "day": 1, "priority": "must"}, {"name": "新天地", "priority": "optional"}]',
                 3, "2026-11-01T10:00:00+00:00", "2026-11-02T08:00:00+00:00"),
            ],
        )  # fmt: skip
        conn.executemany(
            "INSERT INTO trip_edits(trip_id, op, edit_json, version, at) VALUES (?,?,?,?,?)",
            [
                ("trip-a2", "add", '{"target": "豫园"}', 2, "2026-11-01T10:05:00+00:00"),
                ("trip-a2", "add", '{"target": "新天地"}', 3, "2026-11-02T08:00:00+00:00"),
            ],
        )
        conn.executemany(
            "INSERT INTO dry_runs VALUES (?,?,?,?,?,?,?,?,?)",
            [
                ("dr-spent", "alice", "trip-a2", "trip.persist_plan", '{"days": 1}', "[]", 100.5, 700.5, 200.25),
                ("dr-fresh", "alice", "trip-a2", "trip.record_commitment", '{"place": "和平饭店"}',
                 '[{"price": 1500}]', 100.5, 700.5, None),
            ],
        )  # fmt: skip
        conn.execute(
            "INSERT INTO commitments VALUES (?,?,?,?,?,?,?,?)",
            (
                "cm-1",
                "dr-spent",
                "alice",
                "trip-a2",
                "trip.persist_plan",
                "saved",
                '{"days": 1}',
                "2026-11-01T10:06:00",
            ),
        )


def test_an_old_raw_sqlite_store_is_migrated_with_every_row(tmp_path):
    path = tmp_path / ".omni" / "omni.db"
    path.parent.mkdir()
    write_legacy_store(path)
    db.engine_for.cache_clear()
    store = TripStore(db_at(f"sqlite:///{path}"))

    assert [t.trip_id for t in store.list_trips("alice")] == ["trip-a1", "trip-a2"]
    assert store.latest_trip("alice").trip_id == "trip-a2"  # the tie on updated_at still goes to the later row
    first = store.get_trip("trip-a1", user_id="alice")
    assert (first.title, first.days, first.start_date, first.version) == ("上海", 2, "2026-12-05", 1)
    assert [(n.name, n.priority) for n in store.get_trip("trip-a2", user_id="alice").nodes] == [
        ("豫园", "must"),
        ("新天地", "nice"),
    ]
    assert store.get_trip("trip-b1", user_id="alice") is None and store.list_trips("bob")[0].region == "helsinki"
    assert [(e["op"], e["edit"], e["version"]) for e in store.list_edits("trip-a2")] == [
        ("add", {"target": "豫园"}, 2),
        ("add", {"target": "新天地"}, 3),
    ]
    assert store.get_dry_run("dr-spent").used_at == 200.25
    assert store.consume_dry_run("dr-spent", user_id="alice", now=300) is False  # spent before stays spent
    assert store.consume_dry_run("dr-fresh", user_id="alice", now=300) is True
    assert store.list_commitments("alice") == [
        {
            "commitment_id": "cm-1", "dry_run_id": "dr-spent", "user_id": "alice", "trip_id": "trip-a2",
            "action": "trip.persist_plan", "status": "saved", "detail_json": '{"days": 1}',
            "at": "2026-11-01T10:06:00", "detail": {"days": 1},
        }
    ]  # fmt: skip

    # and it goes on: new rows come after the old ones, an old draft saves at its version
    newer = store.create_trip(user_id="alice", region="shanghai", now=SUITE_NOW)
    assert [t.trip_id for t in store.list_trips("alice")] == ["trip-a1", "trip-a2", newer.trip_id]
    saved = store.save_trip(
        store.get_trip("trip-a2", user_id="alice"), op="rename", edit={"title": "周末"}, now=SUITE_NOW
    )
    assert saved.version == 4 and [e["version"] for e in store.list_edits("trip-a2")] == [2, 3, 4]

    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert TRIP_TABLES | RESERVATION_TABLES <= tables and not any(t.startswith("legacy_") for t in tables)
    assert history(store.engine) == [HEAD]
    db.engine_for.cache_clear()


def test_an_old_file_that_also_holds_reservations_keeps_them(tmp_path):
    path = tmp_path / "omni.db"
    plain = sa.create_engine(f"sqlite:///{path}")
    migrate(plain, "0001")  # the reservation service had used the file: its tables at 0001
    with plain.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO reservation_slots (item_id, slot_date, slot_time, booked) VALUES ('sh-x', :d, '19:00', 3)"
            ),
            {"d": date(2026, 12, 5)},
        )
    plain.dispose()
    write_legacy_store(path)
    db.engine_for.cache_clear()
    store = TripStore(db_at(f"sqlite:///{path}"))
    assert history(store.engine) == [HEAD]
    assert [t.trip_id for t in store.list_trips("alice")] == ["trip-a1", "trip-a2"]
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT item_id, slot_time, booked FROM reservation_slots").all() == [
            ("sh-x", "19:00", 3)
        ]
    db.engine_for.cache_clear()


def test_trip_tables_of_an_unknown_shape_are_refused_and_left_as_they_were(database):
    with database.engine().begin() as conn:
        conn.exec_driver_sql("CREATE TABLE trips (id INTEGER PRIMARY KEY, name TEXT)")
        conn.exec_driver_sql("INSERT INTO trips (id, name) VALUES (1, 'mine')")
    for _ in range(2):  # and again: nothing was half done the first time
        with pytest.raises(db.SchemaMismatch) as refused:
            database.store_in_a_new_process()
        assert refused.value.code == "DB_SCHEMA_UNKNOWN" and refused.value.field == "db_url"
        assert refused.value.details == {"tables": {"trips": ["id", "name"]}}
        assert "trips(id, name)" in refused.value.message
    assert database.tables() == {"trips"}  # not even the reservations' tables or the history were made
    with database.engine().connect() as conn:
        assert conn.exec_driver_sql("SELECT id, name FROM trips").all() == [(1, "mine")]


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_the_raw_store_s_tables_on_postgresql_are_refused_it_never_wrote_there(database):
    with database.engine().begin() as conn:
        for statement in LEGACY_SCHEMA.replace("AUTOINCREMENT", "").split(";"):
            if statement.strip():
                conn.exec_driver_sql(statement)
    with pytest.raises(db.SchemaMismatch):
        database.store_in_a_new_process()
    assert database.tables() == TRIP_TABLES


def test_tables_whose_history_row_was_dropped_are_kept_with_their_rows(database):
    store = database.store()
    trip = store.create_trip(user_id="alice", region="shanghai", now=SUITE_NOW)
    with database.engine().begin() as conn:  # what the reservation tests do to start clean: theirs and the history
        cascade = " CASCADE" if database.kind == "postgresql" else ""
        for table in set(sa.inspect(conn).get_table_names()) - TRIP_TABLES:  # (and any later revision's tables)
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS {table}{cascade}")
    again = database.store_in_a_new_process()
    assert again.get_trip(trip.trip_id, user_id="alice") == trip
    assert history(again.engine) == [HEAD] and RESERVATION_TABLES <= database.tables()


def test_processes_opening_an_empty_database_at_once_migrate_it_once(database):
    start = threading.Barrier(4)
    outcomes: list[str] = []

    def open_like_a_new_process() -> None:
        start.wait()
        try:
            database.engines.append(db.engine_for.__wrapped__(db_at(database.url)))  # an engine of its own, migrated
            outcomes.append("ok")
        except Exception as exc:  # noqa: BLE001 - counted: the target is zero
            outcomes.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=open_like_a_new_process) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes == ["ok"] * 4
    assert history(database.engine()) == [HEAD]
    assert TRIP_TABLES | RESERVATION_TABLES <= database.tables()


def test_0002_goes_down_to_0001_and_up_again(database):
    store = database.store()
    store.create_trip(user_id="alice", region="shanghai", now=SUITE_NOW)
    migrate(database.engine(), "0001", down=True)
    assert history(database.engine()) == ["0001"]
    assert not TRIP_TABLES & database.tables() and RESERVATION_TABLES <= database.tables()
    again = database.store_in_a_new_process()
    assert again.list_trips("alice") == [] and history(again.engine) == [HEAD]
