"""The trip store speaks the one priority vocabulary (must / should / nice) and still reads rows written
with the words of the earlier store (normal / optional)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from pydantic import ValidationError

from core.stores.trips import TripNode, TripStore


def test_rows_written_with_the_old_words_read_as_today_s_vocabulary(tmp_path):
    db = tmp_path / "trips.db"
    store = TripStore(f"sqlite:///{db}")
    store.create_trip(user_id="u1", region="shanghai", trip_id="t1", nodes=[TripNode(name="外滩", priority="must")])
    store.close()
    legacy = [
        {"name": "外滩", "priority": "must"},
        {"name": "豫园", "priority": "normal"},
        {"name": "新天地", "priority": "optional"},
    ]
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE trips SET draft_json = ? WHERE trip_id = 't1'", (json.dumps(legacy, ensure_ascii=False),))
    draft = TripStore(f"sqlite:///{db}").get_trip("t1")
    assert [(n.name, n.priority) for n in draft.nodes] == [("外滩", "must"), ("豫园", "should"), ("新天地", "nice")]


def test_new_nodes_default_to_should_and_refuse_unknown_words():
    assert TripNode(name="外滩").priority == "should"
    with pytest.raises(ValidationError):
        TripNode(name="外滩", priority="sometimes")
