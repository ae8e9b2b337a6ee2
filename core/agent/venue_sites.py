"""Which websites the agent may visit, in words, and which page to visit for a message: a URL the message gives,
else the website of a venue it names (or of the only kind of venue it asks about) among the demo venue sites
(core/venues), which the default allowlist holds."""

from __future__ import annotations

from datetime import date

from core.agent.lexicon import URL
from core.agent.trip_request import mentioned_places
from core.config import Settings
from core.geo.text import normalize
from core.models.region import RegionPack
from core.venues.catalog import VenueKind, VenueSite, load_sites

#: words that ask about one kind of venue's website (checked in this order: 房价 is a hotel's, 饭店 may be either)
KIND_WORDS: tuple[tuple[VenueKind, tuple[str, ...]], ...] = (
    ("hotel", ("酒店", "宾馆", "房价", "客房", "住宿", "hotel", "room")),
    ("theatre", ("剧院", "演出", "门票", "座位", "theatre", "theater", "show", "seat", "concert")),
    ("restaurant", ("餐厅", "餐馆", "订座", "菜单", "restaurant", "table", "menu")),
)


def demo_base(settings: Settings) -> str:
    return f"http://127.0.0.1:{settings.venues_port}"


def demo_sites(settings: Settings, region: str) -> list[VenueSite]:
    sites = load_sites(settings.venues_dir, region)
    return sites.site_paths() if sites is not None else []


def allowed_sites(settings: Settings, region: str) -> list[str | list[VenueSite]]:
    """The allowlist's entries: the demo server as the venues it serves, any other entry as written (worded by
    core.words.agent.site_names)."""
    demo_entry = demo_base(settings).removeprefix("http://")
    entries: list[str | list[VenueSite]] = []
    for entry in settings.browse_allowlist:
        venues = demo_sites(settings, region) if entry.strip().lower() == demo_entry else []
        entries.append(venues or entry.strip())
    return entries


def site_for_message(message: str, pack: RegionPack, settings: Settings) -> VenueSite | None:
    """The demo site of a venue the message names, else of the first venue of the one kind it asks about."""
    sites = demo_sites(settings, pack.name)
    by_place = {s.place_id: s for s in sites}
    for place_id in mentioned_places(message, pack):
        if place_id in by_place:
            return by_place[place_id]
    text = normalize(message)
    for kind, words in KIND_WORDS:
        if any(w in text for w in words):
            return next((s for s in sites if s.kind == kind), None)
    return None


def message_url(message: str) -> str | None:
    found = URL.findall(message)
    return str(found[0]) if found else None


def site_url(site: VenueSite, settings: Settings, day: date) -> str:
    return f"{demo_base(settings)}{site.path}?date={day.isoformat()}"


def demo_site_of_url(url: str, settings: Settings, region: str) -> VenueSite | None:
    """The demo venue site a link points at (its page, with or without a query), else None."""
    base = demo_base(settings)
    if not url.startswith(base):
        return None
    path = url[len(base) :].split("?", 1)[0].split("#", 1)[0].rstrip("/")
    return next((s for s in demo_sites(settings, region) if s.path.rstrip("/") == path), None)


def dated_url(url: str, site: VenueSite, settings: Settings, day: date) -> str:
    """A link to a demo venue's page, for the day the message names (its page lists that day's offers); a link that
    names its own date keeps it."""
    if "date=" in url:
        return url
    return site_url(site, settings, day)
