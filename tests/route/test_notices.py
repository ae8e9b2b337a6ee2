"""The route planner's notices (core/route/notices.py): every code the core can emit is in the registry with the
parameters it is made with, and has words in both languages that use only those parameters; the CLI prints the
warnings as English sentences and the notices as codes."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import i18n
from core.geo.base import LoggedWarning
from core.models.route import Notice
from core.route.notices import NOTICES, WHO, from_log, notice, words
from tests.support.paths import ROOT

# and the route's use case, which says a switch of region (REGION_SWITCHED, core/app/scope.py)
ROUTE_SOURCES = [*sorted((ROOT / "core" / "route").glob("*.py")), ROOT / "core" / "app" / "route.py"]
GEO_SOURCES = sorted((ROOT / "core" / "geo").glob("*.py"))


def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def emitted() -> dict[str, list[tuple[str, set[str]]]]:
    """Every code the core's source makes a notice or a service warning of, with the parameter names of each call:
    ``notice("CODE", ..., key=...)`` in core/route (``**named`` is an input's WHO parameters) and
    ``_warn(..., code="CODE", params={...})`` / ``warnings.add(..., code=...)`` in core/geo."""
    found: dict[str, list[tuple[str, set[str]]]] = {}
    for path in [*ROUTE_SOURCES, *GEO_SOURCES]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            name = _name(node.func)
            if name == "notice" and node.args and isinstance(node.args[0], ast.Constant):
                params = {k.arg for k in node.keywords if k.arg not in (None, "detail")}
                if any(k.arg is None for k in node.keywords):
                    params |= set(WHO)
                found.setdefault(str(node.args[0].value), []).append((where, params))
            elif name in ("_warn", "add"):
                kw = {k.arg: k.value for k in node.keywords}
                code = kw.get("code")
                if isinstance(code, ast.Constant):
                    given = kw.get("params")
                    keys = (
                        {k.value for k in given.keys if isinstance(k, ast.Constant)}
                        if isinstance(given, ast.Dict)
                        else set()
                    )
                    found.setdefault(str(code.value), []).append((where, keys))
    return found


def test_the_source_is_read():
    codes = emitted()
    assert {"FUZZY_MATCH", "START_UNKNOWN", "WEB_SPLIT", "PROVIDER_FALLBACK", "PROVIDER_PAIRS_ESTIMATED"} <= set(codes)
    assert len(codes) >= 25


def test_every_code_the_core_emits_is_registered_with_the_parameters_it_is_made_with():
    for code, calls in emitted().items():
        assert code in NOTICES, f"{code} ({calls[0][0]}) is not in core/route/notices.py NOTICES"
        for where, params in calls:
            assert params == set(NOTICES[code].params), (code, where, sorted(params))


def test_every_registered_code_is_emitted_somewhere():
    assert set(NOTICES) - set(emitted()) == {"PROVIDER_NOTE"}  # the default of WarningLog.add (core/geo/base.py)


@pytest.mark.parametrize("code", sorted(NOTICES))
def test_every_code_has_words_in_both_languages_that_use_only_its_parameters(code):
    spec = NOTICES[code]
    # "point" (a point's id) fills {name}, and with "input" {who}
    allowed = set(spec.params) | ({"who"} if set(WHO) <= set(spec.params) else set())
    allowed |= {"name"} if "point" in spec.params else set()
    sample = {p: 2 if p in ("n", "count", "total", "a", "b") else f"<{p}>" for p in spec.params}
    if "point" in sample:
        sample["point"] = "stops.2"
    for lang in i18n.LANGS:
        assert i18n.has(spec.key, lang), (code, spec.key, lang)
        assert i18n.placeholders(i18n.messages(lang, "route")[spec.key]) <= allowed, (code, lang)
        text = words(Notice(code=code, params=sample, severity=spec.severity), lang)
        assert text and "{" not in text, (code, lang, text)


def test_a_notice_is_made_with_exactly_its_parameters():
    assert notice("WEB_SPLIT", n=3, vias=1).severity == "info"
    with pytest.raises(ValueError, match="WEB_SPLIT"):
        notice("WEB_SPLIT", n=3)
    with pytest.raises(KeyError):
        notice("NOT_A_CODE")


def test_a_service_warning_without_a_known_code_is_a_provider_note_with_its_sentence():
    plain = from_log(LoggedWarning(code="PROVIDER_NOTE", message="lines: every pair is 1 km"))
    assert plain.code == "PROVIDER_NOTE" and plain.detail == "lines: every pair is 1 km"
    odd = from_log(LoggedWarning(code="PROVIDER_FALLBACK", message="x unavailable", params={"provider": "X"}))
    assert odd.code == "PROVIDER_NOTE" and odd.params == {}
    full = from_log(
        LoggedWarning(
            code="PROVIDER_FALLBACK",
            message="AMap route unavailable (timed out); used offline_estimate instead",
            params={"provider": "AMap", "service": "route", "used": "offline_estimate"},
        )
    )
    # logged before the cause was kept: it reads as a failed call, the sentence whole
    assert words(full, "zh") == "AMap 没有答复路线请求(调用失败),已改用地区数据包的离线数据。"
    assert words(full, "en") == (
        "AMap did not answer the route request (the call failed); the region pack's offline data was used instead."
    )
    timed_out = from_log(
        LoggedWarning(
            code="PROVIDER_FALLBACK",
            message="AMap route unavailable (timed out after 1 attempt(s)); used offline_estimate instead",
            params={"provider": "AMap", "service": "route", "used": "offline_estimate", "cause": "timeout"},
        )
    )
    assert "(it did not answer in time)" in words(timed_out, "en") and "(未能及时答复)" in words(timed_out, "zh")


def test_the_cli_prints_warnings_as_sentences_and_notices_as_codes(tmp_path):
    request = Path(ROOT / "data" / "scenarios" / "my-location-errands.json")
    html = str(tmp_path / "report.html")  # the scenario asks for the report: not into the checkout
    proc = subprocess.run(
        [sys.executable, "-m", "core", "plan", "--request", str(request), "--provider", "offline", "--html", html],
        cwd=ROOT,
        env={**os.environ},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [n["code"] for n in out["notices"]][:2] == ["START_UNKNOWN", "OFFLINE_ESTIMATES_AT"]
    assert len(out["warnings"]) == len(out["notices"])
    assert out["warnings"][0].startswith("Start position unknown (current location without coordinates)")
    estimate = out["notices"][1]
    assert estimate["params"]["mode"] == "driving" and estimate["detail"].startswith("Offline estimate (driving)")
    assert f"at {estimate['params']['speed_kmh']} km/h" in out["warnings"][1]
