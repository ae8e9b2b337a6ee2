"""What a process can say about itself to a load balancer or an operator (issue 33): it answers, and whether the
team's shared limits are shared (Redis up), not configured (one process alone, by choice) or not reachable (each
process alone until Redis answers again). Never a failure for Redis: the process works either way."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.config import Settings
from core.geo.redis_limits import link_state


class Health(BaseModel):
    status: Literal["ok", "degraded"] = Field(
        description="ok: everything configured answers; degraded: the process answers, something shared does not"
    )
    shared_limits: Literal["off", "up", "down"] = Field(
        description="The key's pacing, holds and quota across processes (Redis): off (not configured: this "
        "process alone), up (shared), down (configured, not answering: this process alone until it answers)"
    )


def health(*, settings: Settings) -> Health:
    shared = link_state(settings.redis_url)
    return Health(status="degraded" if shared == "down" else "ok", shared_limits=shared)
