"""The browse rules without a browser: the default allowlist, which resolved addresses the guard accepts, and the
offers read from schema.org JSON-LD."""

from __future__ import annotations

import json

import pytest

from core.agent.browse_rules import extract_evidence, json_ld_offers
from core.agent.chromium import address_allowed
from core.config import Settings


def test_the_default_allowlist_is_the_demo_venue_server_only_when_it_is_served():
    assert Settings(venues_serve=True).browse_allowlist == ["127.0.0.1:8765"]
    assert Settings(venues_serve=True, venues_port=9123).browse_allowlist == ["127.0.0.1:9123"]
    # no venue server configured: no loopback port is open to the browser, whatever listens there
    assert Settings(venues_serve=False).browse_allowlist == []
    assert Settings(venues_serve=False, venues_port=9123).browse_allowlist == []
    assert Settings(browse_allowlist=[]).browse_allowlist == []  # an explicit list, even empty, is kept
    assert Settings(venues_serve=False, browse_allowlist=["example.com"]).browse_allowlist == ["example.com"]


def test_the_default_allowlist_follows_the_environment(monkeypatch):
    monkeypatch.setenv("OMNI_VENUES_SERVE", "1")  # as make run sets it beside the venue server it starts
    monkeypatch.setenv("OMNI_VENUES_PORT", "9124")
    assert Settings().browse_allowlist == ["127.0.0.1:9124"]
    monkeypatch.delenv("OMNI_VENUES_SERVE")
    assert Settings().browse_allowlist == []


@pytest.mark.parametrize(
    "address,url,ok",
    [
        ("93.184.215.14", "http://example.com/", True),  # public
        ("127.0.0.1", "http://example.com/", False),  # a listed name rebound to loopback
        ("10.0.0.8", "http://example.com/", False),
        ("169.254.169.254", "http://example.com/latest/meta-data", False),  # cloud metadata
        ("100.64.0.1", "http://example.com/", False),  # carrier-grade NAT
        ("0.0.0.0", "http://example.com/", False),
        ("::1", "http://example.com/", False),
        ("::ffff:127.0.0.1", "http://example.com/", False),  # IPv4-mapped loopback
        ("fe80::1%eth0", "http://example.com/", False),
        ("224.0.0.1", "http://example.com/", False),
        ("127.0.0.1", "http://127.0.0.1:8765/hotels", True),  # listed with its port
        ("127.0.0.1", "http://127.0.0.1:8766/", False),  # another port of it is not
        ("127.0.0.1", "http://localhost:8765/", True),  # a name resolving to the listed address and port
    ],
)
def test_resolved_addresses_are_checked_against_the_allowlist(address, url, ok):
    assert address_allowed(address, url, ["example.com", "127.0.0.1:8765"]) is ok


def test_offers_are_read_from_json_ld_as_stated_and_bad_blocks_are_skipped():
    blocks = [
        "{not json",
        '{"@type": "Event", "name": "Swan Lake", "startDate": "2026-12-24T19:30", "offers": ['
        '{"@type": "Offer", "name": "Stalls", "price": "680", "priceCurrency": "CNY",'
        ' "availability": "https://schema.org/SoldOut", "inventoryLevel": {"value": 0}},'
        '{"@type": "Offer", "name": "Circle", "priceCurrency": "CNY", "availability": "InStock"}]}',
    ]
    stalls, circle = json_ld_offers(blocks)
    assert (stalls.item, stalls.date, stalls.price, stalls.availability, stalls.left) == (
        "Swan Lake", "2026-12-24T19:30", 680.0, "unavailable", 0,
    )  # fmt: skip
    assert (circle.price, circle.availability, circle.left) == (None, "available", None)  # no price stated: none


def test_a_page_with_structured_offers_takes_no_price_from_its_text():
    html = (
        '<script type="application/ld+json">{"@type": "Hotel", "makesOffer": [{"@type": "Offer", "name": "King",'
        ' "price": 900, "priceCurrency": "CNY"}]}</script><p>Breakfast ¥120 per person</p>'
    )
    ev, _, _ = extract_evidence("http://h/", html)
    assert ev.price is None and [o.price for o in ev.offers] == [900.0]


def test_the_venue_server_command_refuses_a_bad_port_with_a_structured_error(capsys):
    from core.__main__ import main

    assert main(["venues", "serve", "--port", "70000"]) == 2
    err = json.loads(capsys.readouterr().err.strip().splitlines()[-1])["error"]
    assert err["field"] == "port" and "70000" in err["message"]
