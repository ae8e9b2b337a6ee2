"""What an action is (docs/ARCHITECTURE.md, "Adding an action"): a name, a description, kind (internal/external),
cost (low/med/high), side_effect (none/writes_db/calls_api), preconditions (paths into AgentState that must be
set), idempotent, cacheable, and pydantic input and output models. Built with keyword arguments only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from core.agent.state import AgentContext
from core.errors import OmniError
from core.models.agent import AgentState

Kind = Literal["internal", "external"]
Cost = Literal["low", "med", "high"]
SideEffect = Literal["none", "writes_db", "calls_api"]
COST_USD = {"low": 0.0, "med": 0.0005, "high": 0.002}  # internal accounting units per call (no paid API is used)


class ActionError(OmniError, RuntimeError):
    """An action could not run: bad input, unmet preconditions, a failure inside, or bad output."""

    code = "TOOL_CALL_FAILED"


class PreconditionFailed(ActionError):
    code = "TOOL_CALL_FAILED"


@dataclass(frozen=True, kw_only=True)
class ActionSpec:
    name: str
    description: str
    kind: Kind
    cost: Cost
    side_effect: SideEffect
    preconditions: tuple[str, ...]
    idempotent: bool
    cacheable: bool
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    fn: Callable[[Any, AgentState, AgentContext], Any] = field(compare=False)
    cost_usd: float | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "metadata": {
                "kind": self.kind,
                "cost": self.cost,
                "side_effect": self.side_effect,
                "preconditions": list(self.preconditions),
                "idempotent": self.idempotent,
                "cacheable": self.cacheable,
            },
            "input_schema": self.input_model.model_json_schema(),
            "output_schema": self.output_model.model_json_schema(),
        }


@dataclass
class CallRecord:
    trace_id: str
    action: str
    ms: float
    ok: bool
    cached: bool
    error_code: str | None = None
