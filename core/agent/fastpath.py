"""System 1, the fast path: trip CRUD (SYSTEM1_API), weather honesty, travel time, and RAG.

Every handler goes through the Action Registry and returns a ``StateResult`` on the state.
Nothing here is invented: unknown places are named as unknown, missing weather is said to be
missing, and the knowledge base's silence is reported as silence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from core.agent.actions.registry import ActionRegistry
from core.agent.features import cn_number, normalize_message, strip_negated
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.when import resolve_day, sun_times
from core.errors import InputError
from core.models.agent import AgentState, TripEdit
from core.models.common import echo

POLICY = "SYSTEM1_DIRECT"
_CJK = re.compile(r"[\u4e00-\u9fff]")
_DAYNUM = r"([0-9]+|[一二两三四五六七八九十]+)"


def zh_text(text: str) -> bool:
    return bool(_CJK.search(text))


# --- trip edits from text --------------------------------------------------------------------------
_FILLER = re.compile(r"^(请|帮我|麻烦|把|将|给我|please\s+)+|(吧|了|一下|好吗|谢谢|please)$", re.I)


def _clean_target(t: str | None) -> str | None:
    if not t:
        return None
    t = re.sub(r"(从|在)?(我的)?(行程|计划|清单|草稿)(里|中|上)?(的)?", "", t)
    t = re.sub(r"\b(from|in|on|of) (my |the )?(trip|itinerary|plan|list)\b", "", t, flags=re.I)
    t = re.sub(r"^(the|my)\s+", "", t.strip(), flags=re.I)
    punct = " ，,。.!！?？\"'“”「」、；;"
    t = _FILLER.sub("", t.strip().strip(punct)).strip(punct)
    return t or None


def _day(s: str | None) -> int | None:
    return cn_number(s) if s else None


def _edit(**fields: Any) -> TripEdit:
    """A TripEdit from the words of a message; a value the contract refuses (day 31, a 500-character name) is
    bad input the user can fix, said in a sentence, never a validation traceback."""
    try:
        return TripEdit(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first.get("loc", ("edit",))[0])
        value = fields.get(name)
        if name in ("day", "day_a", "day_b"):
            raise InputError(f"day {value} is outside the days a trip can have (1 to 30)", field=name) from None
        if name in ("target", "new_name"):
            raise InputError(
                f"the place name '{echo(value)}' is too long (at most 120 characters)", field=name
            ) from None
        raise InputError(f"the edit could not be understood ({first.get('msg')})", field=name) from None


def parse_trip_edit(message: str) -> TripEdit | None:
    """The one explicit edit a message asks for, or None when it is not clear enough."""
    t = normalize_message(message)
    # swap days
    for rx in (
        rf"第{_DAYNUM}天\s*(和|与|跟)\s*第{_DAYNUM}天\s*(对调|互换|交换|调换)",
        rf"(对调|互换|交换|调换)\s*第{_DAYNUM}天\s*(和|与|跟)\s*第{_DAYNUM}天",
    ):
        m = re.search(rx, t)
        if m:
            nums = [g for g in m.groups() if g and re.fullmatch(_DAYNUM, g)]
            return _edit(op="swap_days", day_a=_day(nums[0]), day_b=_day(nums[1]))
    m = re.search(r"\b(swap|switch)\s+day\s*(\d+)\s+(and|with)\s+day\s*(\d+)", t, re.I)
    if m:
        return _edit(op="swap_days", day_a=int(m.group(2)), day_b=int(m.group(4)))
    # rename the trip
    m = re.search(r"(行程|计划)?(重命名|改名|名字改)(为|成|叫)?\s*[「“\"']?(?P<n>[^」”\"']+)", t)
    if m and m.group("n").strip():
        return _edit(op="rename", new_name=m.group("n").strip(" 。."))
    m = re.search(r"\brename\s+(the\s+|my\s+)?(trip|itinerary|plan)\s+(to|as)\s+(?P<n>.+)$", t, re.I)
    if m:
        return _edit(op="rename", new_name=m.group("n").strip(" .\"'"))
    # move to day N
    m = re.search(rf"把?(?P<t>.+?)(移|挪|换|调|放|改|安排)到第{_DAYNUM}天", t)
    if m:
        return _edit(op="move", target=_clean_target(m.group("t")), day=_day(m.group(3)))
    m = re.search(r"\b(move|reschedule|shift)\s+(?P<t>.+?)\s+to\s+day\s*(?P<d>\d+)", t, re.I)
    if m:
        return _edit(op="move", target=_clean_target(m.group("t")), day=int(m.group("d")))
    # priority
    m = re.search(r"把?(?P<t>.+?)(设为|改成|设成|列为|标为|作为)(?P<p>必去|可选|优先|普通)", t)
    if m:
        p = {"必去": "must", "优先": "must", "可选": "nice", "普通": "should"}[m.group("p")]
        return _edit(op="prioritize", target=_clean_target(m.group("t")), priority=p)
    m = re.search(r"\bmake\s+(?P<t>.+?)\s+(a\s+)?(?P<p>must[- ]visit|must|optional)\b", t, re.I)
    if m:
        return _edit(
            op="prioritize",
            target=_clean_target(m.group("t")),
            priority="nice" if m.group("p").lower() == "optional" else "must",
        )
    m = re.search(r"\bprioriti[sz]e\s+(?P<t>.+)$", t, re.I)
    if m:
        return _edit(op="prioritize", target=_clean_target(m.group("t")), priority="must")
    m = re.search(r"(?P<t>.+?)(是|为)?必去", t)
    if m and _clean_target(m.group("t")):
        return _edit(op="prioritize", target=_clean_target(m.group("t")), priority="must")
    # add
    m = re.search(rf"(加上|添加|加入|增加|加个|加一个|再加|也去)(?P<t>.+?)(到第{_DAYNUM}天|到行程|$)", t)
    if m:
        d = re.search(rf"第{_DAYNUM}天", m.group(0))
        return _edit(op="add", target=_clean_target(m.group("t")), day=_day(d.group(1)) if d else None)
    m = re.search(rf"把(?P<t>.+?)(加到|加入|添加到|放进)(第{_DAYNUM}天|行程)", t)
    if m:
        d = re.search(rf"第{_DAYNUM}天", m.group(0))
        return _edit(op="add", target=_clean_target(m.group("t")), day=_day(d.group(1)) if d else None)
    m = re.search(
        r"\b(add|include)\s+(?P<t>.+?)(\s+to\s+(day\s*(?P<d>\d+)|(my|the)\s+(trip|itinerary|plan)))?\s*$", t, re.I
    )
    if m:
        return _edit(op="add", target=_clean_target(m.group("t")), day=int(m.group("d")) if m.group("d") else None)
    # delete
    m = re.search(r"把?(?P<t>.+?)(删除|删掉|删了|去掉|移除|拿掉|取消)", t)
    if m and _clean_target(m.group("t")):
        return _edit(op="delete", target=_clean_target(m.group("t")))
    m = re.search(r"(删除|删掉|去掉|移除|拿掉|取消)(?P<t>.+)$", t)
    if m:
        return _edit(op="delete", target=_clean_target(m.group("t")))
    m = re.search(r"(?P<t>.+?)不去了?", t)
    if m and _clean_target(m.group("t")):
        return _edit(op="delete", target=_clean_target(m.group("t")))
    m = re.search(r"\b(delete|remove|drop|skip|take out)\s+(?P<t>.+?)\s*$", t, re.I)
    if m:
        return _edit(op="delete", target=_clean_target(m.group("t")))
    return None


# --- handlers ----------------------------------------------------------------------------------------
def handle(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    {"trip_edit": _trip_edit, "weather": _weather, "travel_time": _travel_time, "rag": _rag}[decision.intent](
        decision, state, ctx, registry
    )


def _set(state: AgentState, status: str, *texts: str) -> None:
    state.result.status = status  # type: ignore[assignment]
    state.result.explanations = [t for t in texts if t]


_LIST_SEP = re.compile(r"\s*(?:、|，|,|；|;|/|\band\b|&|以及)\s*", re.I)
_AND_ZH = re.compile(r"(?<=\S)(?:和|与|及|跟)(?=\S)")


def split_targets(target: str, known: Callable[[str], bool]) -> list[str]:
    """Several places in one edit ("外滩、豫园和新天地", "the Bund and Yu Garden") as a list, but only when every part
    is a place we know and the whole is not one (和平饭店 stays one place)."""
    if known(target):
        return [target]
    parts: list[str] = []
    for chunk in (c for c in _LIST_SEP.split(target) if c and c.strip()):
        pieces = [x for x in _AND_ZH.split(chunk) if x]
        parts += [chunk] if known(chunk) or len(pieces) == 1 else pieces
    parts = [p.strip() for p in parts if p.strip()]
    return parts if len(parts) > 1 and all(known(p) for p in parts) else [target]


def _trip_edit(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    zh = zh_text(state.user_input)
    edit = parse_trip_edit(strip_negated(normalize_message(state.user_input)))  # "不要删除A，把B移到第二天": only B
    if edit is None or (edit.op in ("add", "delete", "move", "prioritize") and not edit.target):
        _set(
            state,
            "NEED_MORE_INFO",
            "请说明要修改哪个地点，例如「删除外滩」或「把豫园移到第二天」。"
            if zh
            else "Which place should I change? e.g. “remove the Bund” or “move Yu Garden to day 2”.",
        )
        log_decision(state, action="trip.apply_user_edit", reason_code="EDIT_NOT_PARSED", policy_id=POLICY)
        return
    targets = [edit.target]
    if edit.op in ("add", "delete", "move", "prioritize") and edit.target:
        targets = split_targets(edit.target, lambda name: _known_place(name, state, ctx))
    sentences: list[tuple[str, str]] = []
    for target in targets:
        one = edit.model_copy(update={"target": target})
        sentences.append(_apply_one_edit(one, state, ctx, registry, zh))
    status = "OK" if all(s == "OK" for s, _ in sentences) else "NEED_MORE_INFO"
    _set(state, status, " ".join(text for _, text in sentences))
    if ctx.request.options.dry_run:
        state.result.explanations.insert(
            0, "（dry_run 预演：未保存任何修改。）" if zh else "(dry_run preview: nothing was saved.)"
        )
        state.result.next_steps.append("resend:dry_run=false")


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
    edit: TripEdit, state: AgentState, ctx: AgentContext, registry: ActionRegistry, zh: bool
) -> tuple[str, str]:
    """Apply one edit through the registry; the status and the sentence that says what happened."""
    region = ctx.provider.region.name
    preview = ctx.request.options.dry_run  # dry_run: show the edit's outcome, write nothing
    out = registry.call(
        "trip.apply_user_edit",
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
        action="trip.apply_user_edit",
        reason_code=f"EDIT_{out.outcome}",
        policy_id=POLICY,
        facts={"op": edit.op, "target": edit.target, "day": edit.day, "nodes": len(out.current_nodes)},
    )
    state.memory.user_profile["trip"] = out.trip
    listing = "、".join(out.current_nodes) if zh else ", ".join(out.current_nodes)
    target = edit.target or ""
    if out.outcome == "NO_TRIP":
        return "NEED_MORE_INFO", (
            f"还没有可修改的行程草稿，所以无法{_op_zh(edit.op)}「{target}」。先添加地点或规划一个行程吧。"
            if zh
            else f"There is no trip draft to edit, so “{target}” cannot be {edit.op}d. Add a place or plan a trip first."
        )
    if out.outcome == "TARGET_NOT_IN_TRIP":
        return "NEED_MORE_INFO", (
            f"行程草稿里没有「{target}」，未做修改。当前草稿：{listing or '（空）'}。"
            if zh
            else f"“{target}” is not in the trip draft; nothing changed. The draft has: {listing or '(nothing)'}."
        )
    if out.outcome == "DAY_OUT_OF_RANGE":
        return "NEED_MORE_INFO", (
            "行程没有这一天，请检查天数。" if zh else "The trip has no such day; check the day numbers."
        )
    if out.outcome == "ALREADY_PRESENT":
        return "OK", (f"「{out.matched}」已经在行程里了。" if zh else f"“{out.matched}” is already in the trip.")
    if out.outcome == "NOTHING_TO_DO":
        return "NEED_MORE_INFO", ("没有需要修改的内容。" if zh else "There is nothing to change.")
    done = {
        "delete": ("已从行程删除「{m}」。", "Removed “{m}” from the trip."),
        "add": ("已把「{m}」加入行程{d}。", "Added “{m}” to the trip{d}."),
        "move": ("已把「{m}」移到第{day}天。", "Moved “{m}” to day {day}."),
        "prioritize": ("已把「{m}」设为{p}。", "Set “{m}” to {p}."),
        "rename": ("行程已重命名为「{m}」。", "Renamed the trip to “{m}”."),
        "swap_days": ("已对调第{a}天和第{b}天。", "Swapped day {a} and day {b}."),
    }[edit.op][0 if zh else 1]
    pri = (
        {"must": "必去", "nice": "可选", "should": "普通"}
        if zh
        else {"must": "must-visit", "nice": "optional", "should": "normal"}
    )
    text = done.format(
        m=out.matched,
        day=edit.day,
        a=edit.day_a,
        b=edit.day_b,
        p=pri.get(edit.priority or "must"),
        d=(f"（第{edit.day}天）" if zh else f" (day {edit.day})") if edit.day else "",
    )
    if edit.op == "add" and not out.resolved_place_id:
        text += (
            "注意：知识库里没有这个地点，它没有坐标，规划时无法使用，请提供地址。"
            if zh
            else " Note: this place is not in the knowledge base; it has no coordinates and cannot be planned until "
            "you give an address."
        )
    return "OK", text + (f" 当前草稿：{listing}。" if zh else f" The draft now has: {listing}.")


def _op_zh(op: str) -> str:
    return {
        "delete": "删除",
        "add": "添加",
        "move": "移动",
        "prioritize": "调整优先级",
        "rename": "重命名",
        "swap_days": "对调",
    }.get(op, "修改")


def _weather(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    zh = zh_text(state.user_input)
    pack = ctx.provider.region
    tz = ctx.request.conversation_context.timezone or pack.timezone
    day = resolve_day(state.user_input, tz=tz, now=ctx.now)  # a date that does not exist is asked about
    out = registry.call(
        "weather.lookup",
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
        action="weather.lookup",
        reason_code="WEATHER_AVAILABLE" if out.available else out.reason,
        policy_id=POLICY,
        facts={"date": day.isoformat(), "available": out.available},
    )
    if out.available:
        state.result.evidence.append(
            {"type": "weather", "date": day.isoformat(), "source": out.source, **(out.forecast or {})}
        )
        _set(
            state,
            "OK",
            f"{pack.city} {day.isoformat()} 天气（来源：{out.source}）：{_forecast_text(out.forecast, zh)}"
            if zh
            else f"Weather in {pack.city} on {day.isoformat()} (source: {out.source}): "
            f"{_forecast_text(out.forecast, zh)}",
        )
    elif out.reason in {"NO_FORECAST_FOR_DATE", "WEATHER_SERVICE_FAILED"}:
        state.result.evidence.append(
            {"type": "weather", "date": day.isoformat(), "available": False, "reason": out.reason, "detail": out.detail}
        )
        if out.reason == "NO_FORECAST_FOR_DATE":
            text = (
                f"天气服务只发布今天起 4 天的预报，其中没有 {day.isoformat()}，所以不给出预报，也不会编造。"
                if zh
                else f"The weather service publishes forecasts for today and the next three days only; "
                f"{day.isoformat()} is not among them, so there is no forecast, and I will not make one up."
            )
        else:
            text = (
                f"天气服务暂时不可用（{out.detail}），所以无法提供 {day.isoformat()} 的天气，也不会编造。"
                if zh
                else f"The weather service failed ({out.detail}), so there is no forecast for {day.isoformat()}, "
                f"and I will not make one up."
            )
        if sun_ev:
            state.result.evidence.append(sun_ev)
        state.result.next_steps.append(
            "稍后再试，或问 4 天内的日期。" if zh else "Try again later, or ask about a date within the next four days."
        )
        _set(state, "OK", text)
    else:
        state.result.evidence.append(
            {"type": "weather", "date": day.isoformat(), "available": False, "reason": out.reason}
        )
        text = (
            f"当前没有可用的实时天气数据源（离线模式），所以无法提供{pack.city} {day.isoformat()} 的天气预报，也不会编造。"
            if zh
            else f"No live weather source is available (offline mode), so I cannot give a forecast for "
            f"{pack.city} on {day.isoformat()}, and I will not make one up."
        )
        if sun_ev:
            state.result.evidence.append(sun_ev)
            text += (
                f" 可确定的是天文数据：日出约 {sun_ev['sunrise']}，日落约 {sun_ev['sunset']}（计算值）。"
                if zh
                else f" What is certain is astronomy: sunrise about {sun_ev['sunrise']}, sunset about {sun_ev['sunset']} (calculated)."
            )
        state.result.next_steps.append(
            "配置带天气接口的在线服务商后再查询。"
            if zh
            else "Configure an online provider with weather to get a forecast."
        )
        _set(state, "OK", text)


def _forecast_text(forecast: dict | None, zh: bool) -> str:
    """A provider forecast in words, using only the published fields (nothing is derived or rounded)."""
    f = forecast or {}
    if "day_weather" not in f and "night_weather" not in f:
        return "; ".join(f"{k}: {v}" for k, v in f.items() if k != "source")

    def temp(v):
        return "" if v is None else f" {v:g}°C"

    day = f"{f.get('day_weather') or '—'}{temp(f.get('day_temp_c'))}"
    night = f"{f.get('night_weather') or '—'}{temp(f.get('night_temp_c'))}"
    wind = " ".join(x for x in (f.get("day_wind"), f.get("day_power")) if x)
    issued = f.get("report_time")
    if zh:
        text = f"白天{day}，夜间{night}" + (f"；白天风向风力 {wind}" if wind else "")
        return text + (f"（发布于 {issued}）" if issued else "")
    text = f"day {day}, night {night}" + (f"; daytime wind {wind}" if wind else "")
    return text + (f" (issued {issued})" if issued else "")


def _travel_time(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    zh = zh_text(state.user_input)
    f = decision.features
    if not f.from_to:
        _set(
            state,
            "NEED_MORE_INFO",
            "请告诉我起点和终点，例如「从外滩到豫园要多久」。"
            if zh
            else "Tell me the start and the end, e.g. “how long from the Bund to Yu Garden”.",
        )
        log_decision(state, action="transport.travel_time", reason_code="MISSING_ENDPOINTS", policy_id=POLICY)
        return
    a, b = (_clean_target(x) or x for x in f.from_to)
    mode = "walking" if f.walking else "driving"
    out = registry.call("transport.travel_time", {"origin": a, "destination": b, "mode": mode}, state=state, ctx=ctx)
    log_decision(
        state,
        action="transport.travel_time",
        reason_code="TRAVEL_TIME_FOUND" if out.resolved else "UNRESOLVED_PLACE",
        policy_id=POLICY,
        facts={"mode": mode, "unresolved": out.unresolved, "duration_s": out.duration_s},
    )
    if not out.resolved:
        names = "、".join(out.unresolved) if zh else ", ".join(out.unresolved)
        _set(
            state,
            "NEED_MORE_INFO",
            f"知识库里找不到「{names}」，无法估算路程。请提供更准确的名称或地址。"
            if zh
            else f"I could not find “{names}” in the knowledge base, so I cannot estimate the trip. Please give a more exact name or address.",
        )
        return
    if out.duration_s is None:  # the router answered that no road joins them
        _set(
            state,
            "OK",
            f"{out.origin['name']} → {out.destination['name']}：没有找到可行的路线。"
            if zh
            else f"{out.origin['name']} → {out.destination['name']}: no route was found.",
            out.note or "",
        )
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
    label = ("离线估算" if zh else "offline estimate") if src == "offline_estimate" else src
    if out.degraded:  # the configured service failed: say so, the figure is a fallback
        state.observability.fallback_used = True
        label += "；在线路线服务暂不可用" if zh else "; the online routing service is unavailable"
    mode_txt = ("步行" if mode == "walking" else "驾车") if zh else mode
    _set(
        state,
        "OK",
        f"{out.origin['name']} → {out.destination['name']}：{mode_txt}约 {minutes} 分钟，约 {km:.1f} 公里（{label}）。"
        if zh
        else f"{out.origin['name']} → {out.destination['name']}: about {minutes} min {mode_txt}, about {km:.1f} km ({label}).",
        out.note or "",
    )


_FIELD_Q = [
    (re.compile(r"几点|开门|关门|营业|开放|opening|hours|open", re.I), "opening_hours"),
    (re.compile(r"门票|多少钱|价格|人均|票价|price|cost|how much|ticket", re.I), "price_per_person"),
    (re.compile(r"地址|在哪|where|address", re.I), "address"),
    (re.compile(r"预约|reservation|reserve", re.I), "needs_reservation"),
]


def describe_poi(p: dict, *, zh: bool, focus: str | None = None) -> str:
    name = p.get("name") or p.get("title")
    if "fact_id" in p:
        return f"{name}：{p.get('text')}" if zh else f"{name}: {p.get('text')}"
    bits = []
    hours = p.get("opening_hours")
    price = p.get("price_per_person")
    if focus in (None, "opening_hours"):
        bits.append(
            (f"开放时间 {hours}" if zh else f"hours {hours}")
            if hours
            else ("开放时间未收录" if zh else "hours not recorded")
        )
    if focus in (None, "price_per_person"):
        if price is not None:
            bits.append(
                (f"人均/门票约 ¥{price:g}" if zh else f"about ¥{price:g} per person")
                if price
                else ("免费" if zh else "free")
            )
        else:
            bits.append("价格未收录" if zh else "price not recorded")
    if focus in (None, "address"):
        bits.append(f"地址 {p.get('address')}" if zh else f"address {p.get('address')}")
    if focus == "needs_reservation":
        bits.append(
            ("需要预约" if p.get("needs_reservation") else "知识库未标注需要预约")
            if zh
            else ("needs a reservation" if p.get("needs_reservation") else "no reservation noted")
        )
    if focus is None and p.get("rating"):
        bits.append(f"评分 {p['rating']}" if zh else f"rating {p['rating']}")
    return f"{name}（{'，'.join(bits)}）" if zh else f"{name} ({'; '.join(bits)})"


def _rag(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    zh = zh_text(state.user_input)
    out = registry.call("places.search_knowledge", {"query": state.user_input, "k": 5}, state=state, ctx=ctx)
    log_decision(
        state,
        action="places.search_knowledge",
        reason_code="KB_COVERED" if out.covered else "KB_NO_FACTS",
        policy_id=POLICY,
        facts={"hits": len(out.hits), "terms": out.terms[:10], "missing_terms": out.missing_terms[:10]},
    )
    if not out.covered:
        subject = _subject(state.user_input)
        region = ctx.provider.region
        _set(
            state,
            "OK",
            f"知识库（{region.display_name.get('zh', region.city)}）里没有关于「{subject}」的资料，所以无法推荐，也不会编造。"
            if zh
            else f"The knowledge base ({region.display_name.get('en', region.city)}) has no facts about “{subject}”, so I "
            f"cannot recommend anything and will not make it up.",
        )
        state.result.next_steps.append(
            "换一个本地区的地点或类别再问，或授权网页浏览查询。"
            if zh
            else "Ask about a place or category in this region, or allow web browsing."
        )
        return
    focus = next((name for rx, name in _FIELD_Q if rx.search(state.user_input)), None)
    lines = []
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
        lines.append(describe_poi(h, zh=zh, focus=focus))
    head = "根据知识库：" if zh else "From the knowledge base: "
    if decision.features.realtime:
        lines.append("（以上为知识库记录，不是实时状态。）" if zh else "(These are recorded facts, not live status.)")
    _set(state, "OK", head + ("；".join(lines) if zh else "; ".join(lines)))


def _subject(text: str) -> str:
    from core.agent.rag import _STOP_RX  # the same asking words the retriever ignores

    s = _STOP_RX.sub("", text)
    s = re.sub(
        r"\b(recommend|suggest|please|what|where|is|are|the|a|an|some|any|good|best|me|for|tell|about)\b",
        "",
        s,
        flags=re.I,
    )
    s = re.sub(r"\s+", " ", s).strip(" ?？。.!！,，")
    return s or text.strip()
