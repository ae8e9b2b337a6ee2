"""The HTTP base every remote provider stands on: timeouts, status codes, pacing, redaction, closing."""

from __future__ import annotations

import logging

import httpx
import pytest

from core.errors import ProviderError, ProviderRateLimited, ProviderTimeout, ProviderUnavailable
from core.geo.http import HttpService, redact_secret, sanitize_body

SECRET = "s3cr3t-key-7a8b9c"


def service(handler, **kw) -> HttpService:
    return HttpService(
        base_url="http://svc.test/", client=httpx.Client(transport=httpx.MockTransport(handler)), secret=SECRET, **kw
    )


def test_json_answer_and_the_params_sent():
    seen = []

    def ok(request):
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    assert service(ok).get_json("/v1/x", {"q": "外滩", "key": SECRET}) == {"ok": True}
    assert seen[0].url.path == "/v1/x" and seen[0].url.params["q"] == "外滩"


@pytest.mark.parametrize(
    "status,exc",
    [
        (429, ProviderRateLimited),
        (500, ProviderUnavailable),
        (503, ProviderUnavailable),
        (408, ProviderUnavailable),
        (400, ProviderError),
        (302, ProviderError),
        (404, ProviderError),
    ],
)
def test_status_codes_map_to_provider_errors(status, exc):
    with pytest.raises(exc) as info:
        service(lambda r: httpx.Response(status, text=f"echo key={SECRET}")).get_json("/v1/x", {"key": SECRET})
    assert info.value.details["http_status"] == status
    assert SECRET not in str(info.value) and SECRET not in str(info.value.details)


def test_transport_failures_name_the_endpoint_and_never_the_secret(caplog):
    def refuse(request):
        raise httpx.ConnectError(f"cannot connect to {request.url}", request=request)

    def slow(request):
        raise httpx.ReadTimeout(f"read timed out for {request.url}", request=request)

    caplog.set_level(logging.DEBUG)
    with pytest.raises(ProviderUnavailable) as down:
        service(refuse).get_json("/v1/x", {"key": SECRET})
    with pytest.raises(ProviderTimeout) as late:
        service(slow, timeout_s=2.5).get_json("/v1/x", {"key": SECRET})
    assert "2.5 s" in late.value.message and late.value.details == {"endpoint": "/v1/x", "timeout_s": 2.5}
    for exc in (down.value, late.value):
        assert SECRET not in str(exc) and exc.__cause__ is None  # no chained exception carries the URL
    assert SECRET not in caplog.text


def test_a_body_that_is_not_json_is_a_provider_failure():
    with pytest.raises(ProviderUnavailable, match="not JSON"):
        service(lambda r: httpx.Response(200, text="<html>maintenance</html>")).get_json("/v1/x", {})


def test_pacing_sleeps_between_calls_with_the_injected_clock():
    slept, now = [], [100.0]
    svc = service(lambda r: httpx.Response(200, json={}), min_interval_s=1.5, sleep=slept.append, clock=lambda: now[0])
    svc.get_json("/a", {})
    now[0] += 0.5
    svc.get_json("/b", {})
    assert slept == [pytest.approx(1.0)]


def test_an_owned_client_is_closed_and_an_injected_one_is_not():
    injected = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200, json={})))
    with HttpService(base_url="http://svc.test", client=injected) as svc:
        svc.get_json("/a", {})
    assert not injected.is_closed
    own = HttpService(base_url="http://svc.test")
    own.close()
    assert own._client.is_closed


def test_redaction_covers_urls_bodies_and_the_literal_value():
    text = f'GET /x?key={SECRET}&q=1 body {{"key": "{SECRET}"}} and {SECRET}'
    out = redact_secret(text, SECRET)
    assert SECRET not in out and out.count("***") == 3
    body = sanitize_body({"key": SECRET, "info": f"INVALID_USER_KEY {SECRET}", "nested": [{"token": "t"}]}, SECRET)
    assert body == {"key": "***", "info": "INVALID_USER_KEY ***", "nested": [{"token": "***"}]}
