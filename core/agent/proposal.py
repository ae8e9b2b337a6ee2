"""The model's proposal of the Plan stage's next step (off by default: ``llm_plan_proposals``).

The ReAct loop's Plan is a deterministic policy (loop.py, ``_next_phase``). With a model configured and the setting
on, each step first asks the model which action comes next, from the loop's actions in the Action Registry, given
the state's facts (what is present, the critic's verdict, the steps and repairs left). The proposal is checked by
the rules before it runs; whatever breaks one is refused, logged (the decision log and a ``fallback_triggered``
event) and the deterministic step runs instead:

- ``PROPOSAL_UNREADABLE``: no JSON of the proposal's schema;
- ``ACTION_NOT_REGISTERED``: a name outside the Action Registry;
- ``ACTION_NOT_A_PLAN_STEP``: a registered action that is no step of the loop (a booking, a browse);
- ``PHASE_ORDER``: a step whose inputs are missing, or that skips one (optimise before the matrix, finish before
  the critic ran), or a repair the critic did not ask for or the repair budget does not allow;
- ``PRECONDITIONS_UNMET``: the action's registered preconditions are not in the state.

What the model may choose among: the deterministic step, finishing once the critic ran (its verdict then decides the
status), and a repair while the critic fails and repairs are left. It never adds an action, a place or a figure.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.state import AgentContext, log_decision
from core.models.agent import AgentState

Phase = Literal["facts", "matrix", "optimise", "check", "repair", "finish"]
POLICY_PROPOSAL = "LLM_PLAN_PROPOSAL"

#: the loop's steps, each by the registered action that opens it ("finish": the explanation of the plan)
PHASE_ACTIONS: dict[Phase, ActionName] = {
    "facts": ActionName.PLACES_GET_POI_FACTS,
    "matrix": ActionName.TRANSPORT_BUILD_TIME_MATRIX,
    "optimise": ActionName.ITINERARY_OPTIMIZE_DAY_VRPTW,
    "check": ActionName.POLICY_VALIDATE_FEASIBILITY,
    "repair": ActionName.ITINERARY_REPAIR_CROSS_DAY,
    "finish": ActionName.LLM_GENERATE_EXPLANATION,
}
_ACTION_PHASES: dict[str, Phase] = {str(action): phase for phase, action in PHASE_ACTIONS.items()}
#: the action each step runs first, whose registered preconditions must hold when it starts (the matrix step
#: prepares the problem before it measures; the optimise step clusters the days before it orders them)
_FIRST_ACTIONS: dict[Phase, ActionName] = {
    **PHASE_ACTIONS,
    "matrix": ActionName.ITINERARY_PREPARE_PROBLEM,
    "optimise": ActionName.ITINERARY_CLUSTER_DAYS_BALANCED,
}

PLAN_SYSTEM_PROMPT = (
    "You choose the next step of a travel-itinerary planner. Answer with JSON only: "
    '{"action": "<one of the allowed action names>"}. Choose only among "allowed"; use the facts given.'
)


class Proposal(BaseModel):
    """What the model may answer; anything else is unreadable."""

    model_config = ConfigDict(extra="forbid")

    action: str = Field(min_length=1, max_length=80)


def _present(state: AgentState) -> dict[Phase, bool]:
    c = state.compute
    return {
        "facts": bool(state.memory.semantic_facts.pois),
        "matrix": c.time_matrix_robust is not None,
        "optimise": bool(c.day_plans),
        "check": c.critic is not None,
    }


def permitted(state: AgentState, *, planned: Phase, may_repair: bool) -> set[Phase]:
    """The steps the rules allow now: the deterministic one, finishing once the critic ran, a repair while the critic
    fails and repairs are left (``may_repair``)."""
    allowed: set[Phase] = {planned}
    critic = state.compute.critic
    if critic is not None:
        allowed.add("finish")
        if not critic.passed and may_repair:
            allowed.add("repair")
    return allowed


def _facts(state: AgentState, *, planned: Phase, may_repair: bool) -> dict[str, Any]:
    critic = state.compute.critic
    return {
        "present": _present(state),
        "critic_passed": None if critic is None else bool(critic.passed),
        "critic_codes": [] if critic is None else sorted(critic.codes())[:10],
        "step": state.react.step,
        "max_steps": state.react.max_steps,
        "may_repair": may_repair,
        "allowed": sorted(str(PHASE_ACTIONS[p]) for p in permitted(state, planned=planned, may_repair=may_repair)),
    }


def _refusal(
    raw: str, state: AgentState, registry: ActionRegistry, *, planned: Phase, may_repair: bool
) -> tuple[Phase | None, str | None, str]:
    """The proposed step, or None with the rule it breaks; and the action named (for the log)."""
    try:
        name = Proposal.model_validate(json.loads(raw)).action
    except (ValidationError, ValueError, TypeError):
        return None, "PROPOSAL_UNREADABLE", ""
    if name not in registry.names():
        return None, "ACTION_NOT_REGISTERED", name
    phase = _ACTION_PHASES.get(name)
    if phase is None:
        return None, "ACTION_NOT_A_PLAN_STEP", name
    if phase not in permitted(state, planned=planned, may_repair=may_repair):
        return None, "PHASE_ORDER", name
    if registry.unmet_preconditions(_FIRST_ACTIONS[phase], state):
        return None, "PRECONDITIONS_UNMET", name
    return phase, None, name


def next_phase(
    state: AgentState, ctx: AgentContext, registry: ActionRegistry, *, planned: Phase, may_repair: bool
) -> Phase:
    """The step to run: the model's proposal when the setting is on and the rules accept it, else ``planned``."""
    if ctx.llm is None or not ctx.settings.llm_plan_proposals:
        return planned
    facts = _facts(state, planned=planned, may_repair=may_repair)
    phase: Phase | None
    rule: str | None
    try:
        raw = ctx.llm.chat(
            [
                {"role": "system", "content": PLAN_SYSTEM_PROMPT},
                {"role": "user", "content": json.dumps(facts, ensure_ascii=False)},
            ],
            json_mode=True,
            max_tokens=60,
            purpose="plan_proposal",
        )
    except Exception:  # a model that does not answer: the deterministic step, said in the log
        phase, rule, name = None, "MODEL_UNAVAILABLE", ""
    else:
        phase, rule, name = _refusal(raw, state, registry, planned=planned, may_repair=may_repair)
    if phase is not None:
        log_decision(state, action=PHASE_ACTIONS[phase], reason_code="LLM_PROPOSED", policy_id=POLICY_PROPOSAL,
                     facts={"planned": str(PHASE_ACTIONS[planned]), "proposed": name})  # fmt: skip
        return phase
    log_decision(state, action=PHASE_ACTIONS[planned], reason_code="PROPOSAL_REFUSED", policy_id=POLICY_PROPOSAL,
                 facts={"rule": rule, "proposed": name, "fallback": str(PHASE_ACTIONS[planned])})  # fmt: skip
    ctx.telemetry.fallback_triggered(from_route="LLM_PLAN_PROPOSAL", to_route="DETERMINISTIC_PLAN", reason=rule or "")
    return planned
