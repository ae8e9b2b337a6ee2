"""System 1, the fast path: trip CRUD (SYSTEM1_API), weather honesty, travel time, and RAG.

Every handler goes through the Action Registry and returns a ``StateResult`` on the state.
Nothing here is invented: unknown places are named as unknown, missing weather is said to be
missing, and the knowledge base's silence is reported as silence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.features import normalize_message, strip_negated
from core.agent.nearby_answer import nearby_answer
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.trip_edit_text import clean_target, parse_trip_edit, split_targets
from core.agent.when import resolve_day, sun_times
from core.i18n import Lang, guess_lang
from core.i18n import join_words as join_words  # re-exported: the plan's reply (plan_reply) joins its words with it too
from core.i18n import t as t  # re-exported: the plan reply's words too (fastpath.t), so the catalog test finds them
from core.models.agent import AgentState, NextStep, StateStatus, TripEdit
from core.models.region import RegionPack
from core.words import agent as agent_words
from core.words.itinerary import hours_sentence
from core.words.route import source_words

POLICY = "SYSTEM1_DIRECT"


def _city(pack: RegionPack, lang: Lang) -> str:
    return agent_words.city_name(pack, lang)


def reply_lang(text: str, *, lang: Lang | None = None) -> Lang:
    """The language of the reply to ``text``: ``lang`` when the caller (a face) says it, else guessed from the text
    (core.i18n.guess_lang)."""
    return lang or guess_lang(text)


def state_lang(state: AgentState) -> Lang:
    """The reply language of one request: the face's (``state.lang``), else guessed from the message."""
    return reply_lang(state.user_input, lang=state.lang)


# --- handlers ----------------------------------------------------------------------------------------
def handle(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    {"trip_edit": _trip_edit, "weather": _weather, "travel_time": _travel_time, "rag": _rag}[decision.intent](
        decision, state, ctx, registry
    )


def _set(state: AgentState, status: StateStatus, *texts: str) -> None:
    state.result.status = status
    state.result.explanations = [t for t in texts if t]


def _trip_edit(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    lang = state_lang(state)
    edit = parse_trip_edit(strip_negated(normalize_message(state.user_input)))  # "不要删除A，把B移到第二天": only B
    if edit is None or (edit.op in ("add", "delete", "move", "prioritize") and not edit.target):
        _set(
            state,
            "NEED_MORE_INFO",
            t("agent.edit.which_place", state_lang(state)),
        )
        log_decision(state, action=ActionName.TRIP_APPLY_USER_EDIT, reason_code="EDIT_NOT_PARSED", policy_id=POLICY)
        return
    targets: Sequence[str | None] = [edit.target]
    if edit.op in ("add", "delete", "move", "prioritize") and edit.target:
        targets = split_targets(edit.target, lambda name: _known_place(name, state, ctx))
    sentences: list[tuple[str, str]] = []
    for target in targets:
        one = edit.model_copy(update={"target": target})
        sentences.append(_apply_one_edit(one, state, ctx, registry, lang))
    status: StateStatus = "OK" if all(s == "OK" for s, _ in sentences) else "NEED_MORE_INFO"
    _set(state, status, " ".join(text for _, text in sentences))
    if ctx.request.options.dry_run:
        state.result.explanations.insert(0, t("agent.edit.preview", state_lang(state)))
        state.result.next_steps.append(NextStep(code="resend", args={"option": "dry_run", "value": "false"}))


def _known_place(name: str, state: AgentState, ctx: AgentContext) -> bool:
    """A name the region knows as such (an exact name, alias or address, or a near-certain search hit) or a place
    already in the trip draft: strict, so "豫园和新天地" is not taken for 新天地 alone."""
    key = normalize_message(name).casefold()
    if any(normalize_message(str(n.get("name", ""))).casefold() == key for n in state.draft.nodes):
        return True
    if ctx.provider.geocode(name):
        return True
    return any((p.score or 0) >= 95 for p in ctx.provider.search(name, limit=1))


def _apply_one_edit(
    edit: TripEdit, state: AgentState, ctx: AgentContext, registry: ActionRegistry, lang: Lang
) -> tuple[str, str]:
    """Apply one edit through the registry; the status and the sentence that says what happened."""
    region = ctx.provider.region.name
    preview = ctx.request.options.dry_run  # dry_run: show the edit's outcome, write nothing
    out = registry.call(
        ActionName.TRIP_APPLY_USER_EDIT,
        {
            "user_id": ctx.request.user_id,
            "trip_id": ctx.request.trip_id or state.trip.trip_id,
            "edit": edit.model_dump(),
            "region": region,
            "dry_run": preview,
        },
        state=state,
        ctx=ctx,
    )
    log_decision(
        state,
        action=ActionName.TRIP_APPLY_USER_EDIT,
        reason_code=f"EDIT_{out.outcome}",
        policy_id=POLICY,
        facts={"op": edit.op, "target": edit.target, "day": edit.day, "nodes": len(out.current_nodes)},
    )
    state.memory.user_profile["trip"] = out.trip
    pack = ctx.provider.region
    listing = join_words([_pack_name_in(pack, n, lang) for n in out.current_nodes], lang)
    out.matched = _pack_name_in(pack, out.matched, lang) if out.matched and edit.op != "rename" else out.matched
    target = edit.target or ""
    if out.outcome == "NO_TRIP":
        done_word = t(_OP_DONE.get(edit.op, "agent.edit.op.other"), lang)
        return "NEED_MORE_INFO", t("agent.edit.no_trip", lang, target=target, op=done_word)
    if out.outcome == "TARGET_NOT_IN_TRIP":
        listing_or_empty = listing or t("agent.edit.empty", lang)
        return "NEED_MORE_INFO", t("agent.edit.not_in_trip", lang, target=target, listing=listing_or_empty)
    if out.outcome == "DAY_OUT_OF_RANGE":
        return "NEED_MORE_INFO", t("agent.edit.day_out_of_range", lang)
    if out.outcome == "ALREADY_PRESENT":
        return "OK", t("agent.edit.already_present", lang, m=out.matched)
    if out.outcome == "NOTHING_TO_DO":
        return "NEED_MORE_INFO", t("agent.edit.nothing_to_do", lang)
    m = out.matched
    if edit.op == "add":
        on_day = t("agent.edit.on_day", lang, day=edit.day) if edit.day else ""
        text = t("agent.edit.done.add", lang, m=m, d=on_day)
    elif edit.op == "move":
        text = t("agent.edit.done.move", lang, m=m, day=edit.day)
    elif edit.op == "prioritize":
        text = t("agent.edit.done.prioritize", lang, m=m, p=t(_PRIORITY[edit.priority or "must"], lang))
    elif edit.op == "swap_days":
        text = t("agent.edit.done.swap_days", lang, a=edit.day_a, b=edit.day_b)
    elif edit.op == "rename":
        text = t("agent.edit.done.rename", lang, m=m)
    else:
        text = t("agent.edit.done.delete", lang, m=m)
    if edit.op == "add" and not out.resolved_place_id:
        text += t("agent.edit.not_in_kb", lang)
    return "OK", text + t("agent.edit.draft_now", lang, listing=listing)


#: the edit's verb as done to a place ("cannot be deleted" / "无法删除")
_OP_DONE = {
    "delete": "agent.edit.op.delete",
    "add": "agent.edit.op.add",
    "move": "agent.edit.op.move",
    "prioritize": "agent.edit.op.prioritize",
    "rename": "agent.edit.op.rename",
    "swap_days": "agent.edit.op.swap_days",
}
_PRIORITY = {"must": "agent.edit.priority.must", "nice": "agent.edit.priority.nice",
             "should": "agent.edit.priority.should"}  # fmt: skip


def _weather(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    lang = state_lang(state)
    pack = ctx.provider.region
    day = resolve_day(state.user_input, now=ctx.now)  # a date that does not exist is asked about
    out = registry.call(
        ActionName.WEATHER_LOOKUP,
        {"date": day.isoformat(), "city": pack.city, "adcode": pack.adcode},
        state=state,
        ctx=ctx,
    )
    sun = sun_times(day, lon=pack.center[0], lat=pack.center[1], tz=pack.timezone)
    sun_ev = None
    if sun:
        sun_ev = {
            "type": "sun_times",
            "date": day.isoformat(),
            "city": pack.city,
            "sunrise": sun[0].strftime("%H:%M"),
            "sunset": sun[1].strftime("%H:%M"),
            "source": "astronomical_calculation",
        }
    log_decision(
        state,
        action=ActionName.WEATHER_LOOKUP,
        reason_code="WEATHER_AVAILABLE" if out.available else out.reason,
        policy_id=POLICY,
        facts={"date": day.isoformat(), "available": out.available},
    )
    if out.available:
        state.result.evidence.append(
            {"type": "weather", "date": day.isoformat(), "source": out.source, **(out.forecast or {})}
        )
        _set(state, "OK", t("agent.weather.forecast", lang, city=_city(pack, lang), day=day.isoformat(), source=out.source,
                             forecast=_forecast_text(out.forecast, lang)))  # fmt: skip
    elif out.reason in {"NO_FORECAST_FOR_DATE", "WEATHER_SERVICE_FAILED"}:
        state.result.evidence.append(
            {"type": "weather", "date": day.isoformat(), "available": False, "reason": out.reason, "detail": out.detail}
        )
        if out.reason == "NO_FORECAST_FOR_DATE":
            text = t("agent.weather.no_forecast_for_date", lang, day=day.isoformat())
        else:
            cause = agent_words.provider_failure_clause(dict(out.failure), lang) or t("agent.error.map_service", lang)
            text = t("agent.weather.service_failed", lang, day=day.isoformat(), detail=cause)
        if sun_ev:
            state.result.evidence.append(sun_ev)
        state.result.next_steps.append(
            NextStep(code="weather_later", args={"reason": out.reason, "date": day.isoformat()})
        )
        _set(state, "OK", text)
    else:
        state.result.evidence.append(
            {"type": "weather", "date": day.isoformat(), "available": False, "reason": out.reason}
        )
        text = t("agent.weather.no_source", lang, city=_city(pack, lang), day=day.isoformat())
        if sun_ev:
            state.result.evidence.append(sun_ev)
            text += t("agent.weather.sun_times", lang, sunrise=sun_ev["sunrise"], sunset=sun_ev["sunset"])
        state.result.next_steps.append(NextStep(code="configure_weather"))
        _set(state, "OK", text)


def _forecast_text(forecast: dict[str, Any] | None, lang: Lang) -> str:
    """A provider forecast in words, using only the published fields (nothing is derived or rounded)."""
    f = forecast or {}
    if "day_weather" not in f and "night_weather" not in f:
        return "; ".join(f"{k}: {v}" for k, v in f.items() if k != "source")

    def temp(v: float | None) -> str:
        return "" if v is None else f" {v:g}°C"

    day = f"{f.get('day_weather') or '—'}{temp(f.get('day_temp_c'))}"
    night = f"{f.get('night_weather') or '—'}{temp(f.get('night_temp_c'))}"
    wind = " ".join(x for x in (f.get("day_wind"), f.get("day_power")) if x)
    issued = f.get("report_time")
    text = t("agent.weather.day_night", lang, day=day, night=night)
    text += t("agent.weather.wind", lang, wind=wind) if wind else ""
    return text + (t("agent.weather.issued", lang, issued=issued) if issued else "")


def _travel_time(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    lang = state_lang(state)
    f = decision.features
    if not f.from_to:
        _set(state, "NEED_MORE_INFO", t("agent.travel.need_endpoints", lang))
        log_decision(state, action=ActionName.TRANSPORT_TRAVEL_TIME, reason_code="MISSING_ENDPOINTS", policy_id=POLICY)
        return
    a, b = (clean_target(x) or x for x in f.from_to)
    mode = "walking" if f.walking else "driving"
    out = registry.call(
        ActionName.TRANSPORT_TRAVEL_TIME, {"origin": a, "destination": b, "mode": mode}, state=state, ctx=ctx
    )
    log_decision(
        state,
        action=ActionName.TRANSPORT_TRAVEL_TIME,
        reason_code="TRAVEL_TIME_FOUND" if out.resolved else "UNRESOLVED_PLACE",
        policy_id=POLICY,
        facts={"mode": mode, "unresolved": out.unresolved, "duration_s": out.duration_s},
    )
    if not out.resolved:
        names = join_words(out.unresolved, lang)
        _set(state, "NEED_MORE_INFO", t("agent.travel.unresolved", lang, names=names))
        return
    pack = ctx.provider.region
    a_name, b_name = _name_in(pack, out.origin, lang), _name_in(pack, out.destination, lang)  # in the reader's words
    if out.duration_s is None:  # the router answered that no road joins them
        _set(state, "OK", t("agent.travel.no_route", lang, a=a_name, b=b_name))
        return
    minutes = round((out.duration_s or 0) / 60)
    km = (out.distance_m or 0) / 1000
    src = out.source or ""
    state.result.evidence.append(
        {
            "type": "travel_time",
            "from": out.origin["name"],
            "to": out.destination["name"],
            "mode": mode,
            "distance_m": out.distance_m,
            "duration_s": out.duration_s,
            "source": src,
            "note": out.note,
        }
    )
    label = source_words(src, lang)  # where the figure came from, in words ("Valhalla streets", not "valhalla")
    if out.degraded:  # the configured service failed: say so, the figure is a fallback
        state.observability.fallback_used = True
        label += t("agent.travel.online_unavailable", lang)
    mode_txt = t("agent.travel.mode.walking" if mode == "walking" else "agent.travel.mode.driving", lang)
    sentence = t("agent.travel.found", lang, a=a_name, b=b_name, mode=mode_txt,
                 minutes=minutes, km=f"{km:.1f}", source=label)  # fmt: skip
    _set(state, "OK", sentence, _estimate_words(ctx, mode, lang) if out.note else "")


def _estimate_words(ctx: AgentContext, mode: str, lang: Lang) -> str:
    """How an offline estimate was made, in the reply's language (the provider's own note is English; it stays in
    the evidence)."""
    from core.geo.offline import estimate_params

    p = estimate_params(ctx.provider.region, "walking" if mode == "walking" else "driving")
    return t("agent.travel.estimate_note", lang, circuity=f"{p.circuity:g}", speed=f"{p.speed_kmh:g}")


_FIELD_Q = [
    (re.compile(r"几点|开门|关门|营业|开放|opening|hours|open|clos(e|es|ing)", re.I), "opening_hours"),
    (re.compile(r"门票|多少钱|价格|人均|票价|price|cost|how much|ticket", re.I), "price_per_person"),
    (re.compile(r"地址|在哪|where|address", re.I), "address"),
    (re.compile(r"预约|reservation|reserve", re.I), "needs_reservation"),
]


def describe_poi(p: dict[str, Any], *, lang: Lang, focus: str | None = None) -> str:
    name = p.get("name") or p.get("title")
    if "fact_id" in p:
        return t("agent.kb.fact", lang, name=name, text=p.get("text"))
    bits = []
    hours = p.get("opening_hours")
    price = p.get("price_per_person")
    if focus in (None, "opening_hours"):
        words = hours_sentence(hours, lang) if hours else ""  # the itinerary page's wording of the same hours
        bits.append(t("agent.kb.hours", lang, hours=words) if words else t("agent.kb.hours_unknown", lang))
    if focus in (None, "price_per_person"):
        if price is not None:
            bits.append(t("agent.kb.price", lang, price=f"{price:g}") if price else t("agent.kb.free", lang))
        else:
            bits.append(t("agent.kb.price_unknown", lang))
    if focus in (None, "address"):
        bits.append(t("agent.kb.address", lang, address=p.get("address")))
    if focus == "needs_reservation":
        bits.append(t("agent.kb.needs_reservation" if p.get("needs_reservation") else "agent.kb.no_reservation_noted",
                      lang))  # fmt: skip
    if focus is None and p.get("rating"):
        bits.append(t("agent.kb.rating", lang, rating=p["rating"]))
    return t("agent.kb.place", lang, name=name, facts=join_words(bits, lang, sep="facts"))


def _rag(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    lang = state_lang(state)
    pack = ctx.provider.region
    near = nearby_answer(state, ctx, lang, anchors=_asked_places(state.user_input, ctx),
                         describe=lambda h: describe_poi(h, lang=lang),
                         name_of=lambda pid: _name_in(pack, {"place_id": pid}, lang))  # fmt: skip
    if near is not None:  # "外滩附近有素食餐厅吗": the places of that kind near it, never the landmark
        return _set(state, "OK", *near)
    out = registry.call(ActionName.PLACES_SEARCH_KNOWLEDGE, {"query": state.user_input, "k": 5}, state=state, ctx=ctx)
    log_decision(
        state,
        action=ActionName.PLACES_SEARCH_KNOWLEDGE,
        reason_code="KB_COVERED" if out.covered else "KB_NO_FACTS",
        policy_id=POLICY,
        facts={"hits": len(out.hits), "terms": out.terms[:10], "missing_terms": out.missing_terms[:10]},
    )
    focus = next((name for rx, name in _FIELD_Q if rx.search(state.user_input)), None)
    named = _asked_places(state.user_input, ctx)
    related: list[str] = []
    if named:  # "What time does Yu Garden open?": the facts of the place asked, and of no other
        kept = [h for h in out.hits if h.get("place_id") in named]
        related = [str(h["place_id"]) for h in out.hits if h.get("place_id") and h.get("place_id") not in named]
        if not kept:  # the question words outweighed the name: the pack's facts of the named place
            from core.agent.rag import place_document

            pack = ctx.provider.region
            docs = [place_document(p, pack.name) for pid in named if (p := pack.place_by_id(pid)) is not None]
            kept = [{**d.facts, "doc_id": d.doc_id, "source": d.source, "score": 1.0} for d in docs]
        out.hits = kept
        out.covered = bool(out.hits)
        log_decision(state, action=ActionName.PLACES_SEARCH_KNOWLEDGE, reason_code="KB_NAMED_PLACE", policy_id=POLICY,
                     facts={"places": named, "focus": focus})  # fmt: skip
    if not out.covered:
        subject = _subject(state.user_input)
        region = ctx.provider.region
        region_name = region.display_name.get(lang, region.city)
        _set(state, "OK", t("agent.kb.not_covered", lang, region=region_name, subject=subject))
        state.result.next_steps.append(NextStep(code="ask_otherwise"))
        return
    lines = []
    pack = ctx.provider.region
    out.hits = [
        {**h, "name": _name_in(pack, h, lang)} for h in out.hits
    ]  # the reader's language, where the pack has it
    for h in out.hits:
        state.result.candidates.append(h)
        state.result.evidence.append(
            {
                "type": "kb_fact",
                "doc_id": h["doc_id"],
                "name": h.get("name") or h.get("title"),
                "source": h["source"],
                "score": h["score"],
                "fields": [
                    k
                    for k in ("opening_hours", "price_per_person", "address", "rating", "tags")
                    if h.get(k) is not None
                ],
            }
        )
        lines.append(describe_poi(h, lang=lang, focus=focus))
    head = t("agent.kb.head", lang)
    if decision.features.realtime:
        lines.append(t("agent.kb.not_live", lang))
    texts = [head + join_words(lines, lang, sep="clauses")]
    if related:  # the other places the search found: offered, not answered
        names = [_name_in(pack, {"place_id": pid}, lang) for pid in related[:RELATED_OFFERED]]
        texts.append(t("agent.kb.related", lang, names=join_words([n for n in names if n], lang)))
        state.result.next_steps.append(
            NextStep(code="ask_related", args={"place_ids": ",".join(related[:RELATED_OFFERED])})
        )
    _set(state, "OK", *texts)


#: how many related places a fact answer offers as a follow-up
RELATED_OFFERED = 3


def _pack_name_in(pack: RegionPack, name: str, lang: Lang) -> str:
    """A trip stop's name (the pack's Chinese name, as the trip keeps it) in ``lang``: the pack's English name in
    English where it has one; a stop that is no pack place keeps the name it was given."""
    if lang != "en":
        return name
    place = next((p for p in pack.places if name in (p.name_zh, p.name_en)), None)
    return place.name_en if place is not None and place.name_en else name


def _name_in(pack: RegionPack, hit: dict[str, Any], lang: Lang) -> str:
    """A hit's place name in ``lang``: the pack's English name in English, its Chinese name in Chinese (a fact of the
    knowledge base that is no pack place keeps its own title)."""
    place_id = hit.get("place_id")
    place = pack.place_by_id(str(place_id)) if place_id else None
    if place is None:
        return str(hit.get("name") or hit.get("title") or "")
    return place.name_en if lang == "en" and place.name_en else place.name_zh


def _asked_places(text: str, ctx: AgentContext) -> list[str]:
    """The places a fact question names by the pack's names and aliases (the longest name wins: 豫园商城, not 豫园)."""
    from core.agent.booking import named_venues

    bookable, other = named_venues(text, ctx.provider.region)
    return [v.id for v in (*bookable, *other)][:3]


_EN_QUESTION = (
    r"\b(what time|when|how much|how many|is|are|does|do|did|what|where|which|who|can i|could you|the|a|an|open|opens"
    r"|opening|close|closes|closing|hours|ticket|tickets|price|cost|costs|on|at|for|today|tomorrow|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday|recommend|suggest|please|some|any|good|best|me|tell|about|of|it)\b"
)


def _subject(text: str) -> str:
    from core.agent.rag import _STOP_RX  # the same asking words the retriever ignores

    s = _STOP_RX.sub("", text)
    s = re.sub(_EN_QUESTION, "", s, flags=re.I)  # the question words, not the subject
    s = re.sub(
        r"几点|开门|关门|营业|开放|门票|多少钱|票价|价格|是不是|有没有|周[一二三四五六日天]|星期[一二三四五六日天]",
        "",
        s,
    )
    s = re.sub(r"\s+", " ", s).strip(" ?？。.!！,，")
    return s or text.strip()
