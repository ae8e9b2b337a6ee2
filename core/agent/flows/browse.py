"""The consent-gated browse flow: no consent, no visit; with consent only allowlisted pages, read within the
budget, and any commit still behind a dry run."""

from __future__ import annotations

import re

from core.agent import fastpath, gates
from core.agent.actions.registry import ActionRegistry
from core.agent.browse import BrowseBlocked
from core.agent.lexicon import URL
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_CONSENT, act, issue_dry_run
from core.agent.trip_request import mentioned_places
from core.i18n import t
from core.models.agent import (
    AgentState,
    NextStep,
)

_KNOWLEDGE_BASE = NextStep(code="downgrade", args={"to": "knowledge_base"})


def _takeover(blocked: BrowseBlocked) -> NextStep:
    return NextStep(code="takeover", args={"url": blocked.takeover_url} if blocked.takeover_url else {})


def run_browse(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    lang = fastpath.state_lang(state)
    if gates.consent_missing(ctx.request):
        state.result.status = "NEED_CONSENT"
        state.result.error_code = "BROWSER_CONSENT_REQUIRED"
        state.result.explanations = [t("agent.browse.consent", lang)]
        state.result.next_steps = [NextStep(code="allow_webbrowse"), _KNOWLEDGE_BASE]
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
        state.result.explanations = [t("agent.browse.need_url", lang)]
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
        state.result.explanations = [t("agent.browse.nothing_found", lang)]
        return
    ev = out.evidence[-1]
    avail = t(_AVAILABILITY[ev.availability], lang)
    price = f"¥{ev.price:g}" if ev.price is not None else t("agent.browse.no_price", lang)
    cancel = ev.cancellation_policy or t("agent.browse.not_stated", lang)
    site = re.sub(r"^https?://([^/:]+).*$", r"\1", ev.url)  # the source by its name: no link in a reply
    state.result.explanations = [t("agent.browse.found", lang, site=site, availability=avail, price=price,
                                   cancellation=cancel)]  # fmt: skip
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


_AVAILABILITY = {
    "available": "agent.browse.available",
    "unavailable": "agent.browse.unavailable",
    "unknown": "agent.browse.not_stated",
}


def _browse_blocked(
    decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry, blocked: BrowseBlocked
) -> None:
    lang = fastpath.state_lang(state)
    state.observability.fallback_used = True
    ctx.telemetry.fallback_triggered(
        from_route="SYSTEM2_WEBBROWSE", to_route="SYSTEM1_RAG", reason=blocked.blocked_type
    )
    if blocked.blocked_type == "CAPTCHA":
        state.result.status = "FAILED"
        state.result.error_code = "BROWSER_BLOCKED_CAPTCHA"
        state.result.explanations = [t("agent.browse.captcha", lang, site=blocked.domain)]
        state.result.next_steps = [_takeover(blocked), _KNOWLEDGE_BASE]
    elif blocked.blocked_type == "NOT_ALLOWLISTED":
        state.result.status = "FAILED"
        state.result.error_code = "BROWSER_DOMAIN_NOT_ALLOWED"
        state.result.explanations = [t("agent.browse.not_allowed", lang, site=blocked.domain)]
        state.result.next_steps = [_KNOWLEDGE_BASE]
    elif blocked.blocked_type == "BUDGET":
        state.result.status = "TIMEOUT"
        state.result.error_code = "BUDGET_EXCEEDED"
        state.result.explanations = [t("agent.browse.budget", lang)]
        state.result.next_steps = [NextStep(code="raise", args={"option": "max_browser_steps"}), _takeover(blocked)]
    else:
        state.result.status = "FAILED"
        state.result.error_code = "TOOL_CALL_FAILED"
        state.result.explanations = [t("agent.browse.fetch_failed", lang, detail=blocked.detail)]
        state.result.next_steps = [_KNOWLEDGE_BASE]
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
        assert p is not None, "mentioned_places gives the pack's own ids"
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
