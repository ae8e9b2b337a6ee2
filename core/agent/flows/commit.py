"""A commit request (save, book): a dry run with evidence first; nothing is written until confirmation."""

from __future__ import annotations

from core.agent import fastpath
from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_GATE, act, issue_dry_run
from core.agent.trip_request import mentioned_places
from core.i18n import t
from core.models.agent import (
    AgentState,
)


def run_commit_request(
    decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry
) -> None:
    """Booking / refund / payment / bulk write: evidence, dry run, NEED_CONFIRMATION. Never silent."""
    lang = fastpath.state_lang(state)
    state.react.step += 1
    f = decision.features
    if decision.intent == "bulk_write":
        draft = (
            ctx.store.get_trip(ctx.request.trip_id, user_id=ctx.request.user_id)
            if ctx.request.trip_id
            else ctx.store.latest_trip(ctx.request.user_id)
        )
        if draft is None or draft.user_id != ctx.request.user_id:
            state.result.status = "NEED_MORE_INFO"
            state.result.explanations = [t("agent.confirm.no_bulk_trip", lang)]
            return
        evidence = [
            {
                "type": "bulk_write",
                "op": "clear",
                "trip_id": draft.trip_id,
                "nodes_affected": len(draft.nodes),
                "names": draft.node_names()[:30],
                "reversible": False,
            }
        ]
        issue_dry_run(
            state,
            ctx,
            action=ActionName.TRIP_APPLY_USER_EDIT,
            params={"trip_id": draft.trip_id, "edit": {"op": "clear"}, "region": draft.region},
            evidence=evidence,
        )
        state.result.explanations.insert(0, t("agent.commit.clear", lang, n=len(draft.nodes), title=draft.title))
        return
    kind = "refund" if f.refund else "payment" if f.payment else "cancellation" if f.cancel_booking else "booking"
    mentioned = mentioned_places(state.user_input, ctx.provider.region)
    facts = []
    if mentioned:
        out = act(
            registry,
            ActionName.PLACES_GET_POI_FACTS,
            {"place_ids": mentioned[:3]},
            state,
            ctx,
            reason_code="MISSING_POI_FACTS",
            policy_id=POLICY_GATE,
        )
        facts = out.pois
    evidence = [
        {
            "type": kind,
            "place": p["name"],
            "place_id": p["place_id"],
            "price": p.get("price_per_person"),
            "needs_reservation": p.get("needs_reservation"),
            "cancellation_policy": None,
            "availability": "not_verified",
            "source": "knowledge_base",
        }
        for p in facts
    ]
    if not evidence:
        state.result.status = "NEED_MORE_INFO"
        state.result.explanations = [t("agent.commit.what_for", lang, kind=t(_KIND[kind], lang))]
        log_decision(state, action="gate.dry_run", reason_code="MISSING_COMMIT_TARGET", policy_id=POLICY_GATE)
        return
    state.result.explanations = [t("agent.commit.no_provider", lang, kind=t(_KIND[kind], lang))]
    issue_dry_run(
        state,
        ctx,
        action=ActionName.TRIP_RECORD_COMMITMENT,
        params={"kind": kind, "place_ids": mentioned[:3]},
        evidence=evidence,
    )


#: what is committed, in words ("booking" → 预订 / booking)
_KIND = {
    "booking": "agent.commit.kind.booking",
    "refund": "agent.commit.kind.refund",
    "payment": "agent.commit.kind.payment",
    "cancellation": "agent.commit.kind.cancellation",
}
