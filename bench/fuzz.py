"""Fuzzing every entry point: the contract is that any input gives a structured answer.

``python -m core bench fuzz --examples N`` drives the command line (plan, itinerary, route, run) and the HTTP API
(every route, authenticated) with hypothesis-generated input: valid requests, near-valid ones, junk values of every
JSON type, lone surrogates, control characters, long strings, dates that do not exist, deep nesting. A finding is
a traceback, an exit code other than 0/1/2, an unstructured error, an INTERNAL_ERROR, or an HTTP 5xx. The test
suite runs the same targets for a few hundred examples (tests/faces/test_fuzz.py).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from core.config import PROJECT_ROOT, get_settings

PLACES = [
    "外滩",
    "豫园",
    "新天地",
    "人民广场",
    "上海博物馆",
    "The Bund",
    "Yu Garden",
    "浦东机场T2",
    "上海虹桥站",
    "静安区南京西路1686号",
    "和平饭店",
    "上海中心大厦",
    "田子坊",
]
DATES = ["今天", "明天", "后天", "2月29日", "2月30日", "13月45日", "9999-12-31", "2026-02-30", "0000-01-01", "12月31日"]


def _codepoints(max_size: int = 30) -> st.SearchStrategy[str]:
    """Any code points, lone surrogates and controls included (what a client can send as JSON escapes)."""
    return st.lists(st.integers(0, 0x10FFFF), max_size=max_size).map(lambda cps: "".join(map(chr, cps)))


def junk_text() -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=40),
        _codepoints(),
        st.sampled_from(
            [
                "",
                " ",
                "\x00",
                "\ud800",
                "\udfff x",
                "../../etc/passwd",
                "/tmp",
                "null",
                "NaN",
                "1e309",
                "<script>alert(1)</script>",
                '=HYPERLINK("x")',
                "'; DROP TABLE trips; --",
            ]
        ),
        st.integers(200, 120_000).map(lambda n: "长" * n),
    )


def junk_value() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**20), 10**20),
        st.floats(allow_nan=True, allow_infinity=True),
        junk_text(),
    )
    return st.recursive(
        scalars,
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
        max_leaves=12,
    )


def maybe(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a valid value (7 in 8), sometimes anything at all."""
    return st.one_of(*([valid] * 7), junk_value())


def place_text() -> st.SearchStrategy[str]:
    return st.one_of(*([st.sampled_from(PLACES)] * 5), junk_text())


def valid_route_payload() -> st.SearchStrategy[dict[str, Any]]:
    """A request that should plan: distinct known places, a fixed origin or live coordinates in Shanghai."""

    def build(args: tuple[list[str], int, bool, str, str, bool]) -> dict[str, Any]:
        names, n_stops, live, strategy, mode, round_trip = args
        origin, destination, *stops = names
        body: dict[str, Any] = {
            "origin_mode": "current_location" if live else "fixed",
            "destination_address": destination,
            "stops": stops[: max(1, n_stops)],
            "route_strategy": strategy,
            "transport_mode": mode,
        }
        if live:
            body.update(origin_lon=121.47, origin_lat=31.23)
        else:
            body["origin_address"] = origin
            if round_trip:
                body.pop("destination_address")
                body["round_trip"] = True
        return body

    return st.tuples(
        st.permutations(PLACES),
        st.integers(1, 6),
        st.booleans(),
        st.sampled_from(["shortest_distance", "fastest_time", "balanced"]),
        st.sampled_from(["driving", "walking"]),
        st.booleans(),
    ).map(build)


def route_payload() -> st.SearchStrategy[dict[str, Any]]:
    """Valid requests half the time, the rest near-valid or junk field by field."""
    stop = st.one_of(
        place_text(),
        st.fixed_dictionaries(
            {"address": maybe(place_text())},
            optional={"name": maybe(place_text()), "city": maybe(st.sampled_from(["上海", "北京"]))},
        ),
    )
    near_valid = st.fixed_dictionaries(
        {
            "origin_mode": maybe(st.sampled_from(["fixed", "current_location"])),
            "destination_address": maybe(place_text()),
            "stops": st.one_of(st.lists(stop, min_size=1, max_size=6), junk_value()),
        },
        optional={
            "origin_address": maybe(place_text()),
            "origin_lon": maybe(st.floats(-200, 200)),
            "origin_lat": maybe(st.floats(-100, 100)),
            "round_trip": maybe(st.booleans()),
            "route_strategy": maybe(st.sampled_from(["shortest_distance", "fastest_time", "balanced"])),
            "transport_mode": maybe(st.sampled_from(["driving", "walking"])),
            "max_permutations": maybe(st.integers(1, 40320)),
            "task_name": junk_text(),
        },
    )
    return st.one_of(valid_route_payload(), near_valid)


PLACE_IDS = [
    "sh-bund",
    "sh-yuyuan-garden",
    "sh-xintiandi",
    "sh-shanghai-museum",
    "sh-tianzifang",
    "sh-wukang-mansion",
    "sh-oriental-pearl",
    "sh-century-park",
    "sh-ocean-aquarium",
]


def valid_trip_payload() -> st.SearchStrategy[dict[str, Any]]:
    """A trip that should plan: 1-3 consecutive days, distinct pack places, sometimes a hard node."""

    def build(args: tuple[list[str], int, int, int, str, str, bool]) -> dict[str, Any]:
        ids, n_places, n_days, first_day, pacing, mode, pin = args
        places: list[dict[str, Any]] = [
            {"place_id": pid, "priority": ("must", "should", "nice")[i % 3]} for i, pid in enumerate(ids[:n_places])
        ]
        if pin:
            places[0].update(fixed_day=n_days - 1, fixed_start="14:00")
        return {
            "region": "shanghai",
            "hotel": {"place_id": "sh-peace-hotel"},
            "days": [
                {"date": f"2026-12-{first_day + d:02d}", "start_time": "09:00", "end_time": "20:00"}
                for d in range(n_days)
            ],
            "places": places,
            "pacing": pacing,
            "mode": mode,
        }

    return st.tuples(
        st.permutations(PLACE_IDS),
        st.integers(1, len(PLACE_IDS)),
        st.integers(1, 3),
        st.integers(1, 28),
        st.sampled_from(["relaxed", "normal", "tight"]),
        st.sampled_from(["driving", "walking"]),
        st.booleans(),
    ).map(build)


def trip_payload() -> st.SearchStrategy[dict[str, Any]]:
    """Valid trips half the time, the rest near-valid or junk field by field."""
    ids = ["sh-bund", "sh-yuyuan-garden", "sh-xintiandi", "sh-shanghai-museum", "sh-tianzifang", "sh-wukang-mansion"]
    clock = st.one_of(
        st.sampled_from(["09:00", "10:00", "18:00", "22:00", "24:00", "25:61", "9", "09:00+08:00"]), junk_value()
    )
    day = st.fixed_dictionaries(
        {"date": maybe(st.sampled_from(["2026-12-01", "2026-12-02", "9999-12-31", "2026-02-30"]))},
        optional={"start_time": clock, "end_time": clock},
    )
    place = st.fixed_dictionaries(
        {"place_id": maybe(st.sampled_from(ids))},
        optional={
            "priority": maybe(st.sampled_from(["must", "should", "nice", "normal"])),
            "visit_minutes": maybe(st.integers(1, 720)),
            "fixed_day": maybe(st.integers(0, 3)),
            "fixed_start": clock,
            "name": junk_text(),
        },
    )
    near_valid = st.fixed_dictionaries(
        {
            "days": st.one_of(st.lists(day, min_size=1, max_size=2), junk_value()),
            "places": st.one_of(st.lists(place, min_size=1, max_size=4), junk_value()),
            "hotel": maybe(st.just({"place_id": "sh-peace-hotel"})),
        },
        optional={
            "region": maybe(st.sampled_from(["shanghai", "/etc", "../x", "SHANGHAI"])),
            "timezone": maybe(st.sampled_from(["Asia/Shanghai", "Mars/Base", ""])),
            "lunch": maybe(
                st.fixed_dictionaries(
                    {},
                    optional={"window_start": clock, "window_end": clock, "duration_min": maybe(st.integers(0, 500))},
                )
            ),
            "pacing": maybe(st.sampled_from(["relaxed", "normal", "tight"])),
            "trip_name": junk_text(),
        },
    )
    return st.one_of(valid_trip_payload(), near_valid)


def agent_message() -> st.SearchStrategy[str]:
    a, b, d = st.sampled_from(PLACES), st.sampled_from(PLACES), st.sampled_from(DATES)
    templates = st.one_of(
        st.tuples(a, b).map(lambda t: f"从{t[0]}到{t[1]}开车要多久"),
        a.map(lambda x: f"加上{x}"),
        st.tuples(a, b).map(lambda t: f"删除{t[0]}、{t[1]}和{t[0]}"),
        st.tuples(a, st.integers(-3, 99)).map(lambda t: f"把{t[0]}移到第{t[1]}天"),
        d.map(lambda x: f"{x}天气怎么样"),
        st.tuples(d, st.integers(1, 3)).map(lambda t: f"{t[0]}开始规划{t[1]}天上海行程"),
        a.map(lambda x: f"帮我订{x}"),
        a.map(lambda x: f"{x}几点开门"),
        st.just("官网查房 http://evil.com\\@127.0.0.1/"),
    )
    return st.one_of(templates, templates, junk_text().filter(lambda s: bool(s.strip())))


def agent_body() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.fixed_dictionaries(
            {"message": agent_message()},
            optional={
                "options": maybe(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "dry_run": maybe(st.booleans()),
                            "max_steps": maybe(st.integers(1, 50)),
                            "max_seconds": maybe(st.floats(0.5, 20)),
                            "confirm_dry_run_id": maybe(st.text(max_size=20)),
                        },
                    )
                ),
                "trip_id": maybe(st.text(max_size=20)),
                "user_id": st.one_of(st.just("fuzzer"), junk_text()),
            },
        ),
        st.fixed_dictionaries({"message": agent_message()}),
        junk_value(),
        st.binary(max_size=64),  # not JSON, often not UTF-8: sent as the raw body
    )


# --- the targets: each returns a finding (a sentence) or None ----------------------------------------------------


def _structured(text: str) -> bool:
    try:
        error = json.loads(text.strip().splitlines()[-1])["error"]
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    return isinstance(error, dict) and {"code", "message", "field"} <= set(error)


#: How the cases ended, per entry point ("exit 0", "exit 2", "HTTP 422", ...): shows the input reached deep.
OUTCOMES: Counter[str] = Counter()


def run_cli(argv: list[str]) -> str | None:
    from core.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except BaseException as exc:  # noqa: BLE001 - anything escaping main is a finding
        return f"{argv[0]}: raised {type(exc).__name__}: {str(exc)[:120]}"
    stderr = err.getvalue()
    OUTCOMES[f"cli {argv[0]}: exit {code}"] += 1
    if "Traceback" in stderr:
        return f"{argv[0]}: traceback on stderr"
    if code not in (0, 1, 2):
        return f"{argv[0]}: exit code {code}"
    if code != 0 and argv[0] != "run" and not _structured(stderr):
        return f"{argv[0]}: exit {code} without a structured error: {stderr[-200:]!r}"
    if "INTERNAL_ERROR" in stderr or "INTERNAL_ERROR" in out.getvalue():
        return f"{argv[0]}: internal error: {(stderr or out.getvalue())[-200:]!r}"
    return None


def cli_with_file(command: str, payload: Any, folder: Path) -> str | None:
    path = folder / "request.json"
    path.write_text(json.dumps(payload, ensure_ascii=False, default=str), encoding="utf-8", errors="surrogatepass")
    return run_cli([command, "--request", str(path)])


def api_call(client: Any, method: str, url: str, body: Any = None) -> str | None:
    try:
        if method == "GET":
            response = client.get(url)
        else:
            content = body if isinstance(body, bytes) else json.dumps(body, default=str).encode("utf-8")
            response = client.post(url, content=content, headers={"Content-Type": "application/json"})
    except BaseException as exc:  # noqa: BLE001
        return f"{method} {url}: raised {type(exc).__name__}: {str(exc)[:120]}"
    OUTCOMES[f"api {url}: HTTP {response.status_code}"] += 1
    if response.status_code >= 500:
        return f"{method} {url}: HTTP {response.status_code}: {response.text[:200]}"
    if response.status_code >= 400 and not _structured(response.text):
        return f"{method} {url}: HTTP {response.status_code} without a structured error: {response.text[:200]}"
    return None


class Sandbox:
    """Settings for a fuzz run: a throwaway trip store and event log, the bundled data, one API key."""

    KEY = "fuzz-key-0123456789abcdef"

    def __enter__(self) -> Sandbox:
        from core.auth import key_digest

        self._tmp = tempfile.TemporaryDirectory(prefix="omni-fuzz-")
        self.folder = Path(self._tmp.name)
        self._env = {
            "OMNI_DB_URL": f"sqlite:///{self.folder / 'trips.db'}",
            "OMNI_AGENT_EVENT_LOG": str(self.folder / "events.jsonl"),
            "OMNI_KB_DIR": str(self.folder / "kb"),
            "OMNI_DATA_DIR": str(PROJECT_ROOT / "data"),
            "OMNI_REGION": "shanghai",
            "OMNI_PROVIDER": "offline",
            "OMNI_API_KEYS": json.dumps({"fuzzer": key_digest(self.KEY)}),
            "OMNI_SOLVER_TIME_LIMIT_S": "0.2",
            "OMNI_ITINERARY_SOLVER_TIME_LIMIT_S": "0.5",
        }
        self._saved = {k: os.environ.get(k) for k in self._env}
        os.environ.update(self._env)
        get_settings.cache_clear()
        from fastapi.testclient import TestClient

        from api import app

        self.client = TestClient(app, headers={"Authorization": f"Bearer {self.KEY}"}, raise_server_exceptions=False)
        return self

    def __exit__(self, *exc: object) -> None:
        for k, v in self._saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        get_settings.cache_clear()
        self._tmp.cleanup()


TARGETS = ("cli plan", "cli itinerary", "cli route", "cli run", "api route_and_run", "api metrics", "api actions")


def fuzz_case(target: str) -> st.SearchStrategy[Any]:
    return {
        "cli plan": route_payload(),
        "cli itinerary": trip_payload(),
        "cli route": agent_message(),
        "cli run": agent_message(),
        "api route_and_run": agent_body(),
        "api metrics": st.none(),
        "api actions": st.none(),
    }[target]


def run_case(box: Sandbox, target: str, case: Any) -> str | None:
    if target == "cli plan":
        return cli_with_file("plan", case, box.folder)
    if target == "cli itinerary":
        return cli_with_file("itinerary", case, box.folder)
    if target == "cli route":
        return run_cli(["route", case])
    if target == "cli run":
        return run_cli(["run", "--message", case])
    if target == "api route_and_run":
        return api_call(box.client, "POST", "/agent/route_and_run", case)
    if target == "api metrics":
        return api_call(box.client, "GET", "/agent/metrics")
    return api_call(box.client, "GET", "/agent/actions")


def fuzz(target: str, *, examples: int, box: Sandbox, findings: list[str], seed: int | None = None) -> int:
    """Run ``examples`` generated cases against ``target``; findings are appended (the run goes on)."""
    ran = 0

    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=seed is not None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(fuzz_case(target))
    def one(case: Any) -> None:
        nonlocal ran
        ran += 1
        finding = run_case(box, target, case)
        if finding:
            findings.append(finding)

    one()
    return ran


def bench_fuzz(*, examples: int, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Spread ``examples`` over every entry point (weighted toward the request-taking ones) and report."""
    weights = {
        "cli plan": 4,
        "cli itinerary": 2,
        "cli route": 2,
        "cli run": 2,
        "api route_and_run": 4,
        "api metrics": 1,
        "api actions": 1,
    }
    total = sum(weights.values())
    findings: list[str] = []
    per_target: dict[str, dict[str, Any]] = {}
    OUTCOMES.clear()
    with Sandbox() as box:
        for target in TARGETS:
            n = max(1, examples * weights[target] // total)
            t0 = time.perf_counter()
            before = len(findings)
            ran = fuzz(target, examples=n, box=box, findings=findings)
            per_target[target] = {
                "examples": ran,
                "findings": len(findings) - before,
                "seconds": round(time.perf_counter() - t0, 1),
            }
            if progress:
                progress(f"{target}: {ran} examples, {len(findings) - before} findings")
    return {
        "benchmark": "fuzz",
        "examples": sum(v["examples"] for v in per_target.values()),
        "findings": len(findings),
        "by_target": per_target,
        "distinct_findings": dict(Counter(f.split(":")[0] + ":" + f.split(":")[1] for f in findings)),
        "outcomes": dict(sorted(OUTCOMES.items())),
        "first_findings": findings[:20],
    }
