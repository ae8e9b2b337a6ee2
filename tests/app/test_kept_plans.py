"""The dashboard's kept plans in one process (core/app/kept_plans.py ``InProcessPlans``); shared through Redis by a
team's dashboard processes: tests/team/test_kept_plans_team.py."""

from __future__ import annotations

from core.app.kept_plans import InProcessPlans


def test_a_plan_made_again_replaces_the_kept_one():
    store = InProcessPlans()
    store.put("k", {"order": [1, 2, 3]})
    store.put("k", {"order": [3, 2, 1]})
    assert store.get("k") == {"order": [3, 2, 1]}


def test_each_reader_gets_its_own_copy():
    store = InProcessPlans()
    store.put("k", {"order": [1, 2]})
    mine = store.get("k")
    mine["order"].append(99)
    assert store.get("k") == {"order": [1, 2]}


def test_the_oldest_plan_goes_first_and_a_read_keeps_a_plan_young():
    store = InProcessPlans(entries=2)
    store.put("a", 1)
    store.put("b", 2)
    assert store.get("a") == 1  # "a" is now the newest
    store.put("c", 3)
    assert (store.get("a"), store.get("b"), store.get("c")) == (1, None, 3)


def test_a_plan_past_its_time_is_gone():
    clock = [1000.0]
    store = InProcessPlans(ttl_s=600.0, clock=lambda: clock[0])
    store.put("k", "plan")
    clock[0] += 599
    assert store.get("k") == "plan"
    clock[0] += 2
    assert store.get("k") is None
