"""The trip store speaks the one priority vocabulary (must / should / nice) and still reads rows written
with the words of the earlier store (normal / optional)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from pydantic import ValidationError

from core.stores.trips import TripNode, TripStore
from tests.support.clock import SUITE_NOW
from tests.support.db import db_at


def test_rows_written_with_the_old_words_read_as_today_s_vocabulary(tmp_path):
    db = tmp_path / "trips.db"
    store = TripStore(db_at(f"sqlite:///{db}"))
    trip_id = store.create_trip(
        user_id="u1", region="shanghai", nodes=[TripNode(name="外滩", priority="must")], now=SUITE_NOW
    ).trip_id
    store.close()
    legacy = [
        {"name": "外滩", "priority": "must"},
        {"name": "豫园", "priority": "normal"},
        {"name": "新天地", "priority": "optional"},
    ]
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE trips SET draft_json = ? WHERE trip_id = ?", (json.dumps(legacy, ensure_ascii=False), trip_id)
        )
    draft = TripStore(db_at(f"sqlite:///{db}")).get_trip(trip_id, user_id="u1")
    assert [(n.name, n.priority) for n in draft.nodes] == [("外滩", "must"), ("豫园", "should"), ("新天地", "nice")]


def test_new_nodes_default_to_should_and_refuse_unknown_words():
    assert TripNode(name="外滩").priority == "should"
    with pytest.raises(ValidationError):
        TripNode(name="外滩", priority="sometimes")


def test_a_trip_is_visible_to_its_owner_only_and_its_id_is_the_server_s(tmp_path):
    store = TripStore(db_at(f"sqlite:///{tmp_path / 'trips.db'}"))
    mine = store.create_trip(user_id="alice", region="shanghai", nodes=[TripNode(name="外滩")], now=SUITE_NOW)
    other = store.create_trip(user_id="alice", region="shanghai", now=SUITE_NOW)
    assert mine.trip_id.startswith("trip-") and mine.trip_id != other.trip_id
    assert store.get_trip(mine.trip_id, user_id="alice").node_names() == ["外滩"]
    assert store.get_trip(mine.trip_id, user_id="mallory") is None  # the same answer as a trip that never was
    assert store.get_trip("trip-does-not-exist", user_id="mallory") is None


def test_the_agent_s_edits_speak_the_one_vocabulary():
    from core.agent.actions.trip import apply_edit
    from core.models.agent import TripEdit
    from core.stores.trips import TripDraft

    draft = TripDraft(trip_id="trip-1", user_id="u1", title="t", region="shanghai", nodes=[TripNode(name="外滩")])
    added, _ = apply_edit(draft, TripEdit(op="add", target="豫园"))
    assert [n.priority for n in added.nodes] == ["should", "should"]  # an added place without a word is "should"
    made_optional, _ = apply_edit(added, TripEdit(op="prioritize", target="豫园", priority="optional"))
    assert made_optional.nodes[1].priority == "nice"  # the earlier word still parses
