"""The half-day planner's level-2 waits (core/halfday/waits.py): a plan stream registers its wait by plan id and
owner, the owner's answer is delivered once, the stream takes it (or nothing, after its timeout), and the wait is
gone when the stream ends. The composition root gives each process one store; the use case answers through it."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from core.halfday.waits import HalfDayWaits, InProcessWaits, WaitAnswer, WaitingPlan

#: long enough never to be reached by a test that passes: the answer or the closing wakes the taker first
NEVER_S = 30.0


@pytest.fixture(params=["process", "redis"])
def waits(request, tmp_path) -> Iterator[HalfDayWaits]:
    """The one-process store, and the one a team shares through Redis (a real one of the test's own): the same
    contract."""
    if request.param == "process":
        yield InProcessWaits()
        return
    from core.geo.redis_limits import RedisLink
    from core.halfday.waits_redis import RedisWaits
    from tests.support.redis_server import RedisServer

    with RedisServer(tmp_path / "redis") as server:
        yield RedisWaits(RedisLink(server.url), step_s=0.2)


def _taken_in_thread(waits: HalfDayWaits, plan_id: str) -> tuple[threading.Thread, list[WaitAnswer | None]]:
    """A stream's side, blocked on ``plan_id``'s answer in a thread of its own."""
    got: list[WaitAnswer | None] = []
    thread = threading.Thread(target=lambda: got.append(waits.take(plan_id, timeout_s=NEVER_S)))
    thread.start()
    return thread, got


def test_the_owners_answer_reaches_the_registered_wait(waits):
    waits.register("trace-a1", owner="alice")
    assert waits.waiting() == [WaitingPlan(plan_id="trace-a1", owner="alice", answered=False)]
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="stop")) is True
    assert waits.waiting() == [WaitingPlan(plan_id="trace-a1", owner="alice", answered=True)]
    assert waits.take("trace-a1", timeout_s=0) == WaitAnswer(plan_id="trace-a1", owner="alice", choice="stop")


def test_a_stream_blocked_on_its_wait_wakes_with_the_answer(waits):
    waits.register("trace-a1", owner="alice")
    taker, got = _taken_in_thread(waits, "trace-a1")
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="continue")) is True
    taker.join(timeout=NEVER_S)
    assert got == [WaitAnswer(plan_id="trace-a1", owner="alice", choice="continue")]


def test_an_answer_is_given_once(waits):
    waits.register("trace-a1", owner="alice")
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="stop")) is True
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="continue")) is False
    assert waits.take("trace-a1", timeout_s=0) == WaitAnswer(plan_id="trace-a1", owner="alice", choice="stop")
    # taken: the wait stays answered, a late answer is still refused and nothing more is taken
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="continue")) is False
    assert waits.take("trace-a1", timeout_s=0) is None


def test_another_users_answer_is_refused_and_the_wait_stays_open_for_the_owner(waits):
    waits.register("trace-a1", owner="alice")
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="bob", choice="stop")) is False
    assert waits.waiting() == [WaitingPlan(plan_id="trace-a1", owner="alice", answered=False)]
    assert waits.take("trace-a1", timeout_s=0) is None
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="continue")) is True
    assert waits.take("trace-a1", timeout_s=0) == WaitAnswer(plan_id="trace-a1", owner="alice", choice="continue")


def test_an_answer_for_an_unknown_plan_is_refused(waits):
    waits.register("trace-a1", owner="alice")
    assert waits.deliver(WaitAnswer(plan_id="trace-zz", owner="alice", choice="stop")) is False
    assert waits.take("trace-zz", timeout_s=0) is None
    assert waits.waiting() == [WaitingPlan(plan_id="trace-a1", owner="alice", answered=False)]


def test_no_answer_in_time_takes_nothing(waits):
    waits.register("trace-a1", owner="alice")
    assert waits.take("trace-a1", timeout_s=0.05) is None
    assert waits.waiting() == [WaitingPlan(plan_id="trace-a1", owner="alice", answered=False)]


def test_an_expired_wait_refuses_answers_and_wakes_its_stream(waits):
    waits.register("trace-a1", owner="alice")
    taker, got = _taken_in_thread(waits, "trace-a1")
    waits.expire("trace-a1")
    taker.join(timeout=NEVER_S)
    assert got == [None]
    assert waits.waiting() == []
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="stop")) is False
    waits.expire("trace-a1")  # closing it again is no error


def test_an_answer_delivered_then_expired_is_not_taken(waits):
    waits.register("trace-a1", owner="alice")
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="stop")) is True
    waits.expire("trace-a1")
    assert waits.take("trace-a1", timeout_s=0) is None


def test_registering_again_starts_a_fresh_wait(waits):
    waits.register("trace-a1", owner="alice")
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="stop")) is True
    waits.register("trace-a1", owner="alice")
    assert waits.waiting() == [WaitingPlan(plan_id="trace-a1", owner="alice", answered=False)]
    assert waits.take("trace-a1", timeout_s=0) is None


def test_two_waits_at_once_each_get_their_own_answer(waits):
    waits.register("trace-b2", owner="bob")
    waits.register("trace-a1", owner="alice")
    assert waits.waiting() == [
        WaitingPlan(plan_id="trace-a1", owner="alice", answered=False),
        WaitingPlan(plan_id="trace-b2", owner="bob", answered=False),
    ]
    alice, alice_got = _taken_in_thread(waits, "trace-a1")
    bob, bob_got = _taken_in_thread(waits, "trace-b2")
    # bob answered first, with another choice than alice's; neither answer reaches the other's stream
    assert waits.deliver(WaitAnswer(plan_id="trace-b2", owner="bob", choice="continue")) is True
    bob.join(timeout=NEVER_S)
    assert bob_got == [WaitAnswer(plan_id="trace-b2", owner="bob", choice="continue")]
    assert waits.waiting() == [
        WaitingPlan(plan_id="trace-a1", owner="alice", answered=False),
        WaitingPlan(plan_id="trace-b2", owner="bob", answered=True),
    ]
    assert waits.deliver(WaitAnswer(plan_id="trace-a1", owner="alice", choice="stop")) is True
    alice.join(timeout=NEVER_S)
    assert alice_got == [WaitAnswer(plan_id="trace-a1", owner="alice", choice="stop")]
    waits.expire("trace-b2")
    assert waits.waiting() == [WaitingPlan(plan_id="trace-a1", owner="alice", answered=True)]


def test_the_use_case_answers_through_the_roots_store_and_each_root_has_its_own(settings):
    from core.app import halfday as halfday_app
    from core.app.context import AppServices

    services, other = AppServices(settings), AppServices(settings)
    services.halfday_waits.register("trace-a1", owner="alice")
    assert halfday_app.answer_degraded(other.context(user="alice"), "trace-a1", "stop") == "not_waiting"
    assert halfday_app.answer_degraded(services.context(user="bob"), "trace-a1", "stop") == "not_waiting"
    assert halfday_app.answer_degraded(services.context(user="alice"), "trace-zz", "stop") == "not_waiting"
    assert halfday_app.answer_degraded(services.context(user="alice"), "trace-a1", "stop") == "accepted"
    assert services.halfday_waits.take("trace-a1", timeout_s=0) == WaitAnswer(
        plan_id="trace-a1", owner="alice", choice="stop"
    )
    assert other.halfday_waits.waiting() == []
