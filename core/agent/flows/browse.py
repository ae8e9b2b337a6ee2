"""The consent-gated browse flow: no consent, no visit; with consent only allowlisted pages, read within the
budget, and any commit still behind a dry run."""

from __future__ import annotations

import re

from core.agent import fastpath, gates
from core.agent.actions.registry import ActionRegistry
from core.agent.lexicon import URL
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_CONSENT, act, issue_dry_run
from core.agent.trip_request import mentioned_places
from core.models.agent import (
    AgentState,
)


def run_browse(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    zh = fastpath.zh_text(state.user_input)
    if gates.consent_missing(ctx.request):
        state.result.status = "NEED_CONSENT"
        state.result.error_code = "BROWSER_CONSENT_REQUIRED"
        state.result.explanations = [
            "需要你的授权才能打开网页核实（设置 allow_webbrowse=true）。未授权前不会访问任何网站。"
            if zh
            else "Browsing needs your consent (allow_webbrowse=true). No website is visited before that."
        ]
        state.result.next_steps = ["allow_webbrowse", "downgrade:knowledge_base"]
        log_decision(state, action="gate.consent", reason_code="BROWSER_CONSENT_REQUIRED", policy_id=POLICY_CONSENT)
        ctx.report("awaiting_consent")
        return
    urls = URL.findall(state.user_input)
    if not urls:
        # An official site recorded in the knowledge base for a place named in the message.
        from core.agent.rag import knowledge_base

        kb = knowledge_base(ctx.provider.region, kb_dir=ctx.settings.kb_dir)
        mentioned = set(mentioned_places(state.user_input, ctx.provider.region))
        urls = [d.facts["url"] for d in kb.index.docs if d.facts.get("url") and d.facts.get("place_id") in mentioned]
    if not urls:
        state.result.status = "NEED_MORE_INFO"
        state.result.explanations = [
            "请提供要查询的官网链接（仅限允许的网站）。"
            if zh
            else "Please give the official page's URL to check (allowlisted sites only)."
        ]
        log_decision(state, action="gate.consent", reason_code="MISSING_URL", policy_id=POLICY_CONSENT)
        return
    state.react.step += 1
    ctx.report("browsing")
    out = act(
        registry,
        "browser.fetch",
        {"url": urls[0]},
        state,
        ctx,
        reason_code="REALTIME_WEB",
        policy_id=POLICY_CONSENT,
        facts={"domain": re.sub(r"^https?://([^/:]+).*$", r"\1", urls[0])},
    )
    for ev in out.evidence:
        state.result.evidence.append({"type": "web", **ev.model_dump()})
    if out.blocked is not None:
        _browse_blocked(decision, state, ctx, registry, out.blocked)
        return
    if not out.evidence:
        state.result.status = "OK"
        state.result.explanations = [
            "页面上没有找到可用性、价格或取消政策信息。"
            if zh
            else "The page shows no availability, price or cancellation policy."
        ]
        return
    ev = out.evidence[-1]
    avail = {
        "available": ("有空位/可订", "available"),
        "unavailable": ("已满/不可订", "not available"),
        "unknown": ("未说明", "not stated"),
    }[ev.availability][0 if zh else 1]
    price = f"¥{ev.price:g}" if ev.price is not None else ("未标价" if zh else "no price shown")
    cancel = ev.cancellation_policy or ("未说明" if zh else "not stated")
    state.result.explanations = [
        (
            f"官网信息（{ev.url}）：{avail}；价格 {price}；取消政策：{cancel}。"
            if zh
            else f"From the site ({ev.url}): {avail}; price {price}; cancellation policy: {cancel}."
        )
    ]
    state.result.status = "OK"
    log_decision(
        state,
        action="browser.fetch",
        reason_code="EVIDENCE_EXTRACTED",
        policy_id=POLICY_CONSENT,
        facts={"availability": ev.availability, "price": ev.price, "steps": out.steps},
    )
    if decision.features.high_risk:  # "book it on the official site": the commit gate takes over
        issue_dry_run(
            state,
            ctx,
            action="trip.record_commitment",
            params={"kind": "booking", "url": ev.url, "message_intent": "booking"},
            evidence=[
                {
                    "availability": ev.availability,
                    "price": ev.price,
                    "currency": ev.currency,
                    "cancellation_policy": ev.cancellation_policy,
                    "url": ev.url,
                }
            ],
        )


def _browse_blocked(decision, state, ctx, registry, blocked) -> None:
    zh = fastpath.zh_text(state.user_input)
    state.observability.fallback_used = True
    ctx.telemetry.fallback_triggered(
        from_route="SYSTEM2_WEBBROWSE", to_route="SYSTEM1_RAG", reason=blocked.blocked_type
    )
    if blocked.blocked_type == "CAPTCHA":
        state.result.status = "FAILED"
        state.result.error_code = "BROWSER_BLOCKED_CAPTCHA"
        state.result.explanations = [
            f"网站要求验证码（{blocked.domain}），已停止自动浏览。你可以接管：在浏览器中打开 {blocked.takeover_url} 完成验证；"
            "或降级为知识库中的记录（非实时）。"
            if zh
            else f"The site asks for a captcha ({blocked.domain}); automatic browsing stopped. Take over "
            f"at {blocked.takeover_url}, or downgrade to the knowledge base's records (not live)."
        ]
        state.result.next_steps = [f"takeover:{blocked.takeover_url}", "downgrade:knowledge_base"]
    elif blocked.blocked_type == "NOT_ALLOWLISTED":
        state.result.status = "FAILED"
        state.result.error_code = "BROWSER_DOMAIN_NOT_ALLOWED"
        state.result.explanations = [
            f"{blocked.domain} 不在允许访问的网站名单中，未访问。"
            if zh
            else f"{blocked.domain} is not on the allowlist; it was not visited."
        ]
        state.result.next_steps = ["downgrade:knowledge_base"]
    elif blocked.blocked_type == "BUDGET":
        state.result.status = "TIMEOUT"
        state.result.error_code = "BUDGET_EXCEEDED"
        state.result.explanations = ["浏览步数预算用尽。" if zh else "The browser step budget ran out."]
        state.result.next_steps = ["raise:max_browser_steps", f"takeover:{blocked.takeover_url}"]
    else:
        state.result.status = "FAILED"
        state.result.error_code = "TOOL_CALL_FAILED"
        state.result.explanations = [
            f"无法打开页面（{blocked.detail}）。" if zh else f"The page could not be fetched ({blocked.detail})."
        ]
        state.result.next_steps = ["downgrade:knowledge_base"]
    log_decision(
        state,
        action="browser.fetch",
        reason_code=state.result.error_code or "BLOCKED",
        policy_id=POLICY_CONSENT,
        facts={"domain": blocked.domain, "blocked_type": blocked.blocked_type},
    )
    # Downgrade: what the knowledge base knows about the places named (clearly labelled, not live).
    mentioned = mentioned_places(state.user_input, ctx.provider.region)
    for pid in mentioned[:3]:
        p = ctx.provider.region.place_by_id(pid)
        state.result.candidates.append(
            {
                "place_id": pid,
                "name": p.name_zh,
                "opening_hours": p.opening_hours,
                "needs_reservation": p.needs_reservation,
                "source": "knowledge_base",
                "live": False,
            }
        )
