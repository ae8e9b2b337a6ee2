"""The Action Registry (docs/ARCHITECTURE.md, "Adding an action"): every capability is a registered, typed, described action.

An action declares its name, description, kind (internal/external), cost (low/med/high),
side_effect (none/writes_db/calls_api), preconditions (paths into AgentState that must be set),
idempotent, cacheable, and pydantic input and output models. ``ActionRegistry.call`` validates
the input, checks the preconditions, serves cacheable calls from the request cache, runs the
action, validates the output, counts the call, and logs it with its trace id and duration.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from core.agent.actions.spec import (
    COST_USD,
    ActionError,
    ActionSpec,
    CallRecord,
    Cost,
    Kind,
    PreconditionFailed,
    SideEffect,
)
from core.agent.state import AgentContext, get_path, is_present
from core.errors import OmniError
from core.models.agent import AgentState

log = logging.getLogger("omni.agent.actions")


class ActionRegistry:
    def __init__(self) -> None:
        self._actions: dict[str, ActionSpec] = {}

    def register(self, spec: ActionSpec) -> ActionSpec:
        if spec.name in self._actions:
            raise ValueError(f"action {spec.name!r} is already registered")
        if "." not in spec.name:
            raise ValueError(f"action names are family.verb, got {spec.name!r}")
        self._actions[spec.name] = spec
        return spec

    def register_many(self, specs: list[ActionSpec]) -> None:
        for s in specs:
            self.register(s)

    def action(
        self,
        name: str,
        *,
        description: str,
        input_model: type[BaseModel],
        output_model: type[BaseModel],
        kind: Kind = "internal",
        cost: Cost = "low",
        side_effect: SideEffect = "none",
        preconditions: tuple[str, ...] = (),
        idempotent: bool = True,
        cacheable: bool = False,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.register(
                ActionSpec(
                    name=name,
                    description=description,
                    kind=kind,
                    cost=cost,
                    side_effect=side_effect,
                    preconditions=tuple(preconditions),
                    idempotent=idempotent,
                    cacheable=cacheable,
                    input_model=input_model,
                    output_model=output_model,
                    fn=fn,
                )
            )
            return fn

        return deco

    def get(self, name: str) -> ActionSpec:
        try:
            return self._actions[name]
        except KeyError:
            raise ActionError(
                f"unknown action {name!r}; registered: {', '.join(sorted(self._actions))}", field="action"
            ) from None

    def names(self) -> list[str]:
        return sorted(self._actions)

    def describe(self) -> list[dict[str, Any]]:
        return [self._actions[n].describe() for n in self.names()]

    def unmet_preconditions(self, name: str, state: AgentState) -> list[str]:
        return [p for p in self.get(name).preconditions if not is_present(get_path(state, p))]

    def call(
        self, name: str, payload: BaseModel | dict[str, Any] | None, *, state: AgentState, ctx: AgentContext
    ) -> Any:
        spec = self.get(name)
        trace_id = f"{state.request_id}:{state.react.step}:{name}"
        t0 = time.perf_counter()
        cached, ok, code = False, False, None
        try:
            try:
                data = payload.model_dump() if isinstance(payload, BaseModel) else (payload or {})
                inp = spec.input_model.model_validate(data)
            except ValidationError as exc:
                raise ActionError(f"{name}: invalid input: {exc.errors()[0].get('msg')}", field=name) from exc
            unmet = self.unmet_preconditions(name, state)
            if unmet:
                raise PreconditionFailed(
                    f"{name}: unmet preconditions: {', '.join(unmet)}", field=name, details={"unmet": unmet}
                )
            key = (name, json.dumps(inp.model_dump(mode="json"), sort_keys=True, ensure_ascii=False))
            if spec.cacheable and key in state.compute.action_cache:
                out, cached = state.compute.action_cache[key], True
            else:
                raw = spec.fn(inp, state, ctx)
                try:
                    out = raw if isinstance(raw, spec.output_model) else spec.output_model.model_validate(raw)
                    out = spec.output_model.model_validate(out.model_dump())  # re-check a mutated instance
                except ValidationError as exc:
                    raise ActionError(f"{name}: invalid output: {exc.errors()[0].get('msg')}", field=name) from exc
                if spec.cacheable:
                    state.compute.action_cache[key] = out
            ok, code = True, None
            return out
        except ActionError as exc:
            ok, code = False, exc.code
            raise
        except OmniError as exc:
            ok, code = False, exc.code
            facts = exc.details if isinstance(exc.details, dict) else {}
            raise ActionError(  # the cause's code and facts, for the answer's words (never its English message)
                f"{name}: {exc.message}", field=exc.field, details={**facts, "cause": exc.code}
            ) from exc
        except Exception as exc:
            ok, code = False, "TOOL_CALL_FAILED"
            raise ActionError(f"{name}: {type(exc).__name__}: {exc}", field=name) from exc
        finally:
            ms = (time.perf_counter() - t0) * 1000
            if not cached:
                state.observability.tool_calls += 1
                state.observability.cost_units += spec.cost_usd if spec.cost_usd is not None else COST_USD[spec.cost]
            rec = CallRecord(trace_id=trace_id, action=name, ms=round(ms, 3), ok=ok, cached=cached, error_code=code)
            log.debug("action %s trace=%s %.1f ms ok=%s cached=%s", name, trace_id, ms, ok, cached)
            if ctx.telemetry is not None:
                ctx.telemetry.action_call(rec)
