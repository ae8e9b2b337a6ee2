"""Faults injected into the half-day planner, levels 2 and 3 of half_day_planner.md §4.1, in the use case.

Level 2: the routing service fails, the plan would rest on the pack's local estimate; the person decides whether to
go on (a warning with the choice, then what was decided and by whom), or the request decided beforehand, or nobody
answers in time and the configured default applies. Level 3: a tool breaks its schema twice; the stream ends with an
error that offers a conversation with the agent and carries the support contact."""

from __future__ import annotations

import threading

import pytest

from core.errors import ProviderUnavailable
from core.models.halfday.plans import HalfDayRequest
from tests.halfday.conftest import NOW, goal, planner_on, with_goal

CONTACT = "support@omni.test · +86 21 5555 0100"


class FailingRouter:
    name = "broken-router"

    def matrix(self, points, *, mode):
        raise ProviderUnavailable("routing service unreachable")

    def route(self, origin, destination, *, mode):
        raise ProviderUnavailable("routing service unreachable")


@pytest.fixture
def settings(tmp_path, monkeypatch):
    from core.config import get_settings

    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'levels.db'}")
    monkeypatch.setenv("OMNI_HALFDAY_SUPPORT_CONTACT", CONTACT)
    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)
    monkeypatch.delenv("OMNI_HALFDAY_MOCK_TOOLS", raising=False)
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


def broken_planner(settings, **overrides):
    from core.geo.composite import MapServices
    from core.geo.registry import make_provider

    live = make_provider("offline", region="shanghai", settings=settings)
    services = MapServices(geocoder=live.geocoder, router=FailingRouter(), region=live.region)
    return with_goal(planner_on(services, settings.model_copy(update=overrides)), goal(preferences=["park"]))


def _kinds(events):
    return [(e.data.type, getattr(e.data, "code", None)) for e in events if e.type == "observation"]


def test_level2_the_request_says_continue_plans_from_local_data_without_asking(settings):
    result, events = broken_planner(settings).plan(HalfDayRequest(goal="g", now=NOW, on_degraded="continue"))
    assert result is not None and result.travel_source == "offline_estimate"
    asks = [e for e in events if e.type == "observation" and e.data.type == "warning" and e.data.choice]
    assert asks == []
    chosen = [e.data for e in events if e.type == "observation" and e.data.type == "choice"]
    assert [(c.choice, c.by) for c in chosen] == [("continue", "request")]


def test_level2_the_request_says_stop_no_plan_goes_out(settings):
    result, events = broken_planner(settings).plan(HalfDayRequest(goal="g", now=NOW, on_degraded="stop"))
    assert result is None
    done = events[-1].data
    assert done.type == "error" and done.error.code == "DEGRADED_DECLINED"
    assert done.error.fallback is None  # a person's stop is not a fatal error: no conversation instead
    assert ("warning", "TRAVEL_FROM_LOCAL_ESTIMATE") in _kinds(events)  # why the question came up


@pytest.mark.parametrize("answer", ["continue", "stop"])
def test_level2_asked_the_persons_answer_is_followed(settings, answer):
    asked: list[tuple[str, float]] = []

    def decide(trace_id, wait_s):
        asked.append((trace_id, wait_s))
        return answer

    planner = broken_planner(settings)
    events = list(planner.events(HalfDayRequest(goal="g", now=NOW), decide=decide))
    ask = next(e for e in events if e.type == "observation" and e.data.type == "warning" and e.data.choice)
    assert ask.data.code == "DEGRADED_DATA"
    assert ask.data.choice.options == ["continue", "stop"] and ask.data.choice.default == "continue"
    assert ask.data.facts.estimated_legs is not None and ask.data.facts.estimated_legs > 0
    assert asked == [(ask.trace_id, settings.halfday_degraded_wait_s)]
    chosen = [e.data for e in events if e.type == "observation" and e.data.type == "choice"]
    assert [(c.choice, c.by) for c in chosen] == [(answer, "person")]
    done = events[-1].data
    if answer == "continue":
        assert done.type == "plans" and "TRAVEL_FROM_LOCAL_ESTIMATE" in done.result.warnings
    else:
        assert done.type == "error" and done.error.code == "DEGRADED_DECLINED"
        assert not any(e.type == "skill_call" and e.data.tool == "score_plans" for e in events)


@pytest.mark.parametrize("default", ["continue", "stop"])
def test_level2_no_answer_in_time_is_the_configured_default(settings, default):
    planner = broken_planner(settings, halfday_degraded_default=default)
    events = list(planner.events(HalfDayRequest(goal="g", now=NOW), decide=lambda _t, _w: None))
    chosen = [e.data for e in events if e.type == "observation" and e.data.type == "choice"]
    assert [(c.choice, c.by) for c in chosen] == [(default, "default")]
    assert events[-1].data.type == ("plans" if default == "continue" else "error")


def test_level2_a_healthy_router_asks_nothing(settings):
    from core.geo.registry import make_provider

    planner = with_goal(
        planner_on(make_provider("offline", region="shanghai", settings=settings), settings), goal(preferences=["park"])
    )
    asked = []
    events = list(planner.events(HalfDayRequest(goal="g", now=NOW), decide=lambda t, w: asked.append(t)))
    assert asked == [] and events[-1].data.type == "plans"
    assert not [e for e in events if e.type == "observation" and e.data.type in ("choice",)]


def _context(settings, user, lang="zh", *, services=None):
    from core.app.context import AppServices

    return (services or AppServices(settings)).context(user=user, lang=lang)


def test_level2_the_answerable_stream_waits_for_answer_degraded(settings, monkeypatch):
    from core.app import halfday as halfday_app
    from core.app.context import AppServices

    monkeypatch.setattr(halfday_app, "planner", lambda ctx: broken_planner(settings))
    services = AppServices(settings)  # the process's root: its store holds the stream's wait
    ctx = _context(settings, "alice", services=services)
    stream = halfday_app.plan_half_day_answerable(ctx, HalfDayRequest(goal="g", now=NOW))
    first = next(stream)
    assert [(w.plan_id, w.owner) for w in services.halfday_waits.waiting()] == [(first.trace_id, "alice")]
    # another user, an unknown stream: refused; the owner's answer is taken once
    assert halfday_app.answer_degraded(_context(settings, "bob", services=services), first.trace_id, "stop") == (
        "not_waiting"
    )
    assert halfday_app.answer_degraded(ctx, "no-such-trace", "stop") == "not_waiting"
    seen = [first]
    for event in stream:
        seen.append(event)
        if event.type == "observation" and event.data.type == "warning" and event.data.choice:
            answering = threading.Thread(target=halfday_app.answer_degraded, args=(ctx, first.trace_id, "stop"))
            answering.start()
            answering.join()
    chosen = [e.data for e in seen if e.type == "observation" and e.data.type == "choice"]
    assert [(c.choice, c.by) for c in chosen] == [("stop", "person")]
    assert seen[-1].data.type == "error" and seen[-1].data.error.code == "DEGRADED_DECLINED"
    assert halfday_app.answer_degraded(ctx, first.trace_id, "continue") == "not_waiting"  # the stream ended
    assert services.halfday_waits.waiting() == []


def test_level3_a_broken_tool_ends_with_a_conversation_offer_and_the_contact(settings):
    from core.geo.registry import make_provider

    planner = planner_on(make_provider("offline", region="shanghai", settings=settings), settings)
    with_goal(planner, goal(preferences=["museum"]))
    planner.registry.replace("analyze_user_profile", lambda _inp: {"party": "not a party"})
    result, events = planner.plan(HalfDayRequest(goal="g", now=NOW))
    assert result is None
    error = events[-1].data.error
    assert (error.code, error.fallback, error.contact) == ("TOOL_OUTPUT_INVALID", "conversation", CONTACT)


def test_level3_without_a_configured_contact_none_is_carried(settings):
    from core.geo.registry import make_provider

    quiet = settings.model_copy(update={"halfday_support_contact": ""})
    planner = planner_on(make_provider("offline", region="shanghai", settings=quiet), quiet)
    with_goal(planner, goal(preferences=["museum"]))
    planner.registry.replace("analyze_user_profile", lambda _inp: {"party": "not a party"})
    _, events = planner.plan(HalfDayRequest(goal="g", now=NOW))
    assert events[-1].data.error.fallback == "conversation" and events[-1].data.error.contact is None


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_level3_the_goal_goes_to_the_agent_in_the_same_context(settings, lang):
    from core.app import halfday as halfday_app

    goal_text = "Saturday afternoon at the Shanghai Museum with my kid"
    reply = halfday_app.converse_instead(_context(settings, "alice", lang), goal_text)
    text = reply.result.answer_text
    assert text.strip()
    # the agent answers in the context's language, whatever the goal's words are in
    assert any("\u4e00" <= ch <= "\u9fff" for ch in text) is (lang == "zh")


@pytest.mark.parametrize(("flag", "code"), [("continue", 0), ("stop", 2)])
def test_level2_the_cli_takes_the_choice_as_an_option(settings, monkeypatch, capsys, flag, code):
    import json

    from core.__main__ import main
    from core.app import halfday as halfday_app

    monkeypatch.setattr(halfday_app, "planner", lambda ctx: broken_planner(settings))
    args = ["halfday", "--goal", "g", "--region", "shanghai", "--now", NOW.isoformat(), "--events"]
    assert main([*args, "--on-degraded", flag]) == code
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    chosen = [(e["data"]["choice"], e["data"]["by"]) for e in events if e["data"].get("type") == "choice"]
    assert chosen == [(flag, "request")]


def test_level2_a_stream_held_by_one_worker_is_answered_through_another_on_the_teams_redis(
    settings, monkeypatch, tmp_path
):
    """Issue 33: two workers (two composition roots, nothing shared in memory) on one Redis; the stream is held by
    the first, the person's answer reaches the second, and the stream goes on with it."""
    from core.app import halfday as halfday_app
    from core.app.context import AppServices
    from tests.support.redis_server import RedisServer

    monkeypatch.setattr(halfday_app, "planner", lambda ctx: broken_planner(settings))
    with RedisServer(tmp_path / "redis") as redis:
        shared = settings.model_copy(update={"redis_url": redis.url})
        holding, answering = AppServices(shared), AppServices(shared)
        assert holding.halfday_waits is not answering.halfday_waits
        ctx = _context(shared, "alice", services=holding)
        elsewhere = _context(shared, "alice", services=answering)
        stream = halfday_app.plan_half_day_answerable(ctx, HalfDayRequest(goal="g", now=NOW))
        first = next(stream)
        assert [w.plan_id for w in answering.halfday_waits.waiting()] == [first.trace_id]  # seen from the other
        assert halfday_app.answer_degraded(_context(shared, "bob", services=answering), first.trace_id, "stop") == (
            "not_waiting"
        )
        seen = [first]
        for event in stream:
            seen.append(event)
            if event.type == "observation" and event.data.type == "warning" and event.data.choice:
                assert halfday_app.answer_degraded(elsewhere, first.trace_id, "stop") == "accepted"
        chosen = [e.data for e in seen if e.type == "observation" and e.data.type == "choice"]
        assert [(c.choice, c.by) for c in chosen] == [("stop", "person")]
        assert seen[-1].data.type == "error" and seen[-1].data.error.code == "DEGRADED_DECLINED"
        assert halfday_app.answer_degraded(elsewhere, first.trace_id, "continue") == "not_waiting"  # it ended
        assert answering.halfday_waits.waiting() == [] and holding.halfday_waits.waiting() == []


def test_a_stream_read_again_through_another_worker_and_one_whose_worker_died_ends_with_stream_lost(
    settings, monkeypatch, tmp_path
):
    """Issue 33: on the team's Redis, a stream one worker made is read on through another (from after the last
    event the client saw); a stream whose worker stopped mid-plan (no done, nothing new) ends for the reader with
    the structured error STREAM_LOST, worded in the reader's language."""
    from core.app import halfday as halfday_app
    from core.app.context import AppServices
    from core.models.halfday.plans import HalfDayRequest
    from tests.support.redis_server import RedisServer

    with RedisServer(tmp_path / "redis") as redis:
        shared = settings.model_copy(update={"redis_url": redis.url, "halfday_stream_lost_after_s": 0.5})
        holding, reading = AppServices(shared), AppServices(shared)
        planner = with_goal(planner_on(make_offline(shared), shared), goal(preferences=["park"]))
        monkeypatch.setattr(halfday_app, "planner", lambda ctx: planner)
        sent = list(
            halfday_app.plan_half_day_answerable(
                _context(shared, "alice", services=holding), HalfDayRequest(goal="g", now=NOW)
            )
        )
        trace_id = sent[0].trace_id
        rest = halfday_app.follow_stream(_context(shared, "alice", services=reading), trace_id, after=2, poll_s=0.05)
        assert rest != "not_found"
        assert [(e.seq, e.type) for e in rest] == [(e.seq, e.type) for e in sent[3:]]
        assert halfday_app.follow_stream(_context(shared, "bob", services=reading), trace_id, after=-1) == "not_found"

        # a worker that stopped after two events of another plan
        for event in sent[:2]:
            holding.halfday_streams.append(
                "trace-dead", event.model_dump_json(), owner="alice", seq=event.seq, done=False
            )
        ctx = _context(shared, "alice", lang="en", services=reading)
        got = list(halfday_app.follow_stream(ctx, "trace-dead", after=-1, poll_s=0.05))
        assert [e.seq for e in got] == [0, 1, 2] and got[-1].type == "done"
        assert got[-1].data.type == "error" and got[-1].data.error.code == "STREAM_LOST"
        from core.words.halfday import ERRORS, word

        assert "stopped before it finished" in word(ERRORS, "STREAM_LOST", "en")  # the faces' sentence for it
        assert "停止" in word(ERRORS, "STREAM_LOST", "zh")


def make_offline(settings):
    from core.geo.registry import make_provider

    return make_provider("offline", region="shanghai", settings=settings)
