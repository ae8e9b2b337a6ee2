"""The demo venue websites as an ASGI app (Starlette): one page per venue, for a date (``?date=YYYY-MM-DD``,
default today in the region's zone), in Chinese with English beside it. Every page publishes its offers as
schema.org JSON-LD (what a browser-driven agent reads), says in words and in a meta tag that its figures are demo
data, and the hotel marked ``captcha`` answers with a challenge page instead."""

from __future__ import annotations

import json
from datetime import date, timedelta
from html import escape
from typing import Any
from zoneinfo import ZoneInfo

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from core.clock import Clock, system_clock
from core.venues.catalog import DEMO_SOURCE, Hotel, Restaurant, Theatre, VenueSites

IN_STOCK, SOLD_OUT = "https://schema.org/InStock", "https://schema.org/SoldOut"
BANNER = "演示数据 · Demo data: invented prices and availability, not the venue's real offers."


def _page(title: str, body: str, ld: dict[str, Any] | None = None) -> HTMLResponse:
    script = ""
    if ld is not None:  # "</" cannot end the script early: JSON may escape the slash
        script = '<script type="application/ld+json">' + json.dumps(ld, ensure_ascii=False).replace("</", "<\\/")
        script += "</script>"
    html = (
        '<!doctype html><html lang="zh"><head><meta charset="utf-8">'
        f'<meta name="omni:source" content="{DEMO_SOURCE}"><title>{escape(title)}</title>{script}'
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #999;padding:4px 10px}.demo{background:#fe9;padding:6px}</style></head>"
        f'<body><p class="demo">{escape(BANNER)}</p><h1>{escape(title)}</h1>{body}</body></html>'
    )
    return HTMLResponse(html)


def _day(request: Request, sites: VenueSites, clock: Clock) -> date | HTMLResponse:
    raw = request.query_params.get("date")
    if not raw:
        return clock().astimezone(ZoneInfo(sites.timezone)).date()
    try:
        return date.fromisoformat(raw)
    except ValueError:
        return HTMLResponse(f"<p>Not a date: {escape(raw)} (YYYY-MM-DD)</p>", status_code=400)


def _money(value: float, currency: str) -> str:
    return f"{currency} {value:,.0f}"


def hotel_page(hotel: Hotel, night: date, currency: str) -> HTMLResponse:
    if hotel.captcha:
        return _page(
            "安全验证 · Security check",
            '<form id="challenge-form"><div class="g-recaptcha" data-sitekey="demo"></div>'
            "<p>请完成人机验证后继续 · Please verify you are human to continue.</p></form>",
        )
    offers, rows = [], []
    for room in hotel.rooms:
        price = hotel.rate(room, night)
        offer: dict[str, Any] = {
            "@type": "Offer",
            "name": room.name["zh"],
            "itemOffered": {"@type": "HotelRoom", "name": room.name["zh"], "alternateName": room.name["en"]},
            "priceCurrency": currency,
            "availability": SOLD_OUT if price is None else IN_STOCK,
            "validFrom": night.isoformat(),
            "validThrough": (night + timedelta(days=1)).isoformat(),
        }
        if price is not None:
            offer["price"] = price
        offers.append(offer)
        shown = "满房 · sold out" if price is None else _money(price, currency)
        rows.append(f"<tr><td>{escape(room.name['zh'])} · {escape(room.name['en'])}</td><td>{escape(shown)}</td></tr>")
    ld = {
        "@context": "https://schema.org",
        "@type": "Hotel",
        "name": hotel.name["zh"],
        "alternateName": hotel.name["en"],
        "makesOffer": offers,
        "cancellationPolicy": hotel.cancellation["zh"],
    }
    body = (
        f"<p>{escape(hotel.name['en'])}</p><h2>{night.isoformat()} 入住一晚 · one night from {night.isoformat()}</h2>"
        f"<table><tr><th>房型 · Room</th><th>房价 · Price</th></tr>{''.join(rows)}</table>"
        f"<p>取消政策 · Cancellation: {escape(hotel.cancellation['zh'])} {escape(hotel.cancellation['en'])}</p>"
    )
    return _page(hotel.name["zh"], body, ld)


def restaurant_page(rest: Restaurant, day: date, currency: str) -> HTMLResponse:
    menu = [
        {
            "@type": "MenuItem",
            "name": item.name["zh"],
            "alternateName": item.name["en"],
            "offers": {"@type": "Offer", "price": item.price, "priceCurrency": currency},
        }
        for item in rest.menu
    ]
    tables, rows = [], []
    for slot in rest.slots:
        left = rest.tables_left(day, slot)
        tables.append(
            {
                "@type": "Offer",
                "name": f"{slot} 订座 · table at {slot} (deposit per person)",
                "price": rest.deposit_per_person,
                "priceCurrency": currency,
                "availability": IN_STOCK if left else SOLD_OUT,
                "validFrom": f"{day.isoformat()}T{slot}",
                "inventoryLevel": {"@type": "QuantitativeValue", "value": left},
            }
        )
        rows.append(f"<tr><td>{slot}</td><td>{left}</td></tr>")
    ld = {
        "@context": "https://schema.org",
        "@type": "Restaurant",
        "name": rest.name["zh"],
        "alternateName": rest.name["en"],
        "openingHours": rest.opening_hours,
        "hasMenu": {"@type": "Menu", "hasMenuItem": menu},
        "makesOffer": tables,
    }
    dishes = "".join(
        f"<li>{escape(i.name['zh'])} · {escape(i.name['en'])}: {_money(i.price, currency)}</li>" for i in rest.menu
    )
    body = (
        f"<p>{escape(rest.name['en'])} · 营业时间 Opening hours: {escape(rest.opening_hours)}</p>"
        f"<h2>菜单 · Menu</h2><ul>{dishes}</ul>"
        f"<h2>{day.isoformat()} 余位 · tables left</h2><table><tr><th>时段 · Time</th><th>余桌 · Tables</th></tr>"
        f"{''.join(rows)}</table><p>订金每位 · Deposit per person: {_money(rest.deposit_per_person, currency)}</p>"
    )
    return _page(rest.name["zh"], body, ld)


def theatre_page(theatre: Theatre, day: date, currency: str) -> HTMLResponse:
    events, blocks = [], []
    for show in sorted((s for s in theatre.shows if s.date >= day), key=lambda s: (s.date, s.time)):
        offers, rows = [], []
        for seat in theatre.seat_classes:
            left = theatre.seats_left(show, seat)
            offers.append(
                {
                    "@type": "Offer",
                    "name": seat.name["zh"],
                    "price": seat.price,
                    "priceCurrency": currency,
                    "availability": IN_STOCK if left else SOLD_OUT,
                    "validFrom": f"{show.date.isoformat()}T{show.time}",
                    "inventoryLevel": {"@type": "QuantitativeValue", "value": left},
                }
            )
            rows.append(
                f"<tr><td>{escape(seat.name['zh'])} · {escape(seat.name['en'])}</td>"
                f"<td>{_money(seat.price, currency)}</td><td>{left}</td></tr>"
            )
        events.append(
            {
                "@type": "Event",
                "name": show.title["zh"],
                "alternateName": show.title["en"],
                "startDate": f"{show.date.isoformat()}T{show.time}",
                "offers": offers,
            }
        )
        blocks.append(
            f"<h2>{show.date.isoformat()} {show.time} {escape(show.title['zh'])} · {escape(show.title['en'])}</h2>"
            f"<table><tr><th>座位 · Seats</th><th>票价 · Price</th><th>余票 · Left</th></tr>{''.join(rows)}</table>"
        )
    ld = {"@context": "https://schema.org", "@type": "PerformingArtsTheater", "name": theatre.name["zh"],
          "alternateName": theatre.name["en"], "event": events}  # fmt: skip
    body = f"<p>{escape(theatre.name['en'])}</p>" + ("".join(blocks) or "<p>暂无演出 · No shows from this date.</p>")
    return _page(theatre.name["zh"], body, ld)


def build_app(sites: VenueSites, *, clock: Clock = system_clock) -> Starlette:
    """The demo sites of one region as an ASGI app; ``clock`` says which day a page without a date shows (the
    product's: ``OMNI_NOW``'s in a demo, so the sites agree with the planner)."""
    hotels = {h.slug: h for h in sites.hotels}
    restaurants = {r.slug: r for r in sites.restaurants}
    theatres = {t.slug: t for t in sites.theatres}

    def index(request: Request) -> HTMLResponse:
        links = "".join(
            f'<li><a href="{escape(s.path)}">{escape(s.name["zh"])} · {escape(s.name["en"])}</a></li>'
            for s in sites.site_paths()
        )
        return _page("演示场馆网站 · Demo venue websites", f"<ul>{links}</ul>")

    def venue(request: Request) -> HTMLResponse:
        kind, slug = request.path_params["kind"], request.path_params["slug"]
        day = _day(request, sites, clock)
        if isinstance(day, HTMLResponse):
            return day
        if kind == "hotels" and slug in hotels:
            return hotel_page(hotels[slug], day, sites.currency)
        if kind == "restaurants" and slug in restaurants:
            return restaurant_page(restaurants[slug], day, sites.currency)
        if kind == "theatres" and slug in theatres:
            return theatre_page(theatres[slug], day, sites.currency)
        return HTMLResponse("<p>Not found</p>", status_code=404)

    return Starlette(routes=[Route("/", index), Route("/{kind}/{slug}", venue)])
