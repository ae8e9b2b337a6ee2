"""api.py's app, for a server process a test means to kill (``uvicorn tests.support.pausing_api:app``): the requests of
one user stop for good at a named point, so the test can SIGKILL the process exactly there. Nothing changes for any
other user, nor without ``KILLED_TEST_PAUSE_USER``.

The points, each written as ``<point> <pid>`` to ``KILLED_TEST_PAUSE_FILE`` when reached:
- ``reserve``: inside the confirming transaction, after the quote's token is spent and the reservation is made
  ``pending``, before the venue's answer (core/reservations/service.py ``_create``);
- ``stage7``: the user's half-day stream at stage 7 (present and reserve), its earlier events already sent.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa

from api import app
from core.halfday import pipeline
from core.reservations import store
from core.reservations.service import ReservationService

__all__ = ["app"]

USER = os.environ.get("KILLED_TEST_PAUSE_USER")
MARKS = os.environ.get("KILLED_TEST_PAUSE_FILE")


def _stop_here(point: str) -> None:
    assert MARKS is not None
    with open(MARKS, "a", encoding="utf-8") as marks:
        marks.write(f"{point} {os.getpid()}\n")
    while True:  # until the test kills this process
        time.sleep(60)


if USER and MARKS:
    create = ReservationService._create
    deliver = pipeline._deliver

    def _create_then_stop(self: ReservationService, conn: Any, rid: str, now: Any) -> None:
        create(self, conn, rid, now)
        owner = conn.execute(sa.select(store.reservations.c.user_id).where(store.reservations.c.id == rid)).scalar()
        if owner == USER:
            _stop_here("reserve")

    def _deliver_or_stop(stream: Any, plans: Any, candidates: Any, request: Any, **rest: Any) -> Iterator[Any]:
        if request.user_id == USER:
            _stop_here("stage7")
        yield from deliver(stream, plans, candidates, request, **rest)

    ReservationService._create = _create_then_stop  # type: ignore[method-assign]
    pipeline._deliver = _deliver_or_stop
