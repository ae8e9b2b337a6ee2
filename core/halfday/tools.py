"""The half-day planner's tool registry (half_day_planner.md §3): every stage is a registered tool with its input
and output schema; each call validates the input, runs the tool (retrying what may pass on a second try), validates
the output, and is logged with the request's trace id, its duration and short summaries of what went in and out.

A tool is declared by its module in core/halfday/toolbox/ (docs/ARCHITECTURE.md, "Adding a half-day tool"): a
``tool(deps) -> ToolSpec`` that binds it to the planner's dependencies (``ToolDeps``). A tool named in
``OMNI_HALFDAY_MOCK_TOOLS`` runs its registered mock instead, without the planner knowing: the demo keeps working
when a real implementation (an LLM parser, a live search) is unavailable.

The stages call their own tools by name; a tool that ``reads`` what the plan knows (``SoFar``) is an added one: it
runs at the end of its stage, 5 (the candidates) or 6 (the plans), and ``folds`` its answer back when it changes
them.
"""

from __future__ import annotations

import dataclasses
import logging
import time as clock
import uuid
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ValidationError

from core.errors import OmniError, ProviderUnavailable
from core.halfday.generators import returned
from core.models.halfday.facts import OtherFacts, ToolFacts

if TYPE_CHECKING:
    from core.agent.llm import LLMClient
    from core.clock import Clock
    from core.config import Settings
    from core.geo.composite import MapServices
    from core.halfday.breaker import HalfDayBreakers
    from core.halfday.memory import MemoryStore
    from core.models.halfday.goal import DecomposedGoal
    from core.models.halfday.plans import Candidates, HalfDayRequest, OriginPoint, PlanSet, Profile, TimeSlots
    from core.reservations.provider import ReservationProvider

log = logging.getLogger("omni.halfday.tools")

SUMMARY_CHARS = 160
#: what a mock says of itself (its ``source``, ``parser`` or note): it answered from the region pack alone
MOCK = "mock"
#: the stages whose end an added tool may run at: after the search (5, the candidates) and the scoring (6, the plans)
ADDED_STAGES = (5, 6)


class ToolFailed(OmniError):
    """A tool could not give a valid answer (after its retries); the planner degrades or stops."""

    code = "TOOL_FAILED"


class ToolInvalid(ToolFailed):
    """A tool's input or output broke its schema: nothing invalid goes downstream."""

    code = "TOOL_OUTPUT_INVALID"


class EmptyResult(OmniError):
    """A tool found nothing: worth one more try, then the caller relaxes its search."""

    code = "TOOL_EMPTY"


#: failures worth another try (a timeout, a service that did not answer, an empty answer)
RETRYABLE: tuple[type[BaseException], ...] = (TimeoutError, ProviderUnavailable, EmptyResult, ConnectionError)


def no_facts(output: Any) -> ToolFacts:
    """The facts of a tool the stage log does not describe: it says the tool is done."""
    return OtherFacts()


@dataclass(frozen=True, kw_only=True)
class SoFar:
    """What the plan knows when an added tool runs: it reads its input from here and may hand back new candidates
    (stage 5) or plans (stage 6)."""

    request: HalfDayRequest
    now: datetime
    goal: DecomposedGoal
    profile: Profile
    slots: TimeSlots
    origin: OriginPoint | None
    candidates: Candidates
    plans: PlanSet | None = None


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """A tool bound to a planner: ``fn`` and its ``mock`` take the input model and answer the output model;
    ``facts`` turns the output into what the stage log shows; ``calls_providers``: it runs under the plan's provider
    budget; ``reads``/``folds``: an added tool's input from what the plan knows, and its answer folded back."""

    name: str
    stage: int
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    fn: Callable[[Any], Any]
    mock: Callable[[Any], Any] | None = None
    retries: int = 2  # half_day_planner.md §4.1: at most two retries with exponential backoff
    retry_on: tuple[type[BaseException], ...] = RETRYABLE  # a deterministic local search is not worth a retry
    facts: Callable[[Any], ToolFacts] = no_facts
    calls_providers: bool = False
    reads: Callable[[SoFar], BaseModel | dict[str, Any]] | None = None
    folds: Callable[[SoFar, Any], SoFar] | None = None
    #: a tool that shows its work: yields each part of its answer (``part_model``) as it is made, returns the answer
    parts: Callable[[Any], Generator[Any, None, Any]] | None = None
    part_model: type[BaseModel] | None = None


def drained(parts: Callable[[Any], Generator[Any, None, Any]]) -> Callable[[Any], Any]:
    """A tool that shows its work as a plain tool: its parts passed over, its answer returned."""

    def answer(inp: Any) -> Any:
        return returned(parts(inp))

    return answer


class ToolDeps(Protocol):
    """What a tool is built on: the planner's map services (and region pack), settings, memory, reservation
    service (asked for only when a tool runs), the root's breakers of the outside services, stage 1's model client
    (opened by the reading that needs it) and clock."""

    @property
    def provider(self) -> MapServices: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def memory(self) -> MemoryStore: ...

    @property
    def reservations(self) -> ReservationProvider: ...

    @property
    def breakers(self) -> HalfDayBreakers: ...

    @property
    def open_llm(self) -> Callable[[], LLMClient | None]: ...

    @property
    def clock(self) -> Clock: ...


#: a tool module's ``tool``: the tool bound to a planner's dependencies
ToolBuilder = Callable[[ToolDeps], ToolSpec]


@dataclass
class Trace:
    """One request's trace: its id and every tool call, in order."""

    trace_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    calls: list[dict[str, Any]] = field(default_factory=list)


def summarise(value: Any) -> str:
    """A short, loggable picture of a tool's input or output (sizes, not contents, for long lists)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            if isinstance(v, list):
                parts.append(f"{k}[{len(v)}]")
            elif isinstance(v, dict):
                parts.append(f"{k}{{{len(v)}}}")
            elif v not in (None, "", False):
                parts.append(f"{k}={v}")
        text = " ".join(parts)
    else:
        text = str(value)
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


class ToolRegistry:
    """Tools by name; ``call`` is the only way the planner runs one."""

    def __init__(self, specs: Iterable[ToolSpec] = (), *, mocked: Iterable[str] = (), backoff_s: float = 0.05):
        self._specs: dict[str, ToolSpec] = {}
        self.mocked = set(mocked)
        self.replaced: set[str] = set()
        self.backoff_s = backoff_s
        for spec in specs:
            self.register(spec)
        missing = sorted(n for n in self.mocked if n not in self._specs or self._specs[n].mock is None)
        if missing:  # a mock switch that silently ran the real tool would log a lie
            known = ", ".join(n for n in self.names if self._specs[n].mock is not None)
            raise ValueError(f"no mock for {', '.join(missing)}; tools with a mock: {known}")

    def runs_mock(self, name: str) -> bool:
        """The tool runs its registered mock (named in the mock switch, and it has one)."""
        return name in self.mocked and self._specs[name].mock is not None

    def register(self, spec: ToolSpec) -> None:
        if spec.reads is None and spec.folds is not None:
            raise ValueError(f"{spec.name}: a tool that folds its answer into the plan reads from it too")
        if spec.reads is not None and spec.stage not in ADDED_STAGES:
            raise ValueError(f"{spec.name}: an added tool runs at the end of stage 5 or 6, not {spec.stage}")
        self._specs[spec.name] = spec

    def added(self, stage: int) -> list[ToolSpec]:
        """The added tools of ``stage`` (those that read what the plan knows), in the order they were registered."""
        return [s for s in self._specs.values() if s.reads is not None and s.stage == stage]

    def replace(self, name: str, fn: Callable[[Any], Any]) -> None:
        """Swap a tool's implementation (tests, demos): the schemas stay, so the planner cannot tell. The stand-in
        answers whole: the tool's parts go with the implementation they came from."""
        self._specs[name] = dataclasses.replace(self._specs[name], fn=fn, parts=None)
        self.replaced.add(name)

    def spec(self, name: str) -> ToolSpec:
        return self._specs[name]

    @property
    def names(self) -> list[str]:
        return sorted(self._specs, key=lambda n: (self._specs[n].stage, n))

    def call(self, name: str, payload: BaseModel | dict[str, Any], *, trace: Trace) -> BaseModel:
        out: BaseModel = returned(self.call_parts(name, payload, trace=trace))
        return out

    def call_parts(
        self, name: str, payload: BaseModel | dict[str, Any], *, trace: Trace
    ) -> Generator[BaseModel, None, BaseModel]:
        """``call``, yielding the parts of the answer as the tool makes them (a tool with ``parts``, unless its mock
        or a stand-in runs: those yield none); a retry may yield them again. The logged duration leaves out the time
        the caller spent on a part."""
        spec = self._specs[name]
        mock = spec.mock if self.runs_mock(name) else None
        fn = mock or spec.fn
        parts = spec.parts if mock is None else None
        try:
            inp = spec.input_model.model_validate(payload.model_dump() if isinstance(payload, BaseModel) else payload)
        except ValidationError as exc:
            self._log(trace, spec, payload, None, 0.0, "input_invalid", attempts=0)
            raise ToolInvalid(f"{name}: input breaks its schema", code="TOOL_INPUT_INVALID", details=str(exc)) from None
        started = clock.perf_counter()
        away = [0.0]  # seconds the caller held a part: not the tool's time
        attempts = 0
        invalid = 0
        while True:
            attempts += 1
            try:
                raw = (yield from self._parts(spec, parts, inp, away)) if parts is not None else fn(inp)
                out = spec.output_model.model_validate(raw.model_dump() if isinstance(raw, BaseModel) else raw)
            except ValidationError as exc:
                invalid += 1
                if invalid >= 2:  # §4.1 level 3: the same tool broke its schema twice
                    self._log(trace, spec, inp, None, started, "output_invalid", attempts=attempts, away=away[0])
                    raise ToolInvalid(f"{name}: output broke its schema twice", details=str(exc)) from None
                continue
            except RETRYABLE as exc:
                if attempts > spec.retries or not isinstance(exc, spec.retry_on):
                    self._log(trace, spec, inp, None, started, type(exc).__name__, attempts=attempts, away=away[0])
                    raise
                clock.sleep(self.backoff_s * 2 ** (attempts - 1))
                continue
            except Exception as exc:
                self._log(trace, spec, inp, None, started, type(exc).__name__, attempts=attempts, away=away[0])
                raise
            self._log(trace, spec, inp, out, started, "ok", attempts=attempts, away=away[0])
            return out

    @staticmethod
    def _parts(
        spec: ToolSpec, parts: Callable[[Any], Generator[Any, None, Any]], inp: Any, away: list[float]
    ) -> Generator[BaseModel, None, Any]:
        """One attempt of a tool that shows its work: each part checked against ``part_model`` and handed on."""
        made = parts(inp)
        while True:
            try:
                part = next(made)
            except StopIteration as end:
                return end.value
            model = spec.part_model
            checked = (
                model.model_validate(part.model_dump() if isinstance(part, BaseModel) else part) if model else part
            )
            handed = clock.perf_counter()
            yield checked
            away[0] += clock.perf_counter() - handed

    def preview(self, name: str, payload: BaseModel | dict[str, Any]) -> BaseModel | None:
        """The tool's answer on part of its input, for a face to show early: its implementation (or its mock when
        mocked), unlogged, no retry; None when it fails or a stand-in was put in by ``replace`` (only the real call
        asks a stand-in, so a test that counts its calls sees the planner's own)."""
        if name in self.replaced:
            return None
        spec = self._specs[name]
        fn = spec.mock if self.runs_mock(name) and spec.mock is not None else spec.fn
        try:
            inp = spec.input_model.model_validate(payload.model_dump() if isinstance(payload, BaseModel) else payload)
            raw = fn(inp)
            out: BaseModel = spec.output_model.model_validate(raw.model_dump() if isinstance(raw, BaseModel) else raw)
        except Exception:  # a preview never stops the plan: the real call that follows reports any failure
            log.debug("halfday preview of %s failed", name, exc_info=True)
            return None
        return out

    def _log(
        self,
        trace: Trace,
        spec: ToolSpec,
        inp: Any,
        out: Any,
        started: float,
        outcome: str,
        *,
        attempts: int,
        away: float = 0.0,
    ) -> None:
        record = {
            "trace_id": trace.trace_id,
            "tool": spec.name,
            "stage": spec.stage,
            "outcome": outcome,
            "attempts": attempts,
            "mocked": self.runs_mock(spec.name),
            "duration_ms": round((clock.perf_counter() - started - away) * 1000, 2) if started else 0.0,
            "input": summarise(inp),
            "output": summarise(out) if out is not None else "",
        }
        trace.calls.append(record)
        log.info("halfday tool %s", spec.name, extra={"halfday": record})
