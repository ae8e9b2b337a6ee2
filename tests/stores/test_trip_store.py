"""The trip store on SQLite and on PostgreSQL (one Alembic history with the reservations): drafts and their
versioned edits, optimistic writes that are one transaction, user isolation, dry runs spent once, and twenty
concurrent confirmations of one dry run making exactly one commitment."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest

from core.agent import gates
from core.errors import InputError
from core.models.agent import AgentRequest
from core.stores import db, trips
from core.stores.trips import DryRunRecord, TripChanged, TripNode, TripStore, open_store
from tests.stores.conftest import HEAD, history
from tests.support.clock import SUITE_NOW
from tests.support.db import db_at

NOW = 1_790_000_000.25  # the agent's clock: seconds since the epoch


def dry_run(store: TripStore, *, user: str = "alice", trip_id: str | None = None, ttl_s: float = 600) -> DryRunRecord:
    return store.create_dry_run(
        user_id=user,
        trip_id=trip_id,
        action="trip.record_commitment",
        params={"kind": "booking", "place": "和平饭店", "price": 1500},
        evidence=[{"source": "https://example.org/和平饭店", "price": 1500, "availability": "not_verified"}],
        now=NOW,
        ttl_s=ttl_s,
    )


def test_a_trip_round_trips_with_its_nodes_and_the_schema_is_the_shared_history(database):
    store = database.store()
    made = store.create_trip(
        user_id="alice",
        region="shanghai",
        title="周末之旅",
        days=2,
        start_date="2026-12-05",
        nodes=[TripNode(name="外滩", place_id="a-bund", day=1, priority="must"), TripNode(name="豫园", day=2)],
        now=SUITE_NOW,
    )
    got = store.get_trip(made.trip_id, user_id="alice")
    assert got == made
    assert (got.title, got.days, got.start_date, got.version) == ("周末之旅", 2, "2026-12-05", 1)
    assert [(n.name, n.place_id, n.day, n.priority) for n in got.nodes] == [
        ("外滩", "a-bund", 1, "must"),
        ("豫园", None, 2, "should"),
    ]
    assert store.create_trip(user_id="alice", region="shanghai", now=SUITE_NOW).title == "My trip"
    assert {"trips", "trip_edits", "dry_runs", "commitments", "reservations"} <= database.tables()
    assert history(database.engine()) == [HEAD]  # the reservations' history: 0001, 0002 (and any later one)


def test_edits_are_versioned_and_a_stale_draft_is_refused(database):
    store = database.store()
    v1 = store.create_trip(user_id="alice", region="shanghai", nodes=[TripNode(name="外滩")], now=SUITE_NOW)
    v2 = store.save_trip(
        v1.model_copy(update={"nodes": [*v1.nodes, TripNode(name="豫园")]}),
        op="add",
        edit={"target": "豫园"},
        now=SUITE_NOW,
    )
    later = SUITE_NOW + timedelta(minutes=5)
    v3 = store.save_trip(v2.model_copy(update={"title": "周末"}), op="rename", edit={"title": "周末"}, now=later)
    assert (v2.version, v3.version) == (2, 3)
    # the stamps are the caller's moments (the request's), in UTC: the store reads no clock
    assert (v1.updated_at, v3.updated_at) == ("2026-11-27T01:00:00+00:00", "2026-11-27T01:05:00+00:00")
    with pytest.raises(TripChanged) as stale:
        store.save_trip(v2.model_copy(update={"title": "lost"}), op="rename", edit={"title": "lost"}, now=SUITE_NOW)
    assert stale.value.code == "TRIP_CHANGED" and stale.value.field == "trip_id"
    with pytest.raises(TripChanged):  # a trip that never was is not created by a save
        store.save_trip(v1.model_copy(update={"trip_id": "trip-nowhere"}), op="add", edit={}, now=SUITE_NOW)
    stored = store.get_trip(v1.trip_id, user_id="alice")
    assert (stored.title, stored.version, stored.node_names()) == ("周末", 3, ["外滩", "豫园"])
    assert stored.updated_at == v3.updated_at
    edits = store.list_edits(v1.trip_id)
    assert [(e["op"], e["edit"], e["version"]) for e in edits] == [
        ("add", {"target": "豫园"}, 2),
        ("rename", {"title": "周末"}, 3),
    ]
    assert [e["at"] for e in edits] == [v2.updated_at, v3.updated_at]
    assert store.list_edits("trip-nowhere") == []


def test_a_save_is_one_transaction_the_draft_and_its_edit_or_neither(database):
    store = database.store()
    v1 = store.create_trip(user_id="alice", region="shanghai", nodes=[TripNode(name="外滩")], now=SUITE_NOW)
    with pytest.raises(TypeError):  # the edit cannot be written (after the draft was): nothing is kept
        store.save_trip(v1.model_copy(update={"title": "half"}), op="rename", edit={"title": object()}, now=SUITE_NOW)
    kept = store.get_trip(v1.trip_id, user_id="alice")
    assert (kept.title, kept.version) == ("My trip", 1)
    assert store.list_edits(v1.trip_id) == []
    assert store.save_trip(v1, op="add", edit={}, now=SUITE_NOW).version == 2  # and the draft is not stuck


def test_each_user_sees_only_their_own_trips_dry_runs_and_commitments(database):
    store = database.store()
    first = store.create_trip(user_id="alice", region="shanghai", title="one", now=SUITE_NOW)
    second = store.create_trip(user_id="alice", region="shanghai", title="two", now=SUITE_NOW)
    bobs = store.create_trip(user_id="bob", region="helsinki", title="bob's", now=SUITE_NOW)
    assert [t.trip_id for t in store.list_trips("alice")] == [first.trip_id, second.trip_id]
    assert [t.trip_id for t in store.list_trips("bob")] == [bobs.trip_id]
    assert store.list_trips("mallory") == [] and store.latest_trip("mallory") is None
    assert store.get_trip(first.trip_id, user_id="bob") is None  # as absent as a trip that never was
    assert store.latest_trip("alice").trip_id == second.trip_id
    assert store.latest_trip("bob").trip_id == bobs.trip_id
    rec = dry_run(store, user="alice", trip_id=first.trip_id)
    assert store.consume_dry_run(rec.dry_run_id, user_id="bob", now=NOW + 1) is False  # not bob's to spend
    assert store.get_dry_run(rec.dry_run_id).used_at is None
    assert store.consume_dry_run(rec.dry_run_id, user_id="alice", now=NOW + 1) is True
    store.record_commitment(
        dry_run_id=rec.dry_run_id,
        user_id="alice",
        trip_id=first.trip_id,
        action="booking",
        status="recorded",
        detail={"place": "和平饭店"},
        now=SUITE_NOW,
    )
    assert store.list_commitments("bob") == []
    assert [c["dry_run_id"] for c in store.list_commitments("alice")] == [rec.dry_run_id]


def test_a_dry_run_keeps_what_it_was_given_and_is_spent_once_before_it_expires(database):
    store = database.store()
    rec = dry_run(store, trip_id="trip-1", ttl_s=600)
    got = store.get_dry_run(rec.dry_run_id)
    assert got == rec
    assert (got.created_at, got.expires_at, got.used_at) == (NOW, NOW + 600, None)
    assert got.params == {"kind": "booking", "place": "和平饭店", "price": 1500}
    assert store.get_dry_run("dr-unknown") is None
    assert store.consume_dry_run(rec.dry_run_id, user_id="alice", now=NOW + 600) is False  # expired at 600 s
    assert store.consume_dry_run(rec.dry_run_id, user_id="alice", now=NOW + 599.5) is True
    assert store.consume_dry_run(rec.dry_run_id, user_id="alice", now=NOW + 599.75) is False  # spent
    assert store.get_dry_run(rec.dry_run_id).used_at == NOW + 599.5


def test_commitments_list_in_order_and_a_dry_run_commits_at_most_once(database):
    store = database.store()
    runs = [dry_run(store, trip_id=f"trip-{i}") for i in range(3)]
    ids = [
        store.record_commitment(
            dry_run_id=r.dry_run_id,
            user_id="alice",
            trip_id=r.trip_id,
            action="booking",
            status="recorded",
            detail={"n": i, "place": "和平饭店"},
            now=SUITE_NOW,
        )
        for i, r in enumerate(runs)
    ]
    listed = store.list_commitments("alice")
    assert [c["commitment_id"] for c in listed] == ids and len(set(ids)) == 3
    assert set(listed[0]) == {
        "commitment_id", "dry_run_id", "user_id", "trip_id", "action", "status", "detail_json", "at", "detail",
    }  # fmt: skip
    assert listed[2]["detail"] == {"n": 2, "place": "和平饭店"} and listed[2]["trip_id"] == "trip-2"
    with pytest.raises(InputError) as again:
        store.record_commitment(
            dry_run_id=runs[0].dry_run_id,
            user_id="alice",
            trip_id="trip-0",
            action="booking",
            status="x",
            detail={},
            now=SUITE_NOW,
        )
    assert again.value.code == "DRY_RUN_ALREADY_COMMITTED"
    assert len(store.list_commitments("alice")) == 3


def _confirm_concurrently(store: TripStore, dry_run_id: str, trip_id: str, clicks: int) -> Counter[str]:
    """``clicks`` confirmations of one dry run released at once, each as the agent does it: the commit gate,
    then the commitment for the record the gate let through."""
    outcomes: list[str] = []
    start = threading.Barrier(clicks)
    request = AgentRequest(user_id="alice", trip_id=trip_id, message="确认", options={"confirm_dry_run_id": dry_run_id})

    def click() -> None:
        start.wait()
        try:
            passed = gates.confirm(store, request, now=NOW + 1)
            if isinstance(passed, gates.GateRefusal):
                outcomes.append(passed.reason)
                return
            store.record_commitment(
                dry_run_id=passed.dry_run_id,
                user_id=passed.user_id,
                trip_id=passed.trip_id,
                action=passed.action,
                status="recorded",
                detail=passed.params,
                now=SUITE_NOW,
            )
            outcomes.append("committed")
        except Exception as exc:  # noqa: BLE001 - counted: the target is zero
            outcomes.append(f"error {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=click) for _ in range(clicks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return Counter(outcomes)


def test_twenty_concurrent_confirmations_of_one_dry_run_make_exactly_one_commitment(database):
    store = database.store()
    trip = store.create_trip(user_id="alice", region="shanghai", now=SUITE_NOW)
    rec = dry_run(store, trip_id=trip.trip_id)
    assert _confirm_concurrently(store, rec.dry_run_id, trip.trip_id, 20) == {"committed": 1, "ALREADY_USED": 19}
    (only,) = store.list_commitments("alice")
    assert only["dry_run_id"] == rec.dry_run_id and only["detail"] == rec.params
    assert store.get_dry_run(rec.dry_run_id).used_at == NOW + 1


def test_twenty_concurrent_confirmations_on_an_in_memory_database():
    db.engine_for.cache_clear()  # a fresh in-memory database
    store = TripStore(db_at("sqlite:///:memory:"))
    trip = store.create_trip(user_id="alice", region="shanghai", now=SUITE_NOW)
    rec = dry_run(store, trip_id=trip.trip_id)
    assert _confirm_concurrently(store, rec.dry_run_id, trip.trip_id, 20) == {"committed": 1, "ALREADY_USED": 19}
    db.engine_for.cache_clear()


def test_an_in_memory_store_is_one_database_for_every_thread_of_the_process(monkeypatch):
    monkeypatch.setattr(trips, "_STORES", {})
    db.engine_for.cache_clear()
    url = "sqlite:///:memory:"
    made: list[str] = []
    writer = threading.Thread(
        target=lambda: made.append(open_store(db_at(url)).create_trip(user_id="u", region="r", now=SUITE_NOW).trip_id)
    )
    writer.start()
    writer.join()
    assert open_store(db_at(url)) is open_store(db_at(url))
    assert open_store(db_at(url)).get_trip(made[0], user_id="u").region == "r"
    open_store(db_at(url)).close()  # an in-memory database is its one connection: closing keeps it
    assert open_store(db_at(url)).list_trips("u")[0].trip_id == made[0]
    db.engine_for.cache_clear()


def test_a_closed_file_store_reconnects_and_another_process_sees_its_writes(database):
    store = database.store()
    trip = store.create_trip(user_id="alice", region="shanghai", nodes=[TripNode(name="外滩")], now=SUITE_NOW)
    store.close()
    assert store.get_trip(trip.trip_id, user_id="alice").node_names() == ["外滩"]
    assert database.store_in_a_new_process().get_trip(trip.trip_id, user_id="alice") == trip


@pytest.mark.parametrize(
    "url",
    ["mysql+nonexistentdriver://x@y/z", "not a url", "sqlite+nodriver:///x.db"],
    ids=["driver", "text", "dialect"],
)
def test_a_database_url_that_names_no_usable_database_is_an_input_error(url):
    with pytest.raises(InputError) as bad:
        TripStore(db_at(url))
    assert bad.value.code == "INVALID_INPUT" and bad.value.field == "db_url" and "OMNI_DB_URL" in bad.value.message


def test_a_database_that_cannot_be_opened_is_database_unreachable(tmp_path):
    db.engine_for.cache_clear()
    with pytest.raises(db.DatabaseUnreachable) as down:
        TripStore(db_at(f"sqlite:///{tmp_path}"))  # a folder, not a database file
    assert down.value.code == "DATABASE_UNREACHABLE" and down.value.field == "db_url"
