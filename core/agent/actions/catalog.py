"""The default registry: every action family of the agent, registered once (docs/ARCHITECTURE.md)."""

from __future__ import annotations

from core.agent.actions import browser, itinerary, llm, places, policy, reservations, transport, trip
from core.agent.actions.registry import ActionRegistry

_DEFAULT: ActionRegistry | None = None


def default_registry() -> ActionRegistry:
    """The registry with every action family registered (built once)."""
    global _DEFAULT
    if _DEFAULT is None:
        reg = ActionRegistry()
        for module in (trip, places, transport, itinerary, policy, llm, browser, reservations):
            reg.register_many(module.actions())
        _DEFAULT = reg
    return _DEFAULT
