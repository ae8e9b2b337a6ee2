"""The product's one clock (docs/ARCHITECTURE.md, "Time").

Every calendar decision (opening hours, "today" and "tomorrow", booking cut-offs, trip dates, half-day links,
reservation slots, stored timestamps) reads the moment from a ``Clock``: a function that returns an aware
``datetime``. A request's clock is built once, by ``clock_from_settings``, and travels in the request context;
domains are handed it (or the moment it read), never reach for the wall clock themselves.

``OMNI_NOW`` (setting ``now``) fixes the moment: the clock then stands still there. Tests pin their moment with it,
and a demo shows the same bookable slots on any day. Without it the clock is the machine's, in UTC.

Two other readings live here and nowhere else:
- ``monotonic``: durations and timeouts (never a calendar fact; libfaketime shifts it with the wall clock);
- ``real_epoch_s``: the machine's seconds since the epoch, for records of when something really happened (a log
  line, a page fetched) and for what another party's clock decides (AMap resets a key's daily quota at its own
  midnight, whatever moment a demo pretends it is).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.config import Settings

#: A clock: the current moment, timezone-aware.
Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The machine's moment, in UTC (a request turns it into its own zone)."""
    return datetime.now(UTC)


def fixed_clock(moment: datetime) -> Clock:
    """A clock that stands still at ``moment`` (a naive moment is taken as UTC)."""
    at = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)

    def clock() -> datetime:
        return at

    return clock


def clock_from_settings(settings: Settings) -> Clock:
    """The clock the settings ask for: ``OMNI_NOW``'s fixed moment, else the machine's."""
    return fixed_clock(settings.now) if settings.now is not None else system_clock


def real_epoch_s() -> float:
    """The machine's seconds since the epoch: log stamps, fetch stamps, another party's windows and resets; never a
    calendar choice of the product's own (those read the request's ``Clock``)."""
    return time.time()


def monotonic() -> float:
    """Seconds on a clock that only moves forward: for durations, deadlines and timeouts."""
    return time.monotonic()
