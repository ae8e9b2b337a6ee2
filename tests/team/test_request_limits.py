"""Per-key request limits shared by every worker (issue 33): past the key's limit the API answers 429 with
Retry-After, whichever worker the request reaches; another key is not slowed; without Redis each worker counts
alone, and a Redis that stops answering fails nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
import pytest

from core.app.request_limits import RequestLimits, TooManyRequests
from tests.support.api_client import api_env, auth
from tests.support.paths import ROOT
from tests.support.redis_server import RedisServer, free_port


def test_two_workers_count_one_key_together_on_redis_and_alone_without_it(tmp_path):
    with RedisServer(tmp_path / "redis") as redis:
        one, two = (RequestLimits("3/minute", redis_url=redis.url) for _ in range(2))
        one.check("alice")
        two.check("alice")
        one.check("alice")
        with pytest.raises(TooManyRequests) as refused:
            two.check("alice")  # the key's fourth request, on the other worker
        assert 1 <= refused.value.retry_after_s <= 60
        two.check("bob")  # another key has its own count
        redis.stop()
        alone = RequestLimits("3/minute", redis_url=redis.url)
        for _ in range(3):
            alone.check("alice")  # Redis gone: this worker counts alone, and fails nothing for it
        with pytest.raises(TooManyRequests):
            alone.check("alice")
    unlimited = RequestLimits(None)
    for _ in range(100):
        unlimited.check("alice")


@pytest.mark.slow
def test_the_api_on_two_worker_processes_answers_429_with_retry_after_past_the_keys_limit(tmp_path):
    with RedisServer(tmp_path / "redis") as redis:
        port = free_port()
        env = {
            **os.environ,
            **api_env(tmp_path, data_dir=ROOT / "data", region="shanghai", OMNI_REDIS_URL=redis.url,
                      OMNI_API_USER_LIMIT="6/minute"),
        }  # fmt: skip
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "api:app", "--host", "127.0.0.1", "--port", str(port), "--workers", "2"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:  # up when both workers may answer (not a duration under test)
                try:
                    if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            statuses = []
            for _ in range(9):  # a new connection each time: the requests spread over the workers
                answer = httpx.get(f"{base}/agent/metrics", headers=auth("alice"), timeout=30)
                statuses.append(answer.status_code)
                if answer.status_code == 429:
                    assert int(answer.headers["Retry-After"]) >= 1
                    assert answer.json()["error"]["code"] == "TOO_MANY_REQUESTS"
            assert statuses == [200] * 6 + [429] * 3, statuses
            assert httpx.get(f"{base}/agent/metrics", headers=auth("bob"), timeout=30).status_code == 200
        finally:
            server.terminate()
            server.wait(timeout=30)
