"""The agent's trip request from a message: the start date read from the request's "now"."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from core.agent.state import AgentContext
from core.agent.trip_request import _start_date
from core.app.agent import agent_deps
from core.models.agent import AgentRequest
from tests.support.agent_packs import make_provider, make_settings


@pytest.mark.parametrize("tzinfo", [UTC, None], ids=["utc-timezone", "naive"])
def test_start_date_takes_a_now_whose_zone_is_not_a_zoneinfo(tmp_path, tzinfo):
    """route_and_run(now=...) may get any datetime: one in datetime.UTC (no ``.key``) or a naive one
    used to fail with AttributeError when the message named a day."""
    settings = make_settings(tmp_path)
    req = AgentRequest(message="明天去外滩", request_id="r1")
    provider = make_provider(settings)
    deps = agent_deps(settings, provider)  # what the root hands the agent: its database, its reservation service
    ctx = AgentContext(
        settings=settings,
        request=req,
        provider=provider,
        database=deps.database,
        reservations=deps.reservations,
        now=datetime(2026, 5, 1, 9, 0, tzinfo=tzinfo),
    )
    assert _start_date(ctx, "明天去外滩") == date(2026, 5, 2)
    assert _start_date(ctx, "2026-05-04 please") == date(2026, 5, 4)
    assert _start_date(ctx, "a day out") == date(2026, 5, 2)
