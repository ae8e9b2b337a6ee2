"""The semantic router (docs/ARCHITECTURE.md, "Agent"): hard rules first, feature scores for the grey zone,
confidence thresholds, and an optional small-model arbitration for the grey zone only.

``route_message`` is pure and fast (regular expressions over one message): no I/O unless an
arbiter is passed and the score falls in the grey zone. Its public output is ``RouterOutput``
(the router's output contract); ``RouterDecision`` adds what the fast path needs (intent, features, the
missing fields and the one question to ask).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from core.agent.features import Features, extract_features
from core.config import Settings
from core.i18n import Lang, guess_lang
from core.models.agent import (
    AgentOptions,
    Budget,
    Capability,
    ErrorCode,
    Reason,
    Route,
    RouterOutput,
    UiHint,
    UiStatus,
)
from core.words import agent as words

Intent = str  # trip_edit | weather | travel_time | rag | plan | conditional | browse | commit | bulk_write | clarify
#   | book | cancel | list (reservations)
RESERVATION_INTENTS = ("book", "cancel", "list")

POLICY_HARD_RULE = "ROUTER_HARD_RULE"
POLICY_SCORE = "ROUTER_FEATURE_SCORE"
POLICY_LLM = "ROUTER_LLM_ARBITRATION"
POLICY_FOLLOWUP = "BOOKING_FOLLOWUP"


@dataclass
class RouterDecision:
    output: RouterOutput
    intent: Intent
    features: Features
    policy_id: str
    reason_code: str
    scores: dict[str, float] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    question: str | None = None
    error_code: ErrorCode | None = None
    router_ms: float = 0.0
    # execute (>= 0.75) | approximate (0.45-0.75: System 1 approximation or one key question) | ask (< 0.45)
    question_kind: str = "execute"
    # the model's grey-zone verdict was no valid JSON of the verdict's schema: ROUTER_PARSE_FAILED, the score stands
    # (a warning the orchestrator logs with the fallback; the model's raw answer is never kept)
    arbiter_failure: ErrorCode | None = None


class ArbiterVerdict(BaseModel):
    """What a small model may answer in the grey zone; anything else is rejected."""

    route: Route
    confidence: float = Field(ge=0, le=1)
    reasons: list[Reason] = Field(default_factory=list)


Arbiter = Callable[[str, dict[str, Any]], dict[str, Any] | str | None]


def _budget(route: Route, options: AgentOptions) -> Budget:
    browser = options.max_browser_steps if route == "SYSTEM2_WEBBROWSE" else 0
    if route.startswith("SYSTEM1"):
        return Budget(max_seconds=min(options.max_seconds, 3.0), max_steps=1, max_browser_steps=0)
    return Budget(max_seconds=options.max_seconds, max_steps=options.max_steps, max_browser_steps=browser)


def _score(f: Features) -> dict[Route, float]:
    """Grey-zone scores per route from the message's features (0..1, higher = more likely)."""
    s: dict[Route, float] = {"SYSTEM1_API": 0.0, "SYSTEM1_RAG": 0.0, "SYSTEM2_REASONING": 0.0, "SYSTEM2_WEBBROWSE": 0.0}
    if f.planning:
        s["SYSTEM2_REASONING"] = (
            0.55
            + 0.10 * min(f.planning - 1, 2)
            + (0.15 if f.days else 0.0)
            + (0.10 if f.has_city else 0.0)
            + (0.05 if f.has_date else 0.0)
            + 0.05 * min(f.constraints, 3)
        )
    if f.constraints >= 3:
        s["SYSTEM2_REASONING"] = max(s["SYSTEM2_REASONING"], 0.5 + 0.05 * min(f.constraints, 6))
    if f.plans_an_outing and not f.availability:  # "明天…吃一顿纯素午餐，再逛逛外滩": things to do on a day said
        s["SYSTEM2_REASONING"] = max(
            s["SYSTEM2_REASONING"], 0.75 + (0.05 if f.has_date else 0.0) + (0.05 if f.has_city else 0.0)
        )
    if f.fact_query:
        s["SYSTEM1_RAG"] = (
            0.7 + (0.1 if f.has_city else 0.0) - (0.15 if f.availability else 0.08 if f.realtime else 0.0)
        )
    if f.availability:  # "有房/余票/还能订到": only a live page can tell
        s["SYSTEM2_WEBBROWSE"] = (0.55 + 0.1 * min(f.availability, 2)) if not f.planning else 0.3
    elif f.realtime:  # "今天/现在": a System 1 answer is a fair approximation
        s["SYSTEM2_WEBBROWSE"] = 0.4 if not f.planning else 0.2
    if f.weather or f.travel_time or f.from_to:
        s["SYSTEM1_API"] = 0.8 if (f.weather or f.travel_time) else 0.5
    return s


def route_message(
    message: str,
    *,
    options: AgentOptions | None = None,
    settings: Settings,
    arbiter: Arbiter | None = None,
    recent_messages: list[str] | None = None,
    lang: Lang | None = None,
) -> RouterDecision:
    """Route one message. Never raises on text; a parse failure yields ROUTER_PARSE_FAILED. The question and status
    words are in ``lang`` when a face says it, else in the message's language (core.i18n.guess_lang)."""
    t0 = time.perf_counter()
    options = options or AgentOptions()
    try:
        f = extract_features(message)
    except Exception:  # pragma: no cover - regexes over a str do not fail; keep the contract anyway
        f = Features(text=str(message), lang=lang)
        decision = _finish(
            f,
            "SYSTEM1_RAG",
            0.0,
            [],
            [],
            "clarify",
            POLICY_SCORE,
            "ROUTER_PARSE_FAILED",
            options,
            settings,
            error_code="ROUTER_PARSE_FAILED",
        )
        decision.router_ms = (time.perf_counter() - t0) * 1000
        return decision
    f.lang = lang
    decision = _hard_rules(f, options, settings) or _grey_zone(
        f, options, settings, arbiter=arbiter, recent=recent_messages or []
    )
    decision.router_ms = (time.perf_counter() - t0) * 1000
    return decision


def _ambiguity_penalty(f: Features, recent: list[str] | None = None) -> float:
    pen = 0.12 * min(f.pronouns, 3)
    if recent:  # a pronoun may refer to the conversation; resolve softly
        pen *= 0.5
    return pen


def _hard_rules(f: Features, options: AgentOptions, settings: Settings) -> RouterDecision | None:
    """The rules that decide before any score, in order: browsing and bookings (with consent), other high-risk
    writes and conditional plans (System 2), then an explicit trip edit or a plain question (System 1)."""
    for rules in (_browse_and_booking_rules, _high_risk_rules, _fast_path_rules):
        decision = rules(f, options, settings)
        if decision is not None:
            return decision
    return None


def _browse_and_booking_rules(f: Features, options: AgentOptions, settings: Settings) -> RouterDecision | None:
    # A) high-risk: browser, payment/refund/booking/cancellation, bulk write -> System 2 + consent
    if f.browser:
        reasons: list[Reason] = ["REALTIME_WEB", "NO_API"]
        caps: list[Capability] = ["browser", "places"]
        if f.high_risk:
            reasons.append("HIGH_RISK_ACTION")
            caps.append("commit")
        return _finish(
            f,
            "SYSTEM2_WEBBROWSE",
            0.92,
            reasons,
            caps,
            "browse",
            POLICY_HARD_RULE,
            "HARD_RULE_BROWSER",
            options,
            settings,
            consent=True,
        )
    # Reservations: cancelling is its own intent (it never books), then booking; both need a confirmation.
    if f.cancel_booking or f.booking:
        intent = "cancel" if f.cancel_booking else "book"
        return _finish(
            f,
            "SYSTEM2_REASONING",
            0.9,
            ["HIGH_RISK_ACTION"],
            ["places", "commit"],
            intent,
            POLICY_HARD_RULE,
            "HARD_RULE_CANCEL_BOOKING" if intent == "cancel" else "HARD_RULE_BOOKING",
            options,
            settings,
            consent=True,
        )
    if f.list_bookings:  # reading one's own reservations: never asks what to book
        return _finish(
            f,
            "SYSTEM1_API",
            0.92,
            [],
            ["commit"],
            "list",
            POLICY_HARD_RULE,
            "HARD_RULE_LIST_BOOKINGS",
            options,
            settings,
        )
    return None


def _high_risk_rules(f: Features, options: AgentOptions, settings: Settings) -> RouterDecision | None:
    caps: list[Capability]
    reasons: list[Reason]
    if f.high_risk:
        caps = ["places", "commit"]
        if f.realtime:
            caps.append("browser")
        return _finish(
            f,
            "SYSTEM2_REASONING",
            0.9,
            ["HIGH_RISK_ACTION"],
            caps,
            "commit",
            POLICY_HARD_RULE,
            "HARD_RULE_HIGH_RISK",
            options,
            settings,
            consent=True,
        )
    if f.bulk_write:
        return _finish(
            f,
            "SYSTEM2_REASONING",
            0.9,
            ["HIGH_RISK_ACTION"],
            ["trip", "commit"],
            "bulk_write",
            POLICY_HARD_RULE,
            "HARD_RULE_BULK_WRITE",
            options,
            settings,
            consent=True,
        )
    # Conditional plans ("赶不上日落就改横滨") always need branches: System 2.
    if f.conditional:
        reasons = ["MULTI_CONSTRAINT"]
        if f.realtime:
            reasons.append("REALTIME_WEB")
        conf = max(0.5, 0.88 - _ambiguity_penalty(f))
        return _finish(
            f,
            "SYSTEM2_REASONING",
            conf,
            reasons,
            ["places", "transport", "planner"],
            "conditional",
            POLICY_HARD_RULE,
            "HARD_RULE_CONDITIONAL",
            options,
            settings,
        )
    return None


def _fast_path_rules(f: Features, options: AgentOptions, settings: Settings) -> RouterDecision | None:
    # B) explicit CRUD on the trip -> SYSTEM1_API (unless it is really a planning request)
    if f.crud and not (f.planning and (f.days or f.constraints >= 2)):
        conf = 0.92 - _ambiguity_penalty(f)
        target_missing = _crud_target_missing(f)
        if target_missing:
            conf = min(conf, 0.6)
        return _finish(
            f,
            "SYSTEM1_API",
            conf,
            ["MISSING_INFO"] if conf < 0.75 else [],
            ["trip"],
            "trip_edit",
            POLICY_HARD_RULE,
            "HARD_RULE_TRIP_CRUD",
            options,
            settings,
            missing=["target"] if conf < 0.75 else [],
        )
    if not f.planning:
        if f.weather:
            return _finish(
                f,
                "SYSTEM1_API",
                0.92,
                [],
                ["weather"],
                "weather",
                POLICY_HARD_RULE,
                "HARD_RULE_WEATHER",
                options,
                settings,
            )
        if f.travel_time or (f.from_to and f.fact_query is False and re.search(r"(要|需要|多|how)", f.text)):
            conf = 0.9 if f.from_to else 0.62
            return _finish(
                f,
                "SYSTEM1_API",
                conf,
                [] if f.from_to else ["MISSING_INFO"],
                ["transport", "places"],
                "travel_time",
                POLICY_HARD_RULE,
                "HARD_RULE_TRAVEL_TIME",
                options,
                settings,
                missing=[] if f.from_to else ["target"],
            )
        if f.fact_query and not f.realtime and f.constraints < 3:
            conf = 0.88 - _ambiguity_penalty(f)
            return _finish(
                f,
                "SYSTEM1_RAG",
                conf,
                [],
                ["knowledge", "places"],
                "rag",
                POLICY_HARD_RULE,
                "HARD_RULE_FACT_QUERY",
                options,
                settings,
                missing=["target"] if conf < 0.75 else [],
            )
    return None


def _crud_target_missing(f: Features) -> bool:
    if "swap_days" in f.crud_ops or "rename" in f.crud_ops:
        return False
    stripped = re.sub(
        r"删除|删掉|删了|去掉|移除|拿掉|不去了?|取消|加上|添加|加入|加到|加进|放进|增加|加个|加一个|再加|也去|把|从|行程|里|中|的|吧|了|一下|请|帮我|"
        r"\b(delete|remove|drop|skip|add|include|move|the|please|from|my|trip|itinerary|to|it|that|this|one)\b",
        "",
        f.text,
        flags=re.IGNORECASE,
    )
    return len(re.sub(r"[\s\W_]+", "", stripped)) < 2 or f.pronouns > 0


#: what each route needs when the scores chose it
_GREY_ZONE_CAPABILITIES: dict[Route, tuple[Capability, ...]] = {
    "SYSTEM1_API": ("transport", "places"),
    "SYSTEM1_RAG": ("knowledge", "places"),
    "SYSTEM2_REASONING": ("places", "transport", "planner"),
    "SYSTEM2_WEBBROWSE": ("browser", "places"),
}


def _grey_zone(
    f: Features, options: AgentOptions, settings: Settings, *, arbiter: Arbiter | None, recent: list[str]
) -> RouterDecision:
    scores = _score(f)
    route: Route = max(scores, key=lambda r: scores[r])
    conf = max(0.0, min(0.99, scores[route] - _ambiguity_penalty(f, recent)))
    reasons: list[Reason] = []
    if f.constraints >= 2:
        reasons.append("MULTI_CONSTRAINT")
    if f.realtime:
        reasons.append("REALTIME_WEB")
    if route == "SYSTEM2_WEBBROWSE":
        reasons.append("NO_API")
    policy, code = POLICY_SCORE, "GREY_ZONE_SCORE"
    if scores[route] <= 0:
        route, conf = "SYSTEM1_RAG", 0.2
    failure: ErrorCode | None = None
    if (
        arbiter is not None
        and settings.llm_router_arbitration
        and settings.router_ask_threshold <= conf < settings.router_execute_threshold
    ):
        verdict, failure = _arbitrate(arbiter, f, scores)
        if verdict is not None:
            route, conf, policy, code = verdict.route, min(verdict.confidence, 0.9), POLICY_LLM, "LLM_ARBITRATION"
            reasons = list(dict.fromkeys([*reasons, *verdict.reasons]))
    intent = {
        "SYSTEM1_API": "weather" if f.weather else "travel_time",
        "SYSTEM1_RAG": "rag",
        "SYSTEM2_REASONING": "plan",
        "SYSTEM2_WEBBROWSE": "browse",
    }[route]
    caps = list(_GREY_ZONE_CAPABILITIES[route])
    missing: list[str] = []
    if route == "SYSTEM2_REASONING" and not (f.days or f.has_date or f.has_city or f.outing or f.constraints):
        missing.append("goal")  # "帮我规划一下行程": nothing to plan around; the rest has defaults the plan says
    if conf < settings.router_ask_threshold:
        missing = f.missing_fields()
        intent = "clarify"
    elif conf < settings.router_execute_threshold and route == "SYSTEM2_REASONING" and missing:
        intent = "clarify"
    if missing and "MISSING_INFO" not in reasons:
        reasons.append("MISSING_INFO")
    decision = _finish(
        f,
        route,
        conf,
        reasons,
        caps,
        intent,
        policy,
        code,
        options,
        settings,
        consent=route == "SYSTEM2_WEBBROWSE",
        missing=missing,
    )
    decision.scores = {k: round(v, 3) for k, v in scores.items()}
    decision.arbiter_failure = failure
    return decision


def _arbitrate(
    arbiter: Arbiter, f: Features, scores: dict[Route, float]
) -> tuple[ArbiterVerdict | None, ErrorCode | None]:
    """Ask the small model and validate its JSON: the verdict, or None and why (the score stands either way). An
    answer that is no JSON or not the verdict's schema is ROUTER_PARSE_FAILED; a model that did not answer (network,
    timeout, no text) is no parse failure: nothing came to parse, and the client already said so in its log."""
    import json

    try:
        raw = arbiter(f.text, {"scores": scores, "features": f.as_facts()})
    except Exception:  # network errors, timeouts: the score stands
        return None, None
    if raw is None:
        return None, None
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
        return ArbiterVerdict.model_validate(data), None
    except (ValidationError, ValueError, TypeError, KeyError):
        return None, "ROUTER_PARSE_FAILED"


def _finish(
    f: Features,
    route: Route,
    conf: float,
    reasons: list[Reason],
    caps: list[Capability],
    intent: Intent,
    policy: str,
    code: str,
    options: AgentOptions,
    settings: Settings,
    *,
    consent: bool = False,
    missing: list[str] | None = None,
    error_code: ErrorCode | None = None,
) -> RouterDecision:
    lang: Lang = f.lang or guess_lang(f.text)
    conf = round(max(0.0, min(0.99, conf)), 3)
    missing = list(missing or [])
    kind = "execute"
    question = None
    if conf < settings.router_ask_threshold:
        kind = "ask"
        missing = missing or f.missing_fields()
        question = words.ask_fields(missing, lang)
        error_code = error_code or "ROUTER_LOW_CONFIDENCE"
        if "MISSING_INFO" not in reasons:
            reasons = [*reasons, "MISSING_INFO"]
    elif conf < settings.router_execute_threshold:
        kind = "approximate"
        if missing:
            question = words.ask_fields(missing[:1], lang)  # one key question
    mode = "fast" if route.startswith("SYSTEM1") else "slow"
    status: UiStatus
    if kind == "ask" or (kind == "approximate" and question and intent in ("clarify", "trip_edit")):
        status, message = "done", question or ""
    elif route == "SYSTEM2_WEBBROWSE":
        if options.allow_webbrowse:
            status, message = "browsing", words.router_message("browsing", lang)
        else:
            status, message = "awaiting_consent", words.router_message("awaiting_consent", lang)
    elif intent in ("book", "cancel"):
        status = "awaiting_confirmation"
        message = words.router_message("book_first" if intent == "book" else "cancel_first", lang)
    elif intent in ("commit", "bulk_write"):
        status, message = "awaiting_confirmation", words.router_message("commit_first", lang)
    elif route == "SYSTEM2_REASONING":
        if f.realtime:
            status, message = "verifying", words.router_message("verifying", lang)
        else:
            status, message = "thinking", words.router_message("planning", lang)
    else:
        status, message = "thinking", words.router_message("looking_up", lang)
    out = RouterOutput(
        route=route,
        confidence=conf,
        reasons=list(dict.fromkeys(reasons)),
        required_capabilities=list(dict.fromkeys(caps)),
        consent_required=consent or intent in ("commit", "bulk_write", "book", "cancel"),
        budget=_budget(route, options),
        ui_hint=UiHint(mode=mode, status=status, message=message),
    )
    return RouterDecision(
        output=out,
        intent=intent if kind != "ask" else "clarify",
        features=f,
        policy_id=policy,
        reason_code=code,
        missing=missing,
        question=question,
        error_code=error_code,
        question_kind=kind,
    )


def as_booking(decision: RouterDecision, *, options: AgentOptions, settings: Settings) -> RouterDecision:
    """The same message routed as a booking: it answers the question a pending booking asked
    (core/agent/flows/booking_followup.py decides that from the user's server-side state)."""
    out = _finish(
        decision.features,
        "SYSTEM2_REASONING",
        0.9,
        ["HIGH_RISK_ACTION"],
        ["places", "commit"],
        "book",
        POLICY_FOLLOWUP,
        "PENDING_BOOKING_FOLLOWUP",
        options,
        settings,
        consent=True,
    )
    out.router_ms = decision.router_ms
    return out


def route(message: str, **kwargs: Any) -> RouterOutput:
    """The router's output contract for one message."""
    return route_message(message, **kwargs).output
