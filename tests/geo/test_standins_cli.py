"""The AMap stand-in as a demo starts it (python -m standins amap; make amap-standin): outside the product, on
127.0.0.1, keeping the QPS it is given."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx

from tests.support.paths import ROOT


def test_the_standin_serves_geocodes_and_refuses_calls_over_its_qps():
    proc = subprocess.Popen(
        [sys.executable, "-m", "standins", "amap", "--qps", "1", "--daily", "10"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        started = json.loads(proc.stdout.readline())
        assert started["base_url"].startswith("http://127.0.0.1:") and started["qps"] == 1
        params = {"key": "any-key-works", "address": "外滩"}
        infocodes = []
        for _ in range(5):  # faster than one a second: two of them fall in one second, over the key's QPS
            body = httpx.get(f"{started['base_url']}/v3/geocode/geo", params=params, timeout=10).json()
            infocodes.append(body["infocode"])
        assert infocodes[0] == "10000" and "10021" in infocodes[1:]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_a_bad_limit_is_refused_with_its_field():
    done = subprocess.run(
        [sys.executable, "-m", "standins", "amap", "--qps", "0"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert json.loads(done.stderr) == {
        "error": "INVALID_INPUT",
        "field": "qps",
        "message": "--qps must be a positive number, not 0",
    }
