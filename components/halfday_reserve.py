"""Reserving a planned step and managing the reservations, through the reservation service's gates: a dry run
(what will be booked, the price and its source, the cancellation terms), then the person's consent (a checkbox),
then a confirmation dialog, then the receipt; cancelling is its own dry run (the fee now) → consent → confirmation.

The half-day page's own flow: ``components/reservations.py`` (the shared one) had not landed when it was written.
Every refusal keeps its code in state and is shown in words (halfday_words.RESERVATION_ERRORS).
"""

from __future__ import annotations

import uuid
from datetime import date, time
from typing import Any

import streamlit as st
from pydantic import ValidationError

from components import halfday_text as text
from components import halfday_words as w
from core.errors import OmniError
from core.halfday.models import PlanStep, ReserveInput
from core.halfday.service import HalfDayPlanner
from core.reservations.models import DryRun, Reservation

FLOWS = "hd_reserve_flows"  # step key → {"dry": DryRun, "key": idempotency key, "outcome": Reservation, "error": …}
CANCELS = "hd_cancel_flows"  # reservation id → the same, for a cancellation
DIALOG = "hd_reserve_dialog"  # the step key whose confirmation dialog is open


def _flows(name: str) -> dict[str, dict[str, Any]]:
    return st.session_state.setdefault(name, {})


def _refusal(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, OmniError):
        return {"code": exc.code, "details": exc.details if isinstance(exc.details, dict) else {}}
    return {"code": "INVALID_INPUT", "details": {}}


def refusal_words(error: dict[str, Any], lang: str) -> str:
    sentence = w.word(w.RESERVATION_ERRORS, str(error.get("code")), lang, fallback=w.pick(w.ERRORS["OMNI_ERROR"], lang))
    suggestions = (error.get("details") or {}).get("suggestions") or []
    if suggestions:
        sentence += (" 附近还有空位:" if lang == "zh" else " Free nearby: ") + ", ".join(suggestions)
    return sentence


def _venue(planner: HalfDayPlanner, reservation: Reservation, lang: str) -> str:
    place = planner.provider.region.place_by_id(reservation.item_id)
    if place is not None:
        return place.name_en if lang == "en" and place.name_en else place.name_zh
    return reservation.item_name


def _money(amount: float | None, lang: str) -> str:
    if amount is None:
        return "未知" if lang == "zh" else "unknown"
    return f"¥{amount:g}"


def dry_run_lines(planner: HalfDayPlanner, dry: DryRun, lang: str) -> list[str]:
    """What the dry run says will happen, in words."""
    r = dry.reservation
    q = r.quote
    src = text.source_words("pack" if q.source.startswith("region pack") else q.source, lang)
    zh = lang == "zh"
    when = f"{text.day_label(r.date, lang)} {text.clock(r.time)}"
    people = f"{r.party_size} 人" if zh else f"{r.party_size} {'person' if r.party_size == 1 else 'people'}"
    lines = [f"**{_venue(planner, r, lang)}** · {when} · {people}"]
    if q.total is not None:
        per = _money(q.price_per_person, lang)
        lines.append(
            f"预计 {_money(q.total, lang)}(人均 {per},来源:{src})"
            if zh
            else f"About {_money(q.total, lang)} ({per} per person; source: {src})"
        )
    else:
        lines.append("价格未知" if zh else "Price unknown")
    p = r.policy
    fee = f"{round(p.fee_share * 100)}%"
    if dry.action == "cancel":
        lines.append(
            f"现在取消的费用:{_money(dry.fee, lang)}" if zh else f"Cancelling now costs {_money(dry.fee, lang)}"
        )
    elif p.fee_share == 0:
        lines.append("可随时免费取消" if zh else "Free to cancel at any time")
    else:
        lines.append(
            f"开始前 {p.free_until_hours} 小时以前可免费取消,之后收取总价的 {fee}"
            if zh
            else f"Free to cancel until {p.free_until_hours} h before; after that {fee} of the total"
        )
    lines += [w.word(w.UNVERIFIED, code, lang) for code in dry.unverified if code != "PRICE_UNKNOWN"]
    expires = dry.expires_at.astimezone(planner.reservations.zone)
    lines.append(f"请在 {expires:%H:%M} 前确认" if zh else f"Confirm before {expires:%H:%M}")
    return lines


def receipt(planner: HalfDayPlanner, r: Reservation, lang: str) -> None:
    zh = lang == "zh"
    status = w.word(w.RESERVATION_STATUS, r.status, lang)
    when = f"{text.day_label(r.date, lang)} {text.clock(r.time)}"
    body = f"{_venue(planner, r, lang)} · {when} · {r.party_size}{' 人' if zh else ' people'}"
    ref = f"预订号 {r.id}" if zh else f"reference {r.id}"
    if r.status == "confirmed":
        st.success(f"{'预订成功' if zh else 'Reserved'} ({status}): {body} · {ref}", icon=":material/check_circle:")
    elif r.status == "failed":
        reason = next((t.reason for t in reversed(r.transitions) if t.to_status == "failed"), "")
        extra = " " + w.word(w.RESERVATION_ERRORS, reason, lang) if reason in w.RESERVATION_ERRORS else ""
        st.warning(f"{'预订未成功' if zh else 'Not reserved'} ({status}): {body}.{extra}")
    else:
        st.info(f"{status}: {body} · {ref}")


def _nearest(slots: list[time], wanted: time) -> int:
    minutes = wanted.hour * 60 + wanted.minute
    return min(range(len(slots)), key=lambda i: abs(slots[i].hour * 60 + slots[i].minute - minutes))


def _close_dialog() -> None:
    st.session_state.pop(DIALOG, None)


@st.dialog("Confirm the reservation / 确认预订", on_dismiss=_close_dialog)
def _confirm_dialog(planner: HalfDayPlanner, user: str, key: str, lang: str) -> None:
    flow = _flows(FLOWS).get(key)
    if not flow or "dry" not in flow:
        _close_dialog()
        return
    dry: DryRun = flow["dry"]
    for line in dry_run_lines(planner, dry, lang):
        st.markdown(line)
    st.caption("确认后将以你的名义提交预订。" if lang == "zh" else "Confirming books this in your name.")
    yes, no = st.columns(2)
    if yes.button("Confirm booking / 确认预订", key=f"{key}_yes", type="primary", width="stretch"):
        try:
            outcome = planner.reservations.confirm(
                user, dry.reservation.id, token=dry.token, idempotency_key=flow["key"], consent=True
            )
        except OmniError as exc:
            flow["error"] = _refusal(exc)
            flow.pop("dry", None)
        else:
            flow["outcome"] = outcome.reservation
            flow.pop("error", None)
        _close_dialog()
        st.rerun()
    if no.button("Back / 返回", key=f"{key}_no", width="stretch"):
        _close_dialog()
        st.rerun()


def reserve_controls(
    planner: HalfDayPlanner,
    *,
    user: str,
    step: PlanStep,
    day: date,
    party_size: int,
    key: str,
    lang: str,
    disabled: bool = False,
) -> None:
    """One bookable step: pick a slot the venue offers and the party → dry run → consent → dialog → receipt."""
    flows = _flows(FLOWS)
    flow = flows.setdefault(key, {})
    zh = lang == "zh"
    if flow.get("outcome") is not None:
        try:  # as it is now (it may have been cancelled below, in My reservations)
            flow["outcome"] = planner.reservations.get(user, flow["outcome"].id)
        except OmniError:
            pass
        receipt(planner, flow["outcome"], lang)
        return
    if flow.get("error"):
        st.warning(refusal_words(flow["error"], lang))
    dry: DryRun | None = flow.get("dry")
    if dry is None:
        try:
            slots = planner.reservations.free_slots(step.place_id, day)
        except OmniError as exc:
            st.caption(refusal_words(_refusal(exc), lang))
            return
        if not slots:
            st.caption("这一天已订满" if zh else "Fully booked that day")
            return
        c1, c2 = st.columns(2)
        slot = c1.selectbox(
            "Time / 时段", slots, index=_nearest(slots, step.start), key=f"{key}_slot", format_func=text.clock
        )
        party = c2.number_input("People / 人数", 1, 20, max(1, min(20, party_size)), key=f"{key}_party")
        if st.button("Reserve / 预订", key=f"{key}_reserve", icon=":material/event_available:", disabled=disabled):
            try:
                dry = planner.reserve_dry_run(
                    ReserveInput(
                        user_id=user,
                        region=planner.provider.region.name,
                        place_id=step.place_id,
                        date=day,
                        time=slot,
                        party_size=int(party),
                    )
                )
            except (OmniError, ValidationError) as exc:
                flow["error"] = _refusal(exc)
                st.rerun()
            else:
                flow.update(dry=dry, key=uuid.uuid4().hex)
                flow.pop("error", None)
        if dry is None:
            return
    for line in dry_run_lines(planner, dry, lang):
        st.markdown(line)
    consent = st.checkbox(
        "I agree to book this in my name / 我同意以我的名义预订", key=f"{key}_consent", disabled=disabled
    )
    b1, b2 = st.columns(2)
    if b1.button("Confirm… / 确认…", key=f"{key}_confirm", type="primary", disabled=not consent or disabled):
        st.session_state[DIALOG] = key
    if b2.button("Start over / 重新选择", key=f"{key}_discard"):
        flows.pop(key, None)
        st.session_state.pop(f"{key}_consent", None)
        st.rerun()
    if st.session_state.get(DIALOG) == key:
        _confirm_dialog(planner, user, key, lang)


def my_reservations(planner: HalfDayPlanner, *, user: str, key_prefix: str, lang: str) -> None:
    """The user's reservations with their status; a confirmed one can be cancelled (dry run → consent → confirm)."""
    zh = lang == "zh"
    try:
        rows = planner.reservations.reservations_of(user)
    except OmniError as exc:
        st.warning(refusal_words(_refusal(exc), lang))
        return
    if not rows:
        st.caption("还没有预订。" if zh else "No reservations yet.")
        return
    cancels = _flows(CANCELS)
    for r in rows:
        with st.container(border=True, key=f"{key_prefix}_{r.id}"):
            status = w.word(w.RESERVATION_STATUS, r.status, lang)
            when = f"{text.day_label(r.date, lang)} {text.clock(r.time)}"
            people = f"{r.party_size} 人" if zh else f"{r.party_size} {'person' if r.party_size == 1 else 'people'}"
            total = _money(r.quote.total, lang)
            st.markdown(f"**{_venue(planner, r, lang)}** · {when} · {people} · {total} — **{status}**")
            st.caption(("预订号 " if zh else "Reference ") + r.id)
            flow = cancels.get(r.id)
            if flow and flow.get("error"):
                st.warning(refusal_words(flow["error"], lang))
            if r.status != "confirmed":
                continue
            if not flow or "dry" not in flow:
                if st.button("Cancel… / 取消预订…", key=f"{key_prefix}_cancel_{r.id}"):
                    try:
                        dry = planner.reservations.cancel_dry_run(user, r.id)
                    except OmniError as exc:
                        cancels[r.id] = {"error": _refusal(exc)}
                    else:
                        cancels[r.id] = {"dry": dry, "key": uuid.uuid4().hex}
                    st.rerun()
                continue
            for line in dry_run_lines(planner, flow["dry"], lang)[1:]:
                st.markdown(line)
            agree = st.checkbox(
                "I agree to cancel this reservation / 我同意取消这条预订", key=f"{key_prefix}_consent_{r.id}"
            )
            c1, c2 = st.columns(2)
            if c1.button(
                "Confirm cancellation / 确认取消",
                key=f"{key_prefix}_confirm_{r.id}",
                type="primary",
                disabled=not agree,
            ):
                try:
                    planner.reservations.cancel(
                        user, r.id, token=flow["dry"].token, idempotency_key=flow["key"], consent=True
                    )
                except OmniError as exc:
                    cancels[r.id] = {"error": _refusal(exc)}
                else:
                    cancels.pop(r.id, None)
                st.rerun()
            if c2.button("Keep it / 保留", key=f"{key_prefix}_keep_{r.id}"):
                cancels.pop(r.id, None)
                st.rerun()
