"""The default registry: every action family of the agent, registered once (docs/ARCHITECTURE.md)."""

from __future__ import annotations

from functools import cache

from core.agent.actions import browser, itinerary, llm, places, policy, reservations, transport, trip
from core.agent.actions.registry import ActionRegistry


@cache  # the registry is data, the same for every request: built once
def default_registry() -> ActionRegistry:
    """The registry with every action family registered."""
    reg = ActionRegistry()
    for module in (trip, places, transport, itinerary, policy, llm, browser, reservations):
        reg.register_many(module.actions())
    return reg
