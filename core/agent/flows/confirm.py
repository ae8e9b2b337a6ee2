"""Confirming a dry run: single use, bound to its user and trip, within its time to live."""

from __future__ import annotations

from core.agent import fastpath, gates
from core.agent.actions.registry import ActionRegistry
from core.agent.flows.reservations import COMMIT_ACTIONS, commit_confirmed
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_GATE, act
from core.models.agent import (
    AgentState,
)


def run_confirmation(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    zh = fastpath.zh_text(state.user_input)
    state.react.step += 1
    res = gates.confirm(ctx.store, ctx.request, now=ctx.wall_clock())
    if isinstance(res, gates.GateRefusal):
        if res.reason == "ALREADY_USED" and res.record is not None and res.record.action in COMMIT_ACTIONS:
            # a second click on "confirm": the reservation service replays the first outcome (same idempotency key)
            log_decision(state, action="gate.confirm", reason_code="CONFIRMATION_ALREADY_USED", policy_id=POLICY_GATE)
            commit_confirmed(res.record, state, ctx, registry, again=True)
            return
        state.result.status = "FAILED"
        state.result.error_code = "CONFIRMATION_INVALID"
        msg = {
            "UNKNOWN_ID": ("确认编号无效。", "The confirmation id is not valid."),
            "EXPIRED": ("确认编号已过期，请重新预演。", "The confirmation id has expired; make a new dry run."),
            "ALREADY_USED": (
                "该确认编号已使用过，不会重复提交。",
                "That confirmation id was already used; nothing is committed twice.",
            ),
            "OTHER_TRIP": ("确认编号与行程不匹配。", "The confirmation id belongs to another trip."),
            "DRY_RUN_ONLY": ("当前为 dry_run 模式，不会提交。", "dry_run is on; nothing is committed."),
        }[res.reason]
        state.result.explanations = [msg[0 if zh else 1]]
        log_decision(state, action="gate.confirm", reason_code=f"CONFIRMATION_{res.reason}", policy_id=POLICY_GATE)
        return
    log_decision(
        state, action="gate.confirm", reason_code="CONFIRMED", policy_id=POLICY_GATE, facts={"action": res.action}
    )
    ctx.report("thinking")
    if res.action in COMMIT_ACTIONS:
        commit_confirmed(res, state, ctx, registry)
        state.result.evidence.extend({"type": "committed", **e} for e in res.evidence)
        return
    if res.action == "trip.persist_plan":
        p = res.params
        out = act(
            registry,
            "trip.persist_plan",
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
        state.result.explanations = [
            f"已保存到行程 {out.trip['trip_id']}（{len(out.trip['nodes'])} 个地点）。"
            if zh
            else f"Saved to trip {out.trip['trip_id']} ({len(out.trip['nodes'])} places)."
        ]
    elif res.action == "trip.apply_user_edit":  # a confirmed bulk write
        p = res.params
        out = act(
            registry,
            "trip.apply_user_edit",
            {"user_id": res.user_id, "trip_id": p["trip_id"], "edit": p["edit"], "region": p["region"]},
            state,
            ctx,
            reason_code="COMMIT_CONFIRMED",
            policy_id=POLICY_GATE,
        )
        state.memory.user_profile["trip"] = out.trip
        state.result.explanations = ["已执行批量修改。" if zh else "The bulk change is done."]
    else:
        out = act(
            registry,
            "trip.record_commitment",
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
        state.result.explanations = [
            f"已记录你的确认（{out.commitment_id}）。系统未接入支付/退款接口，没有实际下单或付款，请直接联系商家完成。"
            if zh
            else f"Your confirmation is recorded ({out.commitment_id}). No payment or refund "
            "provider is connected, so nothing was ordered or paid; please complete it with the merchant directly."
        ]
    state.result.evidence.extend({"type": "committed", **e} for e in res.evidence)
    state.result.status = "OK"
