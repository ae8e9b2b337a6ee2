"""The words of the reservation flow (components/reservations.py) in zh and en: refusal codes, statuses, what the
mock cannot verify, prices with their source, cancellation policies and fees. Pure functions returning (zh, en);
the core gives codes and facts, the sentences are chosen here."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from pydantic import ValidationError

from core.errors import OmniError
from core.reservations.catalog import BookableItem
from core.reservations.models import CancellationPolicy, Quote, Reservation

Pair = tuple[str, str]  # (zh, en)


REFUSALS: dict[str, Pair] = {
    "SLOT_FULL": ("{asked} 已订满。", "{asked} is fully booked."),
    "NOT_A_SLOT": (
        "{venue} 只接受 {first}–{last} 之间每 {step} 分钟一个时段的预订。",
        "{venue} takes bookings every {step} min from {first} to {last}.",
    ),
    "PARTY_TOO_LARGE": ("每次预订最多 {max_party} 人。", "At most {max_party} people per booking."),
    "TOO_LATE": (
        "这个时段已截止预订：需在开始前 {lead} 小时预订，请选更晚的时间或日期。",
        "Bookings for this slot have closed: they close {lead} h before it starts. Pick a later time or day.",
    ),
    "NOT_BOOKABLE": ("这个地点不能在这里预订。", "This place cannot be booked here."),
    "CONSENT_REQUIRED": ("请先勾选同意，再确认。", "Tick the consent box before confirming."),
    "TOKEN_INVALID": (
        "这次查询已过期或已被使用，请重新查询空位。",
        "This check has expired or was already used; check availability again.",
    ),
    "IDEMPOTENCY_KEY_REUSED": (
        "这次确认与之前的另一个请求冲突，请重新查询空位。",
        "This confirmation clashes with an earlier request; check availability again.",
    ),
    "NOT_FOUND": ("找不到这条预订。", "No such reservation."),
    "NOT_CANCELLABLE": ("只有已确认的预订才能取消。", "Only a confirmed reservation can be cancelled."),
    "ILLEGAL_TRANSITION": ("这条预订的状态不允许这样做。", "The reservation's status does not allow this."),
    "STATE_CHANGED": ("这条预订刚刚发生了变化，请刷新后再试。", "The reservation changed meanwhile; look again."),
    "INVALID_INPUT": ("预订信息有误：{field}。", "Something in the booking is not valid: {field}."),
    "SERVICE_UNAVAILABLE": (
        "预订服务暂时无法使用，请稍后再试。",
        "The reservation service is not available right now; try again later.",
    ),
}
REFUSED: Pair = ("预订没有成功。", "The reservation did not go through.")
FIELDS: dict[str, Pair] = {
    "contact": ("联系人", "contact"),
    "notes": ("备注", "notes"),
    "party_size": ("人数", "party size"),
    "date": ("日期", "date"),
    "time": ("时间", "time"),
    "item_id": ("地点", "venue"),
}
STATUS: dict[str, Pair] = {
    "pending": ("待确认", "awaiting confirmation"),
    "confirmed": ("已确认", "confirmed"),
    "failed": ("未成功", "not booked"),
    "cancelled": ("已取消", "cancelled"),
}
FAILED_BECAUSE: dict[str, Pair] = {
    "DRY_RUN_EXPIRED": ("查询后未在有效期内确认", "the check was not confirmed in time"),
    "SLOT_FULL": ("确认时这个时段已满", "the slot filled up before the confirmation"),
}
UNVERIFIED: dict[str, Pair] = {
    "MOCK_VENUE": (
        "这是演示用的模拟预订：不会通知真实的店家，座位与营业情况未经核实。",
        "This is a demo booking: no real venue is told, and its seats and opening are not verified.",
    ),
    "PRICE_UNKNOWN": ("价格未知：地区数据包里没有这个地点的价格。", "The price is unknown: the region pack has none."),
}
WEEKDAYS_ZH = "一二三四五六日"


def day_words(day: date) -> Pair:
    return f"{day.year}年{day.month}月{day.day}日（周{WEEKDAYS_ZH[day.weekday()]}）", f"{day:%a %d %b %Y}"


def money(amount: float, currency: str) -> str:
    text = f"{amount:,.2f}".rstrip("0").rstrip(".")
    return f"¥{text}" if currency == "CNY" else f"{text} {currency}"


def price_words(quote: Quote, party: int) -> Pair:
    if quote.price_per_person is None or quote.total is None:
        return "价格未知（地区数据包中没有价格）。", "Price unknown (the region pack has none)."
    each, total = money(quote.price_per_person, quote.currency), money(quote.total, quote.currency)
    return (
        f"人均 {each}，{party} 人共 {total}（价格来自地区数据包）。",
        f"{each} per person, {total} for {party} (price from the region pack).",
    )


def policy_words(policy: CancellationPolicy, starts: datetime, now: datetime | None = None) -> Pair:
    """The policy in words; with ``now``, whether its free period is already over."""
    if policy.fee_share == 0:
        return "随时可免费取消。", "Free cancellation at any time."
    until = starts - timedelta(hours=policy.free_until_hours)
    share = f"{policy.fee_share:.0%}"
    zh = f"开始前 {policy.free_until_hours} 小时（{until:%m-%d %H:%M}）之前可免费取消；之后取消收取总价的 {share}。"
    en = (
        f"Free cancellation until {policy.free_until_hours} h before the start ({until:%d %b %H:%M}); "
        f"after that {share} of the total is charged."
    )
    if now is not None and now >= until:
        zh += "免费取消的时间已过。"
        en += " The free period is already over."
    return zh, en


def fee_words(fee: float | None, reservation: Reservation) -> Pair:
    if not fee:
        return "现在取消不收费。", "Cancelling now is free."
    amount = money(fee, reservation.quote.currency)
    return f"现在取消将收取 {amount}。", f"Cancelling now costs {amount}."


def booking_words(r: Reservation) -> Pair:
    zh_day, en_day = day_words(r.date)
    return (
        f"{r.item_name}，{zh_day} {r.time:%H:%M}，{r.party_size} 人",
        f"{r.item_name}, {en_day} at {r.time:%H:%M}, party of {r.party_size}",
    )


def status_words(r: Reservation) -> Pair:
    zh, en = STATUS.get(r.status, (r.status, r.status))
    if r.status == "failed" and r.transitions:
        why = FAILED_BECAUSE.get(r.transitions[-1].reason)
        if why is not None:
            return f"{zh}：{why[0]}", f"{en}: {why[1]}"
    return zh, en


def error_of(exc: Exception) -> dict[str, Any]:
    """A refusal as plain state: its code, the core's message and details (shown only under "details")."""
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        loc = errors[0]["loc"] if errors else ()
        message = errors[0]["msg"] if errors else str(exc)
        return {"code": "INVALID_INPUT", "message": message, "field": str(loc[0]) if loc else "", "details": {}}
    if isinstance(exc, OmniError):
        return {"code": exc.code, "message": exc.message, "field": exc.field, "details": dict(exc.details or {})}
    return {"code": "SERVICE_UNAVAILABLE", "message": type(exc).__name__, "field": None, "details": {}}


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


def refusal_pair(error: dict[str, Any], item: BookableItem | None = None) -> Pair:
    """The refusal's sentence (zh, en) with the venue's terms filled in."""
    field = FIELDS.get(error.get("field") or "", (error.get("field") or "", error.get("field") or ""))
    params: dict[str, Any] = {"asked": error.get("asked", "")}
    if item is not None:
        t = item.terms
        params |= {
            "venue": item.name, "first": f"{t.first_slot:%H:%M}", "last": f"{t.last_slot:%H:%M}",
            "step": t.slot_minutes, "max_party": t.max_party, "lead": t.lead_time_hours,
        }  # fmt: skip
    zh, en = REFUSALS.get(error["code"], REFUSED)
    return zh.format_map(_Blank(params, field=field[0])), en.format_map(_Blank(params, field=field[1]))
