"""What a process can say about itself to a load balancer or an operator (issue 33): it answers, and whether the
team's shared limits are shared (Redis up), not configured (one process alone, by choice) or not reachable (each
process alone until Redis answers again); with an AMap key, each service's calls today of its daily quota (the
team's count on Redis, else this process's). Never a failure for Redis: the process works either way."""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

from core.config import Settings
from core.geo.amap_envelope import AMAP_ZONE
from core.geo.daily_quota import DailyUse
from core.geo.redis_limits import link_state


class DailyCalls(BaseModel):
    service: str = Field(description="The AMap service (geocode, search, detail, distance, driving, ...)")
    used: int = Field(description="Calls of the key counted today (AMap's day, Asia/Shanghai)")
    quota: int | None = Field(description="The configured daily quota; None: no quota known, only counted")
    resets_at: str = Field(description="When the count starts again: 00:00 Asia/Shanghai, ISO 8601")


class Health(BaseModel):
    status: Literal["ok", "degraded"] = Field(
        description="ok: everything configured answers; degraded: the process answers, something shared does not"
    )
    shared_limits: Literal["off", "up", "down"] = Field(
        description="The key's pacing, holds and quota across processes (Redis): off (not configured: this "
        "process alone), up (shared), down (configured, not answering: this process alone until it answers)"
    )
    amap_calls_today: list[DailyCalls] = Field(
        default_factory=list, description="With an AMap key: each service's calls today and its daily quota"
    )


def daily_calls(uses: list[DailyUse]) -> list[DailyCalls]:
    zone = ZoneInfo(AMAP_ZONE)
    return [
        DailyCalls(
            service=u.service,
            used=u.used,
            quota=u.quota,
            resets_at=datetime.fromtimestamp(u.resets_at, zone).isoformat(),
        )
        for u in uses
    ]


def health(*, settings: Settings) -> Health:
    shared = link_state(settings.redis_url)
    calls: list[DailyCalls] = []
    if settings.amap_key is not None and settings.amap_key.get_secret_value().strip():
        from core.geo.resilience import amap_daily  # the providers' own counter of the key

        calls = daily_calls(amap_daily(settings, settings.amap_key.get_secret_value()).today())
    return Health(status="degraded" if shared == "down" else "ok", shared_limits=shared, amap_calls_today=calls)
