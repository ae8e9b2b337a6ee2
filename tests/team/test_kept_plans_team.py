"""The dashboard's kept plans behind its share links (core/app/kept_plans.py, components/share.py), shared by a
team's dashboard processes through Redis (issue 33): a reload of a planned link that reaches another dashboard
process shows the plan made on the first one, without planning again. Redis down: each process keeps its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.app.kept_plans import PREFIX, InProcessPlans, RedisPlans
from core.geo.redis_limits import RedisLink
from tests.support.redis_server import RedisServer, free_port

ROOT = Path(__file__).resolve().parents[2]

#: one dashboard process, as components/share.py runs there: "plan" plans the scenario's route and keeps it (a click
#: on Plan); "reload" opens the same link (``reuse=True``) with planning made impossible, and prints what it shows
DASHBOARD = """
import json, sys
from components import share
from core.app import AppServices
from core.app.route import plan_route
from core.models.route import RoutePlanRequest

scenario = json.load(open("data/scenarios/family-day.json", encoding="utf-8"))
request = RoutePlanRequest.model_validate(scenario["request"])
ctx = AppServices().context(region="shanghai", provider="offline")
key = share.plan_key("route", request.model_dump(mode="json"), ctx.providers)

def refuse():
    raise SystemExit("the reload planned again")

compute = (lambda: plan_route(ctx, request)) if sys.argv[1] == "plan" else refuse
result = share.plan_and_keep(key, compute, reuse=sys.argv[1] == "reload")
print(json.dumps({"key": key, "result": result.model_dump(mode="json")}))
"""


def dashboard(step: str, tmp_path: Path, redis_url: str) -> dict[str, object]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "OMNI_REDIS_URL": redis_url,
        "OMNI_WARM_UP_ON_START": "0",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'team.db'}",
    }
    done = subprocess.run(
        [sys.executable, "-c", DASHBOARD, step], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.slow  # two Python processes, each planning or reading as a dashboard does
def test_a_reload_on_another_dashboard_process_shows_the_plan_made_on_the_first(tmp_path):
    with RedisServer(tmp_path / "redis") as redis:
        made = dashboard("plan", tmp_path, redis.url)
        reloaded = dashboard("reload", tmp_path, redis.url)
    assert reloaded["key"] == made["key"]
    assert reloaded["result"] == made["result"]
    result = made["result"]
    assert isinstance(result, dict) and result["success"] is True
    assert len(result["resolved_stops"]) == 3  # the scenario's three stops: a plan, not an empty answer


@pytest.fixture
def redis_server(tmp_path):
    with RedisServer(tmp_path / "redis") as server:
        yield server


def test_a_plan_kept_by_one_process_is_read_by_another_as_its_own_copy(redis_server):
    first = RedisPlans(RedisLink(redis_server.url))
    second = RedisPlans(RedisLink(redis_server.url))  # another process: its own link and its own memory
    first.put("k", {"order": ["a", "b", "c"]})
    mine = second.get("k")
    assert mine == {"order": ["a", "b", "c"]}
    mine["order"].append("z")
    assert second.get("k") == {"order": ["a", "b", "c"]}
    second.put("k", {"order": ["c", "b", "a"]})  # planned again elsewhere: the newer plan for everyone
    assert first.get("k") == {"order": ["c", "b", "a"]}
    assert second.get("unknown") is None


def test_a_plan_lives_in_redis_for_its_time_only(redis_server):
    import redis

    RedisPlans(RedisLink(redis_server.url), ttl_s=600).put("k", "plan")
    client = redis.Redis.from_url(redis_server.url)
    assert 590 <= client.ttl(f"{PREFIX}:k") <= 600


def test_a_plan_another_release_kept_is_a_miss_and_is_removed(redis_server):
    """Bytes this release cannot read back (another release's plan classes, or not a pickle at all) are no plan:
    the page plans again, nothing is raised, and the unreadable entry goes."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.set(
        f"{PREFIX}:old", b"\x80\x04\x95\x19\x00\x00\x00\x00\x00\x00\x00\x8c\x0bno_such_mod\x94\x8c\x04Plan\x94\x93\x94."
    )
    client.set(f"{PREFIX}:junk", b"not a pickle")
    plans = RedisPlans(RedisLink(redis_server.url))
    assert plans.get("old") is None and plans.get("junk") is None
    assert client.exists(f"{PREFIX}:old") == 0 and client.exists(f"{PREFIX}:junk") == 0
    assert PREFIX.startswith("omni:dashboard:plan:v")  # a release that changes the plans' layout bumps it


def test_with_redis_down_a_process_keeps_and_finds_its_own_plans():
    down = RedisLink(f"redis://127.0.0.1:{free_port()}/0", timeout_s=0.2)
    plans = RedisPlans(down, local=InProcessPlans())
    plans.put("k", {"order": [1, 2]})  # never raises: Redis is marked down, the plan stays in this process
    assert down.state == "down"
    assert plans.get("k") == {"order": [1, 2]}
    assert RedisPlans(down).get("k") is None  # another process: it has nothing, and says nothing is kept


def test_a_plan_kept_while_redis_was_down_is_still_found_here_once_it_answers_again(redis_server):
    link = RedisLink(redis_server.url, retry_s=0.0)
    plans = RedisPlans(link)
    redis_server.stop()
    plans.put("k", {"order": ["a", "b"]})  # Redis down: kept in this process only
    redis_server.start()
    assert plans.get("k") == {"order": ["a", "b"]}  # Redis answers and has nothing: this process's copy
    assert link.state == "up"
    assert RedisPlans(RedisLink(redis_server.url)).get("k") is None  # the others never had it
