"""A commit request (save, book): a dry run with evidence first; nothing is written until confirmation."""

from __future__ import annotations

from core.agent import fastpath
from core.agent.actions.registry import ActionRegistry
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_GATE, act, issue_dry_run
from core.agent.trip_request import mentioned_places
from core.models.agent import (
    AgentState,
)


def run_commit_request(
    decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry
) -> None:
    """Booking / refund / payment / bulk write: evidence, dry run, NEED_CONFIRMATION. Never silent."""
    zh = fastpath.zh_text(state.user_input)
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
            state.result.explanations = ["没有找到要批量修改的行程。" if zh else "No trip found to change in bulk."]
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
            action="trip.apply_user_edit",
            params={"trip_id": draft.trip_id, "edit": {"op": "clear"}, "region": draft.region},
            evidence=evidence,
        )
        state.result.explanations.insert(
            0,
            f"将清空行程「{draft.title}」的 {len(draft.nodes)} 个地点。"
            if zh
            else f"This would clear {len(draft.nodes)} places from “{draft.title}”.",
        )
        return
    kind = "refund" if f.refund else "payment" if f.payment else "cancellation" if f.cancel_booking else "booking"
    mentioned = mentioned_places(state.user_input, ctx.provider.region)
    facts = []
    if mentioned:
        out = act(
            registry,
            "places.get_poi_facts",
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
        state.result.explanations = [
            f"请说明要{ {'booking': '预订', 'refund': '退款', 'payment': '支付', 'cancellation': '取消'}[kind] }的对象（地点、日期、人数）。"
            if zh
            else f"Tell me what the {kind} is for (place, date, party size)."
        ]
        log_decision(state, action="gate.dry_run", reason_code="MISSING_COMMIT_TARGET", policy_id=POLICY_GATE)
        return
    state.result.explanations = [
        (
            f"未接入{ {'booking': '预订', 'refund': '退款', 'payment': '支付', 'cancellation': '取消'}[kind] }接口："
            "不会自动下单或付款。预演证据来自知识库（价格为人均参考，可订性未核实，取消政策未知）。"
            if zh
            else f"No {kind} provider is connected: nothing is ordered or paid automatically. The dry run's evidence "
            "comes from the knowledge base (reference price; availability not verified; cancellation policy unknown)."
        )
    ]
    issue_dry_run(
        state,
        ctx,
        action="trip.record_commitment",
        params={"kind": kind, "place_ids": mentioned[:3]},
        evidence=evidence,
    )
