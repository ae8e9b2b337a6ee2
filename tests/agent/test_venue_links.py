"""A link to a demo venue's page in a message is read for the day the message names (issue 31 audit: "帮我看看
<link> 明天还有没有房" reported the page's offers for today). The demo sites are core/venues' shipped catalogue."""

from __future__ import annotations

from datetime import date

from core.agent import venue_sites
from core.config import get_settings

SETTINGS = get_settings()
BASE = venue_sites.demo_base(SETTINGS)
[HOTEL, *_] = [s for s in venue_sites.demo_sites(SETTINGS, "shanghai") if s.kind == "hotel"]
SATURDAY = date(2026, 11, 28)


def test_a_link_to_a_demo_venue_page_is_that_venue_with_or_without_a_query():
    assert venue_sites.demo_site_of_url(f"{BASE}{HOTEL.path}", SETTINGS, "shanghai") == HOTEL
    assert venue_sites.demo_site_of_url(f"{BASE}{HOTEL.path}/?date=2026-12-01#rooms", SETTINGS, "shanghai") == HOTEL
    assert venue_sites.demo_site_of_url(f"{BASE}/hotels/no-such-hotel", SETTINGS, "shanghai") is None
    assert venue_sites.demo_site_of_url(f"http://hotel.example.com{HOTEL.path}", SETTINGS, "shanghai") is None


def test_the_link_is_read_for_the_day_asked_and_a_date_the_link_names_is_kept():
    asked = venue_sites.dated_url(f"{BASE}{HOTEL.path}", HOTEL, SETTINGS, SATURDAY)
    assert asked == f"{BASE}{HOTEL.path}?date=2026-11-28"
    own = f"{BASE}{HOTEL.path}?date=2026-12-03"
    assert venue_sites.dated_url(own, HOTEL, SETTINGS, SATURDAY) == own
