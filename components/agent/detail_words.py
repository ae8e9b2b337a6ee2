"""The agent's codes in words (no Streamlit), for the chat page's Details and the operator page: how a question was
answered (its route), why (the router's reasons), with what (capabilities), how it ended (the result's status), the
scenario of a success rate and the part of the agent that took a logged step. The codes themselves stay in the
collapsed raw-data expander (components/debug_view.py); a code with no words here is said generally, never shown."""

from __future__ import annotations

from core.i18n import Lang, join_words, t
from core.models.agent import AgentResponse

ROUTE_WORDS = {
    "SYSTEM1_API": "agent.words.route.system1_api",
    "SYSTEM1_RAG": "agent.words.route.system1_rag",
    "SYSTEM2_REASONING": "agent.words.route.system2_reasoning",
    "SYSTEM2_WEBBROWSE": "agent.words.route.system2_webbrowse",
}
REASON_WORDS = {
    "MULTI_CONSTRAINT": "agent.words.reason.multi_constraint",
    "MISSING_INFO": "agent.words.reason.missing_info",
    "NO_API": "agent.words.reason.no_api",
    "REALTIME_WEB": "agent.words.reason.realtime_web",
    "HIGH_RISK_ACTION": "agent.words.reason.high_risk_action",
}
CAPABILITY_WORDS = {
    "places": "agent.words.capability.places",
    "transport": "agent.words.capability.transport",
    "planner": "agent.words.capability.planner",
    "browser": "agent.words.capability.browser",
    "trip": "agent.words.capability.trip",
    "weather": "agent.words.capability.weather",
    "knowledge": "agent.words.capability.knowledge",
    "commit": "agent.words.capability.commit",
}
RESULT_WORDS = {
    "OK": "agent.words.result.ok",
    "NEEDS_REVIEW": "agent.words.result.needs_review",
    "NEED_MORE_INFO": "agent.words.result.need_more_info",
    "NEED_CONSENT": "agent.words.result.need_consent",
    "NEED_CONFIRMATION": "agent.words.result.need_confirmation",
    "FAILED": "agent.words.result.failed",
    "TIMEOUT": "agent.words.result.timeout",
}
#: the router's intents (core/agent/router.py), the scenarios of the reasoning path's success rate
SCENARIO_WORDS = {
    "trip_edit": "agent.words.scenario.trip_edit",
    "weather": "agent.words.scenario.weather",
    "travel_time": "agent.words.scenario.travel_time",
    "rag": "agent.words.scenario.rag",
    "plan": "agent.words.scenario.plan",
    "conditional": "agent.words.scenario.conditional",
    "browse": "agent.words.scenario.browse",
    "commit": "agent.words.scenario.commit",
    "bulk_write": "agent.words.scenario.bulk_write",
    "clarify": "agent.words.scenario.clarify",
}
#: the first part of a logged action's name (``places.resolve_entities`` → places) → the part of the agent
ACTION_FAMILY_WORDS = {
    "browser": "agent.words.part.browser",
    "conditional": "agent.words.part.conditional",
    "gate": "agent.words.part.gate",
    "itinerary": "agent.words.part.itinerary",
    "llm": "agent.words.part.llm",
    "orchestrator": "agent.words.part.orchestrator",
    "places": "agent.words.part.places",
    "policy": "agent.words.part.policy",
    "reservations": "agent.words.part.reservations",
    "router": "agent.words.part.router",
    "scope": "agent.words.part.scope",
    "transport": "agent.words.part.transport",
    "trip": "agent.words.part.trip",
    "user_memory": "agent.words.part.user_memory",
    "weather": "agent.words.part.weather",
}


def _said(words: dict[str, str], code: str, lang: Lang) -> str:
    key = words.get(code)
    return t(key, lang) if key else t("agent.words.other", lang)


def route_words(route: str, lang: Lang) -> str:
    return _said(ROUTE_WORDS, route, lang)


def result_words(status: str, lang: Lang) -> str:
    return _said(RESULT_WORDS, status, lang)


def scenario_words(scenario: str, lang: Lang) -> str:
    """A scenario of the success rate; a route name stands in for an event with no scenario (older logs)."""
    return route_words(scenario, lang) if scenario in ROUTE_WORDS else _said(SCENARIO_WORDS, scenario, lang)


def part_words(action: str, lang: Lang) -> str:
    """The part of the agent that took a logged step, from its action's name."""
    return _said(ACTION_FAMILY_WORDS, action.partition(".")[0], lang)


def listed_words(words: dict[str, str], codes: list[str], lang: Lang) -> str:
    """Codes as words, joined in ``lang`` ("—" for none)."""
    return join_words(dict.fromkeys(_said(words, c, lang) for c in codes), lang) or "—"


def yes_no(value: bool, lang: Lang) -> str:
    return t("agent.words.yes" if value else "agent.words.no", lang)


def turn_lines(resp: AgentResponse, lang: Lang) -> list[str]:
    """A turn's Details in sentences: how and why it was answered, with what, how it ended, what it took."""
    route, o = resp.route, resp.observability
    return [
        t(
            "agent.words.details.route",
            lang,
            route=route_words(route.route, lang),
            confidence=f"{route.confidence:.0%}",
        ),
        t("agent.words.details.reasons", lang, reasons=listed_words(REASON_WORDS, list(route.reasons), lang)),
        t(
            "agent.words.details.capabilities",
            lang,
            capabilities=listed_words(CAPABILITY_WORDS, list(route.required_capabilities), lang),
        ),
        t("agent.words.details.result", lang, result=result_words(resp.result.status, lang)),
        t(
            "agent.words.details.effort",
            lang,
            seconds=f"{o.latency_ms / 1000:.1f}",
            tools=o.tool_calls,
            pages=o.browser_steps,
            budget=f"{route.budget.max_seconds:g}",
        ),
        t("agent.words.details.consent", lang, answer=yes_no(route.consent_required, lang)),
        t("agent.words.details.fallback", lang, answer=yes_no(o.fallback_used, lang)),
    ]
