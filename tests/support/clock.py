"""The suite's moment: every test runs at it unless it fixes another (docs/ARCHITECTURE.md, "Time").

``tests/conftest.py`` sets ``OMNI_NOW`` to ``SUITE_NOW`` before any test runs, so the product's clock (and that of
every server a test starts: they inherit the environment) stands still there. A Friday morning in Shanghai: "today",
"tomorrow" and "周六" all fall on open days. A test that needs a date writes it from this moment (``days_after``),
never from the machine's clock, so it passes on any day CI runs.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

SHANGHAI = ZoneInfo("Asia/Shanghai")
#: the moment of the whole suite: Friday 27 November 2026, 09:00 in Shanghai (01:00 UTC)
SUITE_NOW = datetime(2026, 11, 27, 9, 0, tzinfo=SHANGHAI)


def suite_today(zone: ZoneInfo = SHANGHAI) -> date:
    """The suite moment's date in ``zone``."""
    return SUITE_NOW.astimezone(zone).date()


def days_after(days: int, zone: ZoneInfo = SHANGHAI) -> date:
    """The date ``days`` days after the suite's today in ``zone``."""
    return suite_today(zone) + timedelta(days=days)
