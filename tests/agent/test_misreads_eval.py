"""Issue 31, "the agent misreads ordinary requests": whole conversations of tests/agent/data/misreads_eval.json,
in Chinese and English, through the agent's use case (core.app.agent.ask) on the installed packs, each turn checked
against what must come of it (the route and intent, what is asked, the day each place is planned on, the venue,
date, time and party of a booking, the places a question is answered with).

``python -m tests.agent.test_misreads_eval`` prints the pass rate and each failure."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from core.app import AppServices
from core.app.agent import ask
from core.config import Settings
from core.models.agent import AgentResponse
from core.stores.trips import open_store
from tests.support.db import db_at

EVAL_SET = Path(__file__).parent / "data" / "misreads_eval.json"
DATA = json.loads(EVAL_SET.read_text(encoding="utf-8"))
MOMENT = datetime.fromisoformat(DATA["now"])


def _visits(response: AgentResponse) -> list[dict[str, Any]]:
    return [s for s in response.result.payload.timeline if s.get("kind") == "visit"]


def _intent(response: AgentResponse) -> str | None:
    routed = [e for e in response.explain.decision_log if e.chosen_action == "router.route"]
    return str(routed[0].facts.get("intent")) if routed else None


def _asked(response: AgentResponse) -> set[str]:
    return {str(s.args.get("field")) for s in response.result.next_steps if s.code == "missing"}


def _dry_run(response: AgentResponse) -> dict[str, Any] | None:
    held = response.result.payload.dry_run
    if not held or not held.get("evidence"):
        return None
    ev = held["evidence"][0]
    return {"item": ev.get("place_id"), "date": ev.get("date"), "time": ev.get("time"), "party": ev.get("party_size")}


def check_turn(response: AgentResponse, expect: dict[str, Any], *, trip_ids: Callable[[], set[str]]) -> list[str]:
    """What of ``expect`` the response misses (empty: the turn passes)."""
    wrong: list[str] = []
    reasons = {e.reason_code for e in response.explain.decision_log}
    visits = _visits(response)
    keys = {str(s.get("key")) for s in visits}
    if "route" in expect and response.route.route != expect["route"]:
        wrong.append(f"route {response.route.route}")
    if "intent" in expect and _intent(response) != expect["intent"]:
        wrong.append(f"intent {_intent(response)}")
    if "status" in expect and response.result.status != expect["status"]:
        wrong.append(f"status {response.result.status}")
    wrong += [f"no reason {r}" for r in expect.get("reasons", []) if r not in reasons]
    wrong += [f"reason {r}" for r in expect.get("not_reasons", []) if r in reasons]
    if "asks" in expect and _asked(response) != set(expect["asks"]):
        wrong.append(f"asks {sorted(_asked(response))}")
    for day, ids in expect.get("day_places", {}).items():
        on_day = {str(s.get("key")) for s in visits if str(s.get("day")) == day}
        wrong += [f"day {day} lacks {pid}" for pid in ids if pid not in on_day]
    if "region" in expect:
        prefix = {"helsinki": "hel-", "shanghai": "sh-"}[expect["region"]]
        if not visits or not all(k.startswith(prefix) for k in keys):
            wrong.append(f"visits {sorted(keys)}")
    if "places_any" in expect and not keys & set(expect["places_any"]):
        wrong.append(f"none of places_any in {sorted(keys)}")
    wrong += [f"visit {pid}" for pid in expect.get("places_none", []) if pid in keys]
    if "candidates_in" in expect:
        got = [str(c.get("place_id")) for c in response.result.payload.candidates]
        if not got or not set(got) <= set(expect["candidates_in"]):
            wrong.append(f"candidates {got}")
    if "dry_run" in expect and _dry_run(response) != expect["dry_run"]:
        wrong.append(f"dry run {_dry_run(response)}")
    wrong += [
        f"answer lacks {text!r}" for text in expect.get("answer_has", []) if text not in response.result.answer_text
    ]
    if "trip_lacks" in expect:
        wrong += [f"trip keeps {pid}" for pid in expect["trip_lacks"] if pid in trip_ids()]
        trip = response.result.payload.trip
        if not trip:
            wrong.append("no trip")
    return wrong


def run_conversation(conversation: dict[str, Any], root: Path) -> list[str]:
    """Run one conversation as its own user on a fresh database; the failures, turn by turn."""
    settings = Settings(
        region="shanghai",
        provider="offline",
        db_url=f"sqlite:///{root / (conversation['id'] + '.db')}",
        agent_event_log=root / "events.jsonl",
        cache_dir=None,
    )
    services = AppServices(settings)
    store = open_store(db_at(settings.db_url))
    user = "eval-" + conversation["id"]

    def trip_ids() -> set[str]:
        latest = store.latest_trip(user)
        return {str(n.place_id) for n in latest.nodes} if latest else set()

    failures: list[str] = []
    for n, turn in enumerate(conversation["turns"], start=1):
        context = services.context(user=user, clock=lambda: MOMENT)
        response = ask(context, {"message": turn["message"], "user_id": user})
        failures += [f"turn {n}: {w}" for w in check_turn(response, turn["expect"], trip_ids=trip_ids)]
    return failures


def evaluate(root: Path) -> dict[str, list[str]]:
    return {c["id"]: run_conversation(c, root) for c in DATA["conversations"]}


def test_the_set_covers_every_finding_in_both_languages():
    conversations = DATA["conversations"]
    assert len(conversations) >= 30 and len({c["id"] for c in conversations}) == len(conversations)
    by_category: dict[str, set[str]] = {}
    for c in conversations:
        by_category.setdefault(c["category"], set()).add(c["lang"])
    assert all(langs == {"zh", "en"} for langs in by_category.values()), by_category
    assert len(by_category) >= 8


@pytest.mark.parametrize("conversation", DATA["conversations"], ids=[c["id"] for c in DATA["conversations"]])
def test_each_conversation_comes_out_as_expected(conversation, tmp_path):
    assert run_conversation(conversation, tmp_path) == []


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        out = evaluate(Path(tmp))
    passed = [k for k, v in out.items() if not v]
    print(f"passed {len(passed)}/{len(out)}")
    for key, failures in out.items():
        if failures:
            print(key, "; ".join(failures))
