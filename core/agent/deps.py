"""What one agent request runs on (docs/ARCHITECTURE.md, "The composition root"): the settings, the request's view of
the map services, the database, the trip store, the reservation service, the event log, the model, the browser and
the action registry.

The agent builds none of them: the composition root does (``core.app.agent.agent_deps``), per request, from the
process's services and settings; a test hands its own fakes the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from core.config import Settings
from core.geo.composite import MapServices
from core.stores.db import Database

if TYPE_CHECKING:
    from core.agent.actions.registry import ActionRegistry
    from core.agent.browse import BrowserExecutor
    from core.agent.llm import LLMClient
    from core.agent.telemetry import Telemetry
    from core.memory.store import UserMemory
    from core.reservations.provider import ReservationsAt
    from core.stores.trips import LazyTripStore, TripStore


@dataclass(frozen=True, kw_only=True)
class AgentDeps:
    """One request's dependencies. ``telemetry`` and ``browser`` belong to this request (the event log's lines carry
    its id); the store, the reservation service, the model client and the registry may be shared. ``database``: the
    one the flows open their stores on (the memory, the conversations). ``memory``: the person's memory when the
    caller opened it (None: the memory flow opens it on ``database`` at its first use). ``llm``: None when no model
    is configured (the agent answers without one)."""

    settings: Settings
    provider: MapServices
    database: Database
    store: TripStore | LazyTripStore
    reservations: ReservationsAt
    telemetry: Telemetry
    llm: LLMClient | None
    browser: BrowserExecutor
    registry: ActionRegistry
    memory: UserMemory | None = None


class DepsFactory(Protocol):
    """How a domain that runs several requests (the QA acceptance set) gets each one's dependencies from the root."""

    def __call__(
        self, settings: Settings, provider: MapServices, *, browser: BrowserExecutor | None = None
    ) -> AgentDeps: ...
