"""Confirming a dry run: single use, bound to its user and trip, within its time to live."""

from __future__ import annotations

from core.agent import fastpath, gates
from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.flows.reservations import COMMIT_ACTIONS, commit_confirmed
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_GATE, act
from core.i18n import Lang, t
from core.models.agent import (
    AgentState,
)
from core.stores.trips import DryRunRecord

_REFUSAL_WORDS = {
    "UNKNOWN_ID": "agent.confirm.unknown_id",
    "EXPIRED": "agent.confirm.expired",
    "ALREADY_USED": "agent.confirm.already_used",
    "OTHER_TRIP": "agent.confirm.other_trip",
    "DRY_RUN_ONLY": "agent.confirm.dry_run_only",
}


def _refused(
    res: gates.GateRefusal, state: AgentState, ctx: AgentContext, registry: ActionRegistry, lang: Lang
) -> None:
    """The gate refused the confirmation: FAILED with why, but a second confirmation of a reservation's commit,
    which replays the first outcome."""
    if res.reason == "ALREADY_USED" and res.record is not None and res.record.action in COMMIT_ACTIONS:
        # a second click on "confirm": the reservation service replays the first outcome (same idempotency key)
        log_decision(state, action="gate.confirm", reason_code="CONFIRMATION_ALREADY_USED", policy_id=POLICY_GATE)
        commit_confirmed(res.record, state, ctx, registry, again=True)
        return
    state.result.status = "FAILED"
    state.result.error_code = "CONFIRMATION_INVALID"
    key = _REFUSAL_WORDS[res.reason]
    state.result.explanations = [t(key, lang)]
    log_decision(state, action="gate.confirm", reason_code=f"CONFIRMATION_{res.reason}", policy_id=POLICY_GATE)


def _commit_trip_action(
    res: DryRunRecord, state: AgentState, ctx: AgentContext, registry: ActionRegistry, lang: Lang
) -> None:
    """The confirmed trip action run: the plan saved, the bulk edit applied, or the commitment recorded."""
    if res.action == ActionName.TRIP_PERSIST_PLAN:
        p = res.params
        out = act(
            registry,
            ActionName.TRIP_PERSIST_PLAN,
            {
                "dry_run_id": res.dry_run_id,
                "user_id": res.user_id,
                "trip_id": p.get("trip_id"),
                "region": p["region"],
                "days": p["days"],
                "nodes": p["nodes"],
                "title": p.get("title", "Planned trip"),
            },
            state,
            ctx,
            reason_code="COMMIT_CONFIRMED",
            policy_id=POLICY_GATE,
        )
        state.memory.user_profile["trip"] = out.trip
        title = out.trip.get("title") or t("agent.confirm.your_trip", lang)
        state.result.explanations = [t("agent.confirm.saved", lang, title=title, n=len(out.trip["nodes"]))]
    elif res.action == ActionName.TRIP_APPLY_USER_EDIT:  # a confirmed bulk write
        p = res.params
        out = act(
            registry,
            ActionName.TRIP_APPLY_USER_EDIT,
            {"user_id": res.user_id, "trip_id": p["trip_id"], "edit": p["edit"], "region": p["region"]},
            state,
            ctx,
            reason_code="COMMIT_CONFIRMED",
            policy_id=POLICY_GATE,
        )
        state.memory.user_profile["trip"] = out.trip
        state.result.explanations = [t("agent.confirm.bulk_done", lang)]
    else:
        out = act(
            registry,
            ActionName.TRIP_RECORD_COMMITMENT,
            {
                "dry_run_id": res.dry_run_id,
                "user_id": res.user_id,
                "trip_id": res.trip_id,
                "action": res.action,
                "detail": {"params": res.params, "evidence": res.evidence},
            },
            state,
            ctx,
            reason_code="COMMIT_CONFIRMED",
            policy_id=POLICY_GATE,
        )
        state.result.explanations = [t("agent.confirm.recorded", lang)]  # its id is in the decision log


def run_confirmation(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    lang = fastpath.state_lang(state)
    state.react.step += 1
    res = gates.confirm(ctx.store, ctx.request, now=ctx.now_s())
    if isinstance(res, gates.GateRefusal):
        _refused(res, state, ctx, registry, lang)
        return
    log_decision(
        state, action="gate.confirm", reason_code="CONFIRMED", policy_id=POLICY_GATE, facts={"action": res.action}
    )
    ctx.report("thinking")
    if res.action in COMMIT_ACTIONS:
        commit_confirmed(res, state, ctx, registry)
        state.result.evidence.extend({"type": "committed", **e} for e in res.evidence)
        return
    _commit_trip_action(res, state, ctx, registry, lang)
    state.result.evidence.extend({"type": "committed", **e} for e in res.evidence)
    state.result.status = "OK"
