"""The agent console's result in words (no Streamlit): the plan's timeline as a table a traveller reads, the next
steps the agent suggests (core.models.agent.NextStep: a code and facts, worded here), and its progress states. Place
names follow the language where the pack has them; codes (next-step codes, statuses, routes) are for the collapsed
details only."""

from __future__ import annotations

from typing import Any

from core.app.itinerary import fix_sentence
from core.i18n import Lang, t
from core.models.agent import ASSUMED_START, AgentResponse, NextStep, NextStepCode, Observability
from core.models.itinerary_result import SmallestFix
from core.models.region import RegionPack

#: the agent's progress states (core.models.agent.UiStatus) in words
STATUS_WORDS = {
    "thinking": "agent.console.status.thinking",
    "browsing": "agent.console.status.browsing",
    "verifying": "agent.console.status.verifying",
    "repairing": "agent.console.status.repairing",
    "awaiting_consent": "agent.console.status.awaiting_consent",
    "awaiting_confirmation": "agent.console.status.awaiting_confirmation",
    "done": "agent.console.status.done",
    "failed": "agent.console.status.failed",
}
#: what each confirmation button does, in words (never the action's name), by the action's (family, name)
CONFIRM_LABELS = {
    ("reservations", "confirm"): "agent.console.confirm.booking",
    ("reservations", "cancel"): "agent.console.confirm.cancellation",
    ("trip", "persist_plan"): "agent.console.confirm.save_trip",
    ("trip", "apply_user_edit"): "agent.console.confirm.trip_change",
    ("trip", "record_commitment"): "agent.console.confirm.commitment",
}
CONFIRM_DEFAULT = "agent.console.confirm.default"
#: the next steps the agent returns (core.models.agent.NextStepCode) in words; "apply_fix" is said with the
#: itinerary's own fix sentence (core.words.itinerary.fix_sentence)
NEXT_STEP_WORDS: dict[NextStepCode, str] = {
    "allow_webbrowse": "agent.console.next.allow_webbrowse",
    "downgrade": "agent.console.next.knowledge_base",
    "raise": "agent.console.next.more_browser_steps",
    "resend": "agent.console.next.resend",
    "missing": "agent.console.next.missing",
    "takeover": "agent.console.next.takeover",
    "relax_must": "agent.plan.infeasible_fix",
    "retry_more_time": "agent.timeout.more_time",
    "plan_less": "agent.timeout.fewer",
    "ask_one_by_one": "agent.timeout.one_by_one",
    "name_branch_place": "agent.conditional.next",
    "weather_later": "agent.weather.try_later",
    "configure_weather": "agent.weather.configure",
    "ask_otherwise": "agent.kb.ask_otherwise",
}
#: next steps with no sentence: the console's confirmation button is the step, the critic's codes are for the details
#: (the answer says its findings), the related places are offered in the answer itself
NEXT_STEP_UNWORDED: frozenset[NextStepCode] = frozenset({"confirm", "critic", "ask_related"})
#: what the chat page offers to ask before the first message (each is sent as it reads, in the page's language)
STARTER_PROMPTS = (
    "agent.console.starter.plan",
    "agent.console.starter.hours",
    "agent.console.starter.travel",
    "agent.console.starter.weather",
)
TABLE_HEADERS = {
    "day": "agent.console.table.day",
    "time": "agent.console.table.time",
    "what": "agent.console.table.what",
    "note": "agent.console.table.note",
}


def confirm_label(action: str) -> str:
    """The key of the words of the button that confirms ``action`` (``reservations.confirm`` → Confirm booking)."""
    family, _, name = action.partition(".")
    return CONFIRM_LABELS.get((family, name), CONFIRM_DEFAULT)


def other_hours(resp: AgentResponse) -> bool:
    """The plan shown runs on other hours than the message asked (they could not be a day, or are over): the page
    says so above it."""
    return (
        resp.result.status == "NEED_MORE_INFO"
        and any(e.get("type") == "day_window" and e.get("problem") for e in resp.result.payload.evidence)
        and bool(resp.result.payload.timeline)
    )


def status_words(status: str, lang: Lang) -> str:
    key = STATUS_WORDS.get(status)
    return t(key, lang) if key else t("agent.console.status.working", lang)


def next_step_words(step: NextStep, lang: Lang, pack: RegionPack | None = None) -> str:
    """One next step as a sentence in ``lang`` ("" for a step the console shows otherwise: the confirmation button,
    the critic's codes in the details). ``pack`` names the stop a fix would drop in ``lang``."""
    if step.code == "apply_fix":
        return _fix_words(step.args, lang, pack)
    key = NEXT_STEP_WORDS.get(step.code)
    return t(key, lang) if key else ""


def next_steps_words(steps: list[NextStep], lang: Lang, pack: RegionPack | None = None) -> list[str]:
    """The agent's suggested next steps as sentences a person can read, each sentence once; steps without words
    (an id to confirm, the critic's codes) are left to the button and the details."""
    shown: list[str] = []
    for step in steps:
        words = next_step_words(step, lang, pack)
        if words and words not in shown:
            shown.append(words)
    return shown


def _fix_words(args: dict[str, str | int | float], lang: Lang, pack: RegionPack | None) -> str:
    """An ``apply_fix`` step in the itinerary's own words (the page and the agent say a fix the same way)."""
    kind = args.get("kind")
    if kind not in ("extend_day_end", "start_day_earlier", "drop_stop", "shorten_visit"):
        return t("agent.plan.infeasible_fix", lang)
    day, minutes, drop = args.get("day"), args.get("minutes"), args.get("drop_key")
    fix = SmallestFix(
        kind=kind,
        day_index=int(day) - 1 if isinstance(day, int | float) else None,
        minutes=int(minutes) if isinstance(minutes, int | float) else None,
        drop_key=str(drop) if drop else None,
        description="",
        facts={k: args[k] for k in ("new_end", "new_start", "drop_priority") if k in args},
    )
    fallback = str(args.get("drop_name") or drop or "")
    return fix_sentence(fix, lambda key: place_name(pack, key, fallback, lang), lang)


def place_name(pack: RegionPack | None, place_id: str | None, fallback: str, lang: Lang) -> str:
    """A place's name in ``lang`` from the pack (its English name in English when it has one)."""
    place = pack.place_by_id(place_id) if pack is not None and place_id else None
    if place is None:
        return fallback
    return place.name_en if lang == "en" and place.name_en else place.name_zh


def timeline_rows(timeline: list[dict[str, Any]], pack: RegionPack | None, lang: Lang) -> list[dict[str, str]]:
    """The plan's timeline as rows of words: day, time, what (the visit, the way to the next place, lunch) and a
    note (how long the way takes, and its source). Every cell is text: no empty value, no id, no coordinate."""
    rows: list[dict[str, str]] = []
    names: dict[int, str] = {}  # row index → the visit's name, for the way and the lunch beside it
    for i, e in enumerate(timeline):
        if e.get("kind") == "visit":
            names[i] = place_name(pack, e.get("key"), str(e.get("name") or ""), lang)
    start_words = t("agent.console.assumed_start", lang)
    for i, e in enumerate(timeline):
        kind = e.get("kind")
        day = t("agent.console.day_n", lang, n=e.get("day") or 1)
        when = f"{e.get('start') or ''}–{e.get('end') or ''}".strip("–")
        note = ""
        if kind == "visit":
            what = names[i]
            if e.get("part") == 2:
                note = t("agent.console.visit_continues", lang)
        elif kind == "travel":
            same_day = [j for j in names if timeline[j].get("day") == e.get("day")]
            after = [j for j in same_day if j > i]
            goes_to = names[after[0]] if after else (start_words if str(e.get("name", "")).endswith(ASSUMED_START)
                                                     else _last_part(str(e.get("name") or "")))  # fmt: skip
            what = t("agent.console.travel_to", lang, place=goes_to)
            minutes = e.get("robust_min")
            if minutes is not None:
                key = "agent.console.travel_minutes_estimate" if e.get("source") == "offline_estimate" else (
                    "agent.console.travel_minutes")  # fmt: skip
                note = t(key, lang, minutes=f"{float(minutes):.0f}")
        elif kind == "lunch":
            at = [j for j in names if timeline[j].get("day") == e.get("day") and _same_spot(timeline[j], e)]
            what = t("agent.console.lunch_near", lang, place=names[at[0]]) if at else t("agent.console.lunch", lang)
        elif kind == "wait":  # before the place that comes next that day (it opens later, or its time is fixed)
            after = [j for j in names if timeline[j].get("day") == e.get("day") and j > i]
            what = t("agent.console.wait_at", lang, place=names[after[0]]) if after else t("agent.console.wait", lang)
        else:
            what = t("agent.console.other_entry", lang)
        rows.append({"day": day, "time": when or "—", "what": what, "note": note or "—"})
    return rows


def _same_spot(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The lunch is placed where a visit is (the timeline gives it that visit's position)."""
    return a.get("lon") is not None and (a.get("lon"), a.get("lat")) == (b.get("lon"), b.get("lat"))


def _last_part(name: str) -> str:
    return name.rsplit("→", 1)[-1].strip() or name


def map_stops(timeline: list[dict[str, Any]], pack: RegionPack | None, lang: Lang) -> list[dict[str, Any]]:
    """The visits of a timeline for the map, with their names in ``lang`` (positions as the plan gave them)."""
    return [
        {**e, "name": place_name(pack, e.get("key"), str(e.get("name") or ""), lang)}
        for e in timeline
        if e.get("kind") == "visit"
    ]


def cost_words(o: Observability, lang: Lang) -> tuple[str, str, str]:
    """What a request cost as (label, value, note): money when the settings priced every model it called, else its
    budget units, named as units; the note says which paid services ran (none only when none ran)."""
    if o.cost_est_usd is not None and o.cost_currency:
        label, value = t("agent.console.cost_money", lang, currency=o.cost_currency), f"{o.cost_est_usd:.4f}"
    else:
        label, value = t("agent.console.cost_units", lang), f"{o.cost_units:.4f}"
    if not o.paid_services:
        return label, value, t("agent.console.cost_units_help", lang)
    services = ", ".join(s.removeprefix("llm:") for s in o.paid_services)
    key = "agent.console.model_ran_priced" if o.cost_est_usd is not None else "agent.console.model_ran_unpriced"
    return label, value, t(key, lang, models=services, calls=o.model_calls, tokens=o.tokens_est)
