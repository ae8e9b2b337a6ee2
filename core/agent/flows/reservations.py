"""Book, cancel and list reservations (docs/ARCHITECTURE.md, "Agent"): the router's ``book`` / ``cancel`` / ``list``
intents, on the registered reservations.* actions.

- book: the venue (among the pack's bookable ones), date, time and party from the message; what is missing is asked
  for, never guessed; then the service's dry run, shown in words and held as the agent's dry run (its token stays
  server-side) until the person confirms (flows/confirm.py calls ``commit_confirmed``).
- cancel: the person's own confirmed reservation by venue / date / time (asks which when several match), the
  cancellation's dry run (policy, fee), the same confirmation. It never books.
- list: the person's reservations with their status.
"""

from __future__ import annotations

from datetime import time
from typing import Any
from zoneinfo import ZoneInfo

from core.agent import fastpath
from core.agent.actions.names import ActionName
from core.agent.actions.registry import ActionRegistry
from core.agent.actions.reservations import Refusal
from core.agent.booking import BookingSlots, booking_slots, pick_reading
from core.agent.features import normalize_message, strip_negated
from core.agent.flows import booking_followup as followup
from core.agent.flows import memory as memory_flow
from core.agent.router import RouterDecision
from core.agent.state import AgentContext, log_decision
from core.agent.steps import POLICY_GATE, act, guard, issue_dry_run
from core.agent.venue_fit import fit_hints, suggest
from core.i18n import Lang
from core.models.agent import AgentState, NextStep
from core.models.reservations import BookableItem, DryRun, Reservation
from core.reservations.catalog import catalogue, item_for
from core.stores.trips import DryRunRecord
from core.words import agent as words

POLICY = "RESERVATION_GATE"
COMMIT_ACTIONS = (ActionName.RESERVATIONS_CONFIRM, ActionName.RESERVATIONS_CANCEL)


def run_reservation(decision: RouterDecision, state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    {"book": _book, "cancel": _cancel, "list": _list}[decision.intent](state, ctx, registry)


def _lang(state: AgentState) -> Lang:
    return fastpath.state_lang(state)


def _slots(state: AgentState, ctx: AgentContext) -> BookingSlots:
    pack = ctx.provider.region
    today = ctx.now.astimezone(ZoneInfo(pack.timezone)).date()
    return booking_slots(strip_negated(normalize_message(state.user_input)), pack=pack, today=today)


def _ask(state: AgentState, text: str, *, reason: str, missing: list[str] | None = None) -> None:
    state.result.status = "NEED_MORE_INFO"
    state.result.explanations = [text]
    state.result.next_steps += [NextStep(code="missing", args={"field": m}) for m in missing or []]
    log_decision(state, action=ActionName.RESERVATIONS_DRY_RUN, reason_code=reason, policy_id=POLICY,
                 facts={"missing": missing or []})  # fmt: skip


# --- book ------------------------------------------------------------------------------------------
def _booking_facts(state: AgentState, ctx: AgentContext) -> tuple[Lang, BookingSlots, list[str]]:
    """The booking's facts (and reply language, and the venues offered before): the user's pending booking with
    this message's facts joined (flows/booking_followup.py), else this message's."""
    correction = followup.correction_of(state)
    if correction is not None:  # a follow-up whose fact is wrong ("2月30日"): said by the orchestrator
        raise correction
    joined = followup.joined_of(state)
    if joined is not None:
        log_decision(state, action=ActionName.RESERVATIONS_DRY_RUN, reason_code="PENDING_BOOKING_CONTINUED",
                     policy_id=followup.POLICY, facts={"added": joined.added, "pending_age_s": joined.age_s})  # fmt: skip
        return words.lang_of(joined.zh), joined.slots, joined.options
    return _lang(state), _slots(state, ctx), []


def _asked_for_more(
    state: AgentState, ctx: AgentContext, slots: BookingSlots, item: BookableItem, at: time | None, lang: Lang
) -> bool:
    """Ask for what the booking still lacks, remembering what it has: a time that is none of the venue's slots, am
    or pm when both are, the facts missing, a party size the venue cannot take. True when it asked."""
    pack = ctx.provider.region
    name = words.name_of(pack, item.id, item.name, lang)
    missing = [m for m in slots.missing() if m != "item" and not (m == "time" and at is not None)]
    if slots.hours and at is None and not any(time(h, slots.minute) in item.slots() for h in slots.hours):
        said = time(slots.hours[0], slots.minute)
        _ask(state, words.refusal_text("NOT_A_SLOT", {}, item=item, lang=lang, at=said, pack=pack), reason="NOT_A_SLOT")
        followup.remember(ctx, state, slots, zh=lang == "zh", drop=("time", "hours"))
        return True
    if slots.hours and at is None:  # both readings are slots of the venue: ask, never guess
        h = slots.hours[0]
        _ask(
            state,
            words.t("agent.booking.am_or_pm", lang, name=name, h=h),
            reason="AMBIGUOUS_TIME",
            missing=["time"],
        )
        followup.remember(ctx, state, slots, zh=lang == "zh")
        return True
    if missing:
        known = _known(name, slots, at, lang)
        _ask(
            state,
            known + words.ask_missing(missing, lang) + words.example(lang),
            reason="MISSING_SLOTS",
            missing=missing,
        )
        followup.remember(
            ctx, state, slots.model_copy(update={"time": at, "hours": [] if at else slots.hours}), zh=lang == "zh"
        )
        return True
    assert slots.date is not None and at is not None and slots.party is not None
    if not 1 <= slots.party <= 20:
        _ask(
            state,
            words.refusal_text("PARTY_TOO_LARGE", {}, item=item, lang=lang, at=at, pack=pack),
            reason="PARTY_SIZE",
        )
        followup.remember(
            ctx, state, slots.model_copy(update={"time": at, "hours": []}), zh=lang == "zh", drop=("party",)
        )
        return True
    return False


def _refused(
    state: AgentState,
    ctx: AgentContext,
    refusal: Refusal,
    slots: BookingSlots,
    item: BookableItem,
    at: time,
    lang: Lang,
) -> None:
    """The service refused the dry run: why, in words, with the times it suggests; the booking remembered when the
    person can answer with another time (or day, or party), else forgotten."""
    pack = ctx.provider.region
    state.result.status = "NEED_MORE_INFO"
    state.result.explanations = [
        words.refusal_text(refusal.code, refusal.details, item=item, lang=lang, at=at, pack=pack)
    ]
    state.result.candidates += [{"time": s, "place_id": item.id} for s in refusal.details.get("suggestions", [])]
    log_decision(state, action=ActionName.RESERVATIONS_DRY_RUN, reason_code=refusal.code, policy_id=POLICY)
    kept = slots.model_copy(update={"time": at, "hours": []})
    again = {"SLOT_FULL": ("time",), "NOT_A_SLOT": ("time",), "TOO_LATE": ("date", "time"),
             "PARTY_TOO_LARGE": ("party",)}  # fmt: skip
    if refusal.code in again:  # the person answers with another time (or day, or party)
        followup.remember(ctx, state, kept, zh=lang == "zh", drop=again[refusal.code])
    else:
        followup.forget(ctx)


def _book(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    """A booking from this message, or from the user's pending booking with this message's facts joined
    (flows/booking_followup.py); whatever is asked for is remembered, a dry run forgets it."""
    guard(state, ctx, action=ActionName.RESERVATIONS_DRY_RUN)
    state.react.step += 1
    lang, slots, offered = _booking_facts(state, ctx)
    pack = ctx.provider.region
    if len(slots.venues) > 1:
        named = [words.name_of(pack, v.id, v.name, lang) for v in slots.venues]
        names = words.listed(named, lang)
        _ask(state, words.t("agent.booking.which_venue", lang, names=names), reason="AMBIGUOUS_VENUE",
             missing=["item"])  # fmt: skip
        followup.remember(
            ctx, state, slots.model_copy(update={"venues": []}), zh=lang == "zh", options=[v.id for v in slots.venues]
        )
        return
    if not slots.venues:
        options = _no_venue(state, ctx, slots, lang, offered=offered)
        followup.remember(ctx, state, slots, zh=lang == "zh", options=options)
        return
    item = item_for(pack, slots.venues[0].id)
    assert item is not None  # named_venues only calls bookable what the catalogue holds
    at = slots.time or (pick_reading(slots.hours, slots.minute, item) if slots.hours else None)
    if _asked_for_more(state, ctx, slots, item, at, lang):
        return
    assert slots.date is not None and at is not None and slots.party is not None
    request = {"item_id": item.id, "date": slots.date.isoformat(), "time": words.hm(at), "party_size": slots.party}
    out = act(registry, ActionName.RESERVATIONS_DRY_RUN, {"request": request}, state, ctx, reason_code="BOOKING_REQUESTED",
              policy_id=POLICY, facts={"item_id": item.id, "date": request["date"], "time": request["time"],
                                       "party_size": slots.party})  # fmt: skip
    if out.refusal is not None:
        _refused(state, ctx, out.refusal, slots, item, at, lang)
        return
    followup.forget(ctx)  # the booking is in the dry run now; confirming it is the next step
    dry: DryRun = out.dry_run
    r = dry.reservation
    lines = [
        words.t("agent.booking.will_reserve", lang, what=words.what(r, lang, pack)),
        words.price_text(r.quote, pack, lang),
        words.policy_text(r.policy, lang),
        words.unverified_text(dry.unverified, lang),
        _until(dry, ctx, lang),
    ]
    _hold(state, ctx, action=ActionName.RESERVATIONS_CONFIRM, dry=dry, lines=lines, kind="reservation")


def _known(name: str, slots: BookingSlots, at: time | None, lang: Lang) -> str:
    bits = [name]
    if slots.date:
        bits.append(words.day_text(slots.date, lang))
    if at:
        bits.append(words.hm(at))
    if slots.party:
        bits.append(words.t("agent.booking.people", lang, n=slots.party))
    return words.t("agent.booking.noted", lang, facts=words.join_words(bits, lang, sep="phrases"))


def _no_venue(
    state: AgentState, ctx: AgentContext, slots: BookingSlots, lang: Lang, *, offered: list[str]
) -> list[str]:
    """Offer the bookable venues that fit the request (venue_fit.py), or again the ones offered before; their ids."""
    pack = ctx.provider.region
    lines = []
    if slots.unbookable:
        v = slots.unbookable[0]
        said = words.name_of(pack, v.id, v.name, lang)
        lines.append(words.t("agent.booking.refusal.not_bookable", lang, name=said))
    hints = fit_hints(" ".join(followup_messages(state, ctx)))
    asked = slots.category or ("restaurant" if hints.cuisines or hints.diet else None)
    category = asked if asked in {i.category for i in catalogue(pack)} else None
    if asked and category is None:
        kind = words.category_text(asked, lang)
        lines.append(words.t("agent.booking.none_of_kind", lang, kind=kind))
    again = [i for pid in offered if (i := item_for(pack, pid)) is not None]
    rules = [r.code for r in memory_flow.rules_for(ctx, state)]
    found = suggest(pack, category, hints=hints, party=slots.party, rules=rules)
    options = again or found.items
    if not again:
        lines += words.fit_notes(found, hints, lang)
    if options:
        kind = words.category_text(category, lang)
        lines.append(words.t("agent.booking.offer", lang, kind=kind if lang == "zh" else kind.capitalize(),
                       choices=words.choices(options, lang, pack)))  # fmt: skip
        lines.append(words.choices_source(options, pack, lang))
        state.result.candidates += [
            {"place_id": i.id, "name": i.name, "category": i.category, "price_per_person": i.price_per_person,
             "cuisine": list(p.cuisine) if (p := pack.place_by_id(i.id)) else [],
             "source": f"region pack {pack.name}: price_per_person" if i.price_per_person is not None else "unknown"}
            for i in options
        ]  # fmt: skip
    missing = [m for m in slots.missing() if m != "item"]
    if missing:
        lines.append(words.ask_missing(missing, lang))
    _ask(state, words.join_words(lines, lang, sep="sentences"), reason="NO_BOOKABLE_VENUE",
         missing=["item", *missing])  # fmt: skip
    return [i.id for i in options]


def followup_messages(state: AgentState, ctx: AgentContext) -> list[str]:
    """The messages this booking was said in (the pending booking's and this one): where its hints are."""
    joined = followup.joined_of(state)
    earlier = joined.messages if joined is not None else []
    return [*earlier, ctx.request.message]


def _until(dry: DryRun, ctx: AgentContext, lang: Lang) -> str:
    minutes = max(1, int(ctx.settings.dry_run_ttl_s // 60))
    if dry.action == "reserve":
        return words.t("agent.booking.until.reserve", lang, minutes=minutes)
    return words.t("agent.booking.until.cancel", lang, minutes=minutes)


def _hold(state: AgentState, ctx: AgentContext, *, action: str, dry: DryRun, lines: list[str], kind: str) -> None:
    """The service's dry run held as the agent's dry run: the token stays in the server-side record."""
    r = dry.reservation
    evidence = [
        {
            "type": kind,
            "reservation_id": r.id,
            "place": r.item_name,
            "place_id": r.item_id,
            "date": r.date.isoformat(),
            "time": words.hm(r.time),
            "party_size": r.party_size,
            "price_per_person": r.quote.price_per_person,
            "total": r.quote.total,
            "currency": r.quote.currency,
            "price_source": r.quote.source,
            "cancellation_policy": r.policy.model_dump(),
            "fee": dry.fee,
            "unverified": list(dry.unverified),
            "availability": "slot_free" if dry.action == "reserve" else None,
        }
    ]
    issue_dry_run(
        state,
        ctx,
        action=action,
        params={"reservation_id": r.id, "token": dry.token},
        evidence=evidence,
        explain=False,
    )
    state.result.explanations = [line for line in lines if line]


# --- cancel ----------------------------------------------------------------------------------------
def _matching(rs: list[Reservation], slots: BookingSlots, ctx: AgentContext) -> list[Reservation]:
    pack = ctx.provider.region
    out = [r for r in rs if r.status == "confirmed"]
    if slots.venues:
        ids = {v.id for v in slots.venues}
        out = [r for r in out if r.item_id in ids]
    elif slots.category:
        out = [r for r in out if (i := item_for(pack, r.item_id)) is not None and i.category == slots.category]
    if slots.date:
        out = [r for r in out if r.date == slots.date]
    if slots.time:
        out = [r for r in out if r.time == slots.time]
    return out


def _cancel(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    lang = _lang(state)
    pack = ctx.provider.region
    guard(state, ctx, action=ActionName.RESERVATIONS_CANCEL_DRY_RUN)
    state.react.step += 1
    slots = _slots(state, ctx)
    mine = act(registry, ActionName.RESERVATIONS_LIST, {}, state, ctx, reason_code="CANCEL_REQUESTED", policy_id=POLICY)
    confirmed = [r for r in mine.reservations if r.status == "confirmed"]
    found = _matching(mine.reservations, slots, ctx)
    if not found:
        state.result.status = "NEED_MORE_INFO"
        text = words.t("agent.booking.cancel.no_match", lang)
        if confirmed:
            text += words.t("agent.booking.cancel.your_confirmed", lang) + "\n" + words.listing(confirmed, lang, pack)
        else:
            text += words.t("agent.booking.cancel.none_confirmed", lang)
        state.result.explanations = [text]
        log_decision(state, action=ActionName.RESERVATIONS_CANCEL_DRY_RUN, reason_code="NO_MATCHING_RESERVATION",
                     policy_id=POLICY, facts={"confirmed": len(confirmed)})  # fmt: skip
        return
    if len(found) > 1:
        state.result.status = "NEED_MORE_INFO"
        state.result.explanations = [
            words.t("agent.booking.cancel.which", lang, n=len(found)) + "\n"
            + words.listing(found, lang, pack, numbered=True)
        ]  # fmt: skip
        state.result.candidates += [_row(r) for r in found]
        state.result.next_steps.append(NextStep(code="missing", args={"field": "which_reservation"}))
        log_decision(state, action=ActionName.RESERVATIONS_CANCEL_DRY_RUN, reason_code="AMBIGUOUS_RESERVATION",
                     policy_id=POLICY, facts={"matches": len(found)})  # fmt: skip
        return
    target = found[0]
    out = act(registry, ActionName.RESERVATIONS_CANCEL_DRY_RUN, {"reservation_id": target.id}, state, ctx,
              reason_code="CANCELLATION_DRY_RUN", policy_id=POLICY, facts={"item_id": target.item_id})  # fmt: skip
    if out.refusal is not None:
        state.result.status = "NEED_MORE_INFO"
        item = item_for(ctx.provider.region, target.item_id)
        state.result.explanations = [
            words.refusal_text(out.refusal.code, out.refusal.details, item=item, lang=lang, at=None, pack=pack)
        ]
        return
    dry: DryRun = out.dry_run
    fee = dry.fee or 0.0
    lines = [
        words.t("agent.booking.will_cancel", lang, what=words.what(target, lang, pack)),
        words.policy_text(target.policy, lang),
        words.t("agent.booking.cancel.fee_now", lang, fee=words.money(fee)),
        words.unverified_text(dry.unverified, lang),
        _until(dry, ctx, lang),
    ]
    _hold(state, ctx, action=ActionName.RESERVATIONS_CANCEL, dry=dry, lines=lines, kind="cancellation")


def _row(r: Reservation) -> dict[str, Any]:
    return {"reservation_id": r.id, "name": r.item_name, "date": r.date.isoformat(), "time": words.hm(r.time),
            "party_size": r.party_size, "status": r.status}  # fmt: skip


# --- list ------------------------------------------------------------------------------------------
def _list(state: AgentState, ctx: AgentContext, registry: ActionRegistry) -> None:
    lang = _lang(state)
    pack = ctx.provider.region
    state.react.step += 1
    out = registry.call(ActionName.RESERVATIONS_LIST, {}, state=state, ctx=ctx)
    rs = out.reservations
    log_decision(state, action=ActionName.RESERVATIONS_LIST, reason_code="LIST_RESERVATIONS", policy_id=POLICY,
                 facts={"count": len(rs), "confirmed": sum(r.status == "confirmed" for r in rs)})  # fmt: skip
    state.result.status = "OK"
    state.result.candidates += [_row(r) for r in rs]
    if not rs:
        state.result.explanations = [words.t("agent.booking.list.none", lang)]
        return
    head = words.t("agent.booking.list.head", lang, n=len(rs))
    state.result.explanations = [head + "\n" + words.listing(rs, lang, pack)]


# --- the confirmation (flows/confirm.py) -----------------------------------------------------------
def commit_confirmed(
    record: DryRunRecord, state: AgentState, ctx: AgentContext, registry: ActionRegistry, *, again: bool = False
) -> None:
    """Confirm the held dry run with its token under an idempotency key bound to the agent's dry run: a second
    confirmation (``again``) replays the first outcome and never books twice."""
    lang = _lang(state)
    pack = ctx.provider.region
    p = record.params
    out = act(
        registry,
        record.action,
        {"reservation_id": p["reservation_id"], "token": p["token"], "idempotency_key": f"agent-{record.dry_run_id}",
         "consent": True},
        state,
        ctx,
        reason_code="CONFIRMATION_REPLAYED" if again else "COMMIT_CONFIRMED",
        policy_id=POLICY_GATE,
    )  # fmt: skip
    if out.refusal is not None:
        state.result.status = "FAILED"
        state.result.error_code = "CONFIRMATION_INVALID"
        state.result.explanations = [
            words.refusal_text(out.refusal.code, out.refusal.details, item=None, lang=lang, at=None, pack=pack)
        ]
        return
    r = out.outcome.reservation
    state.result.candidates.append(_row(r))
    cancel = record.action == ActionName.RESERVATIONS_CANCEL
    if r.status == "failed":  # the slot filled up between the dry run and the confirmation
        state.result.status = "NEED_MORE_INFO"
        state.result.explanations = [words.t("agent.booking.slot_filled", lang, what=words.what(r, lang, pack))]
        return
    if out.outcome.replayed:
        what, status = words.what(r, lang, pack), words.status_text(r, lang)
        done = (words.t("agent.booking.replayed.cancel", lang, what=what, status=status) if cancel
                else words.t("agent.booking.replayed.reserve", lang, what=what, status=status))  # fmt: skip
    elif cancel:
        fee = out.outcome.fee  # the service's, by the policy at the moment it cancelled
        done = words.t("agent.booking.cancelled", lang, what=words.what(r, lang, pack))
        done += words.t("agent.booking.cancelled_fee", lang, fee=words.money(fee)) if fee is not None else ""
    else:
        done = words.t("agent.booking.booked", lang, what=words.what(r, lang, pack))
    state.result.explanations = [done]
    state.result.status = "OK"
