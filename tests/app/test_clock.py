"""The one clock (core/clock.py): OMNI_NOW fixes the moment of every face's context and of the services below it;
the product reads the wall clock nowhere else (scripts/check_clock.py)."""

from __future__ import annotations

import importlib.util
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from core.app.context import AppServices
from core.clock import clock_from_settings, fixed_clock, system_clock
from core.config import Settings
from tests.support.clock import SUITE_NOW
from tests.support.paths import ROOT

_SPEC = importlib.util.spec_from_file_location("check_clock", ROOT / "scripts" / "check_clock.py")
assert _SPEC is not None and _SPEC.loader is not None
check_clock = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(check_clock)
check_clock_main, wall_reads = check_clock.main, check_clock.wall_reads

SHANGHAI = ZoneInfo("Asia/Shanghai")


def test_omni_now_is_a_moment_with_its_offset():
    settings = Settings(now="2028-02-29T23:30:00+08:00")
    assert settings.now == datetime(2028, 2, 29, 15, 30, tzinfo=UTC)
    with pytest.raises(ValidationError, match="no UTC offset"):
        Settings(now="2028-02-29T23:30:00")


def test_the_settings_clock_stands_still_at_omni_now_else_it_is_the_machines():
    fixed = clock_from_settings(Settings(now="2027-01-05T10:00:00+08:00"))
    assert fixed() == fixed() == datetime(2027, 1, 5, 2, 0, tzinfo=UTC)
    assert clock_from_settings(Settings(now=None)) is system_clock
    assert fixed_clock(datetime(2027, 1, 5, 2, 0))().tzinfo is UTC  # a naive moment is UTC's


def test_a_context_is_on_the_settings_clock_and_its_today_is_the_regions():
    # 16:30 UTC on a leap day is already 1 March in Shanghai, still 29 February in Helsinki
    services = AppServices(Settings(now="2028-02-29T16:30:00Z"))
    ctx = services.context(region="shanghai")
    assert ctx.now() == datetime(2028, 3, 1, 0, 30, tzinfo=SHANGHAI)
    assert ctx.today() == date(2028, 3, 1)
    assert services.context(region="helsinki").today() == date(2028, 2, 29)
    # a face's own clock wins over the settings' (the CLI's --now)
    other = services.context(region="shanghai", clock=fixed_clock(datetime(2027, 6, 1, 4, tzinfo=UTC)))
    assert other.today() == date(2027, 6, 1)
    # a face's moment without an offset (the CLI's --now) is the request's local time, for every service handed it
    naive = services.context(region="shanghai", clock=lambda: datetime(2027, 1, 5, 10, 0))
    assert naive.clock() == datetime(2027, 1, 5, 10, 0, tzinfo=SHANGHAI)
    assert naive.reservations().clock() == datetime(2027, 1, 5, 2, 0, tzinfo=UTC)


def test_a_requests_reservation_service_books_on_the_requests_clock(tmp_path):
    settings = Settings(now="2027-01-05T10:00:00+08:00", db_url=f"sqlite:///{tmp_path / 'r.db'}")
    services = AppServices(settings)
    at_ten = services.context(region="shanghai")
    later = services.context(region="shanghai", clock=fixed_clock(datetime(2027, 1, 9, 12, tzinfo=UTC)))
    assert at_ten.reservations().clock() == datetime(2027, 1, 5, 2, 0, tzinfo=UTC)
    assert later.reservations().clock() == datetime(2027, 1, 9, 12, 0, tzinfo=UTC)
    assert at_ten.reservations().clock() == datetime(2027, 1, 5, 2, 0, tzinfo=UTC)  # the shared one is not re-clocked
    service = at_ten.reservations()
    item = next(i for i in (service.item(p.id) for p in service.pack.places) if i is not None)
    first, slot = service.earliest_slot(item)
    assert first >= date(2027, 1, 5) and service.bookable_at(item, first, slot)
    assert not service.bookable_at(item, date(2027, 1, 4), time(12, 0))  # the day before the clock's today


def test_the_suite_runs_at_its_own_moment():
    """conftest sets OMNI_NOW for every test and every server a test starts."""
    from core.config import get_settings

    get_settings.cache_clear()
    assert get_settings().now == SUITE_NOW
    assert AppServices().context(region="shanghai").today() == date(2026, 11, 27)


@pytest.mark.parametrize(
    "source,expected",
    [
        ("from datetime import datetime\nx = datetime.now()\n", [(2, "datetime.now")]),
        ("import datetime\nx = datetime.datetime.now(tz)\n", [(2, "datetime.datetime.now")]),
        ("from datetime import date\nd = date.today()\n", [(2, "date.today")]),
        ("import time\ndef f(clock=time.time):\n    return clock()\n", [(2, "time.time")]),
        ("from time import time\nt = time()\n", [(2, "time()")]),
        ("import time\nt = time.monotonic() - time.perf_counter()\n", []),
        ("x = ctx.now()\ny = hold.now()\n", []),
    ],
)
def test_the_clock_check_finds_every_wall_clock_read(source, expected):
    assert wall_reads(source) == expected


def test_the_product_reads_the_wall_clock_only_in_core_clock(project_root, capsys):
    assert check_clock_main(["check_clock", str(project_root)]) == 0, capsys.readouterr().out


def test_the_clock_check_fails_on_a_product_file_that_reads_the_wall_clock(tmp_path, capsys):
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "clock.py").write_text("import time\nt = time.time()\n")
    (tmp_path / "core" / "late.py").write_text("from datetime import date\n\nTODAY = date.today()\n")
    assert check_clock_main(["check_clock", str(tmp_path)]) == 1
    assert capsys.readouterr().out.strip() == (
        "core/late.py:3: date.today reads the wall clock; take the request's clock (core/clock.py)"
    )
