"""What one agent request runs on (docs/ARCHITECTURE.md, "The composition root"): the settings, the request's view of
the map services, the trip store, the event log, the model, the browser and the action registry.

The agent builds none of them: the composition root does (``core.app.agent.agent_deps``), per request, from the
process's services and settings; a test hands its own fakes the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from core.config import Settings
from core.geo.composite import MapServices

if TYPE_CHECKING:
    from core.agent.actions.registry import ActionRegistry
    from core.agent.browse import BrowserExecutor
    from core.agent.llm import LLMClient
    from core.agent.telemetry import Telemetry
    from core.memory.store import UserMemory
    from core.stores.trips import LazyTripStore, TripStore


@dataclass(frozen=True, kw_only=True)
class AgentDeps:
    """One request's dependencies. ``telemetry`` and ``browser`` belong to this request (the event log's lines carry
    its id); the store, the model client and the registry may be shared. ``memory``: the person's memory when the
    caller opened it (None: the memory flow opens it from the settings' database at its first use). ``llm``: None
    when no model is configured (the agent answers without one)."""

    settings: Settings
    provider: MapServices
    store: TripStore | LazyTripStore
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
