"""The consent-gated browse flow: no consent, no visit; with consent only allowlisted pages, read within the
budget, and any commit still behind a dry run."""

from __future__ import annotations

import re

from core.agent import fastpath, gates, venue_sites
from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.browse import BrowseBlocked, BrowseEvidence, parse_web_url
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_CONSENT, act, issue_dry_run
from core.agent.trip_request import mentioned_places
from core.agent.when import resolve_day
from core.i18n import Lang, guess_lang, join_words, t
from core.models.agent import (
    AgentState,
    NextStep,
)
from core.venues.catalog import DEMO_SOURCE, VenueSite
from core.words import agent as agent_words

_KNOWLEDGE_BASE = NextStep(code="downgrade", args={"to": "knowledge_base"})


def _takeover(blocked: BrowseBlocked) -> NextStep:
    return NextStep(code="takeover", args={"url": blocked.takeover_url} if blocked.takeover_url else {})


def _ask_consent(state: AgentState, ctx: AgentContext, lang: Lang) -> None:
    """No consent yet: NEED_CONSENT, naming the sites the agent may read."""
    sites = agent_words.site_names(venue_sites.allowed_sites(ctx.settings, ctx.provider.region.name), lang)
    state.result.status = "NEED_CONSENT"
    state.result.error_code = "BROWSER_CONSENT_REQUIRED"
    state.result.explanations = [t("agent.browse.consent_sites", lang, sites=sites)]
    state.result.next_steps = [
        NextStep(code="allow_webbrowse", args={"allowlist": " ".join(ctx.settings.browse_allowlist)}),
        _KNOWLEDGE_BASE,
    ]
    log_decision(state, action="gate.consent", reason_code="BROWSER_CONSENT_REQUIRED", policy_id=POLICY_CONSENT)
    ctx.report("awaiting_consent")


_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def _not_allowed_lines(blocked: BrowseBlocked, ctx: AgentContext, lang: Lang) -> list[str]:
    """The refusal, naming exactly what was not allowed (the host, or host:port when the port is why); for the demo
    venue sites' own port on this computer, how to start or allow them."""
    lines = [t("agent.browse.not_allowed", lang, site=blocked.refused or blocked.url)]
    target = parse_web_url(blocked.url)
    if target is not None and target.host in _LOOPBACK and target.port == ctx.settings.venues_port:
        lines.append(t("agent.browse.demo_sites_off", lang, port=target.port))
    return lines


def _page_to_read(state: AgentState, ctx: AgentContext) -> tuple[str | None, VenueSite | None]:
    """The page the message asks for: a link in it, else the (demo) website of a venue it names, for the day it
    names (else today), else the official site the knowledge base records for a place it names; and the venue
    site when it is one."""
    region = ctx.provider.region
    url = venue_sites.message_url(state.user_input)
    if url is not None:  # a link to a demo venue's page: for the day the message names ("明天还有房吗")
        linked = venue_sites.demo_site_of_url(url, ctx.settings, region.name)
        if linked is not None:
            day = resolve_day(state.user_input, now=ctx.now)  # today when the message names no day
            return venue_sites.dated_url(url, linked, ctx.settings, day), linked
    site = None if url else venue_sites.site_for_message(state.user_input, region, ctx.settings)
    if site is not None:  # the venue's (demo) website, for the day the message names (else today)
        day = resolve_day(state.user_input, now=ctx.now)
        url = venue_sites.site_url(site, ctx.settings, day)
    if url is None:
        # An official site recorded in the knowledge base for a place named in the message.
        from core.agent.rag import knowledge_base

        kb = knowledge_base(region, kb_dir=ctx.settings.kb_dir)
        mentioned = set(mentioned_places(state.user_input, region))
        url = next(
            (d.facts["url"] for d in kb.index.docs if d.facts.get("url") and d.facts.get("place_id") in mentioned),
            None,
        )
    return url, site


def _page_sentence(ev: BrowseEvidence, site: VenueSite | None, lang: Lang) -> str:
    """What the page says, in one sentence: its offers, else its availability and price; with its cancellation
    terms and the site by its name."""
    # the page's own sentence, its full stop left to the reply's
    cancel = (ev.cancellation_policy or "").rstrip("。.．")
    if cancel and guess_lang(cancel, default=lang) != lang:  # quoted as the site wrote it, and said to be so
        cancel = t("agent.browse.quoted", lang, text=cancel)
    cancel = cancel or t("agent.browse.not_stated", lang)
    site_name = re.sub(r"^https?://([^/]+).*$", r"\1", ev.url)  # the source by its name: no link in a reply
    if ev.offers:
        venue = (site.name.get(lang) or site.name["zh"]) if site is not None else (ev.title or site_name)
        return _offers_sentence(ev, lang, venue=venue, site=site_name, cancellation=cancel)
    avail = t(_AVAILABILITY[ev.availability], lang)
    price = f"¥{ev.price:g}" if ev.price is not None else t("agent.browse.no_price", lang)
    return t("agent.browse.found", lang, site=site_name, availability=avail, price=price, cancellation=cancel)


def _dry_run_booking(state: AgentState, ctx: AgentContext, ev: BrowseEvidence) -> None:
    """ "Book it on the official site": the commit gate takes over, with what the page said as evidence."""
    issue_dry_run(
        state,
        ctx,
        action=ActionName.TRIP_RECORD_COMMITMENT,
        params={"kind": "booking", "url": ev.url, "message_intent": "booking"},
        evidence=[
            {
                "availability": ev.availability,
                "price": ev.price,
                "currency": ev.currency,
                "cancellation_policy": ev.cancellation_policy,
                "offers": [o.model_dump() for o in ev.offers],
                "source": ev.source,
                "url": ev.url,
            }
        ],
    )


def run_browse(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    lang = fastpath.state_lang(state)
    state.consent.browse = gates.browse_consented(
        ctx.request, ctx.store, now=ctx.now_s(), ttl_s=ctx.settings.browse_consent_ttl_s
    )
    if state.consent.browse:
        state.consent.browse_source = "request" if not gates.consent_missing(ctx.request) else "conversation"
    else:
        _ask_consent(state, ctx, lang)
        return
    url, site = _page_to_read(state, ctx)
    if url is None:
        state.result.status = "NEED_MORE_INFO"
        state.result.explanations = [t("agent.browse.need_url", lang)]
        log_decision(state, action="gate.consent", reason_code="MISSING_URL", policy_id=POLICY_CONSENT)
        return
    state.react.step += 1
    ctx.report("browsing")
    out = act(
        registry,
        ActionName.BROWSER_FETCH,
        {"url": url},
        state,
        ctx,
        reason_code="REALTIME_WEB",
        policy_id=POLICY_CONSENT,
        facts={"domain": re.sub(r"^https?://([^/:]+).*$", r"\1", url)},
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
    state.result.explanations = [_page_sentence(ev, site, lang)]
    state.result.status = "OK"
    log_decision(
        state,
        action=ActionName.BROWSER_FETCH,
        reason_code="EVIDENCE_EXTRACTED",
        policy_id=POLICY_CONSENT,
        facts={"availability": ev.availability, "price": ev.price, "offers": len(ev.offers), "steps": out.steps},
    )
    if decision.features.high_risk:  # "book it on the official site": the commit gate takes over
        _dry_run_booking(state, ctx, ev)


def _money(price: float, currency: str | None) -> str:
    return f"¥{price:g}" if currency in (None, "CNY", "RMB") else f"{price:g} {currency}"


def _offers_sentence(ev: BrowseEvidence, lang: Lang, *, venue: str, site: str, cancellation: str) -> str:
    """The page's offers in one sentence: each by its name with its price (or sold out), for the first date the
    page lists; the demo sites' figures are said to be demo data."""
    dates = [o.date for o in ev.offers if o.date]
    first = dates[0][:10] if dates else None
    shown = [o for o in ev.offers if first is None or (o.date or "").startswith(first)][:8]
    words = []
    for o in shown:
        name = (o.alternate_name if lang == "en" else None) or o.name or o.alternate_name or o.item or "?"
        if o.availability == "unavailable" or o.price is None:
            words.append(t("agent.browse.offer_sold_out", lang, name=name))
        elif o.left is not None:
            words.append(t("agent.browse.offer_left", lang, name=name, price=_money(o.price, o.currency), left=o.left))
        else:
            words.append(t("agent.browse.offer", lang, name=name, price=_money(o.price, o.currency)))
    demo = t("agent.browse.demo_note", lang) if ev.source == DEMO_SOURCE else ""
    return t("agent.browse.offers", lang, venue=venue, site=site, date=first or t("agent.browse.not_stated", lang),
             offers=join_words(words, lang, sep="items"), cancellation=cancellation, demo=demo)  # fmt: skip


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
        state.result.explanations = _not_allowed_lines(blocked, ctx, lang)
        state.result.next_steps = [_KNOWLEDGE_BASE]
    elif blocked.blocked_type == "BUDGET":
        state.result.status = "TIMEOUT"
        state.result.error_code = "BUDGET_EXCEEDED"
        state.result.explanations = [t("agent.browse.budget", lang)]
        state.result.next_steps = [NextStep(code="raise", args={"option": "max_browser_steps"}), _takeover(blocked)]
    else:
        state.result.status = "FAILED"
        state.result.error_code = "TOOL_CALL_FAILED"
        state.result.explanations = [agent_words.fetch_failed_sentence(blocked.http_status, lang)]
        state.result.next_steps = [_KNOWLEDGE_BASE]
    log_decision(
        state,
        action=ActionName.BROWSER_FETCH,
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
