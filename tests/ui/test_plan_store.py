"""The server's memory of plans behind share links and reloads (components/share.py)."""

from __future__ import annotations

from components import share


def test_a_plan_made_again_replaces_the_kept_one():
    store = share._PlanStore()
    store.put("k", {"order": [1, 2, 3]})
    store.put("k", {"order": [3, 2, 1]})
    assert store.get("k") == {"order": [3, 2, 1]}


def test_each_reader_gets_its_own_copy():
    store = share._PlanStore()
    store.put("k", {"order": [1, 2]})
    mine = store.get("k")
    mine["order"].append(99)
    assert store.get("k") == {"order": [1, 2]}


def test_the_oldest_plan_goes_first_and_a_read_keeps_a_plan_young(monkeypatch):
    monkeypatch.setattr(share, "PLAN_CACHE_ENTRIES", 2)
    store = share._PlanStore()
    store.put("a", 1)
    store.put("b", 2)
    assert store.get("a") == 1  # "a" is now the newest
    store.put("c", 3)
    assert (store.get("a"), store.get("b"), store.get("c")) == (1, None, 3)


def test_a_plan_past_its_time_is_gone(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(share.time, "monotonic", lambda: clock[0])
    store = share._PlanStore()
    store.put("k", "plan")
    clock[0] += share.PLAN_CACHE_TTL_S - 1
    assert store.get("k") == "plan"
    clock[0] += 2
    assert store.get("k") is None
