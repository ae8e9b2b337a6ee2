"""The reservation flows' sentences, in Chinese or English: what will be reserved, its price and the price's source,
the cancellation policy, what is unverified, the free slots nearby, a list of reservations with their status.
No link, no action name, no field name: words for the person who asked."""

from __future__ import annotations

from datetime import date, time
from typing import Any

from core.agent.venue_fit import FitHints, Suggestions
from core.packs.loader import RegionPack
from core.reservations.catalog import BookableItem
from core.reservations.models import CancellationPolicy, Quote, Reservation

_WEEKDAY_ZH = "一二三四五六日"
_FIELDS = {
    "item": ("预订哪一家", "which place"),
    "date": ("日期", "the date"),
    "time": ("时间", "the time"),
    "party_size": ("人数", "how many people"),
}
_CATEGORY = {
    "restaurant": ("餐厅", "restaurants"),
    "theatre": ("剧院", "theatres"),
    "museum": ("博物馆", "museums"),
    "hotel": ("酒店", "hotels"),
    "family": ("乐园", "parks"),
    "landmark": ("景点", "sights"),
}


def day_text(d: date, zh: bool) -> str:
    if zh:
        return f"{d.year}年{d.month}月{d.day}日（周{_WEEKDAY_ZH[d.weekday()]}）"
    return f"{d:%a} {d.day} {d:%b %Y}"


def hm(t: time) -> str:
    return t.strftime("%H:%M")


def category_text(category: str | None, zh: bool) -> str:
    names = _CATEGORY.get(category or "", ("场所", "places"))
    return names[0 if zh else 1]


def name_of(pack: RegionPack | None, place_id: str, fallback: str, zh: bool) -> str:
    """The place's name in the reply's language (the pack's English name in English, when it has one)."""
    place = pack.place_by_id(place_id) if pack is not None else None
    if place is None:
        return fallback
    return place.name_zh if zh or not place.name_en else place.name_en


def what(r: Reservation, zh: bool, pack: RegionPack | None = None) -> str:
    """绿波廊，2026年12月2日（周三）19:00，2 人 / Lu Bo Lang, Wed 2 Dec 2026 at 19:00, 2 people."""
    name = name_of(pack, r.item_id, r.item_name, zh)
    if zh:
        return f"{name}，{day_text(r.date, zh)} {hm(r.time)}，{r.party_size} 人"
    people = "1 person" if r.party_size == 1 else f"{r.party_size} people"
    return f"{name}, {day_text(r.date, zh)} at {hm(r.time)}, {people}"


def money(value: float) -> str:
    return f"¥{value:,.2f}".rstrip("0").rstrip(".")


def price_text(q: Quote, pack: RegionPack, zh: bool) -> str:
    if q.price_per_person is None or q.total is None:
        return (
            "价格：未知（资料包里没有这家的价格）。" if zh else "Price: unknown (the region pack has no price for it)."
        )
    region = pack.display_name.get("zh" if zh else "en", pack.city)
    if q.price_per_person == 0:
        return f"价格：免费（来源：{region}区域资料包）。" if zh else f"Price: free (source: the {region} region pack)."
    if zh:
        return f"价格：每人 {money(q.price_per_person)}，共 {money(q.total)}（来源：{region}区域资料包的人均价格）。"
    return (
        f"Price: {money(q.price_per_person)} per person, {money(q.total)} in all "
        f"(source: the {region} region pack's price per person)."
    )


def policy_text(p: CancellationPolicy, zh: bool) -> str:
    if p.fee_share == 0:
        return "取消政策：可免费取消。" if zh else "Cancellation: free of charge."
    pct = f"{p.fee_share:.0%}"
    if zh:
        return f"取消政策：开始前 {p.free_until_hours} 小时以前取消免费，之后取消收取总价的 {pct}。"
    return f"Cancellation: free until {p.free_until_hours} h before; after that {pct} of the total."


_UNVERIFIED = {
    "MOCK_VENUE": (
        "这是模拟的预订服务，场馆本身没有核实",
        "this is a simulated reservation service; the venue has not confirmed it",
    ),
    "PRICE_UNKNOWN": ("价格", "the price"),
}


def unverified_text(codes: list[str], zh: bool) -> str:
    if not codes:
        return ""
    bits = [_UNVERIFIED.get(c, ("部分信息", "some details"))[0 if zh else 1] for c in codes]
    return f"未核实：{'；'.join(bits)}。" if zh else f"Not verified: {'; '.join(bits)}."


def ask_missing(missing: list[str], zh: bool) -> str:
    names = [_FIELDS[m][0 if zh else 1] for m in missing]
    if zh:
        return f"请告诉我{'、'.join(names)}。"
    return "Please tell me " + (names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}") + "."


def example(zh: bool) -> str:
    return (
        "（例如：「帮我订绿波廊，明天19:00，两个人」）" if zh else " (e.g. “book Lu Bo Lang tomorrow at 19:00 for 2”)"
    )


def choices(items: list[BookableItem], zh: bool, pack: RegionPack | None = None) -> str:
    parts = []
    for i in items:
        p, name = i.price_per_person, name_of(pack, i.id, i.name, zh)
        if p is None:
            parts.append(name)
        elif p == 0:
            parts.append(f"{name}（免费）" if zh else f"{name} (free)")
        else:
            parts.append(f"{name}（人均{money(p)}）" if zh else f"{name} ({money(p)} per person)")
    return "、".join(parts) if zh else "; ".join(parts)


def choices_source(items: list[BookableItem], pack: RegionPack, zh: bool) -> str:
    """Where the prices in a list of choices come from (the pack), and which have none."""
    if not any(i.price_per_person is not None for i in items):
        return "（资料包里没有这些场所的价格）" if zh else "(the region pack has no prices for these)"
    region = pack.display_name.get("zh" if zh else "en", pack.city)
    return f"（人均价格来源：{region}区域资料包）" if zh else f"(prices per person: the {region} region pack)"


_CUISINE = {
    "shanghainese": ("本帮菜", "Shanghainese food"),
    "cantonese": ("粤菜", "Cantonese food"),
    "dim_sum": ("早茶点心", "dim sum"),
    "huaiyang": ("淮扬菜", "Huaiyang food"),
    "sichuan": ("川菜", "Sichuan food"),
    "hunan": ("湘菜", "Hunan food"),
    "yunnan": ("云南菜", "Yunnan food"),
    "beijing": ("北京菜", "Beijing food"),
    "noodles": ("面馆", "noodles"),
    "dumplings": ("小笼、生煎、汤包", "dumplings"),
    "snacks": ("小吃", "snacks"),
    "seafood": ("海鲜", "seafood"),
    "hotpot": ("火锅", "hotpot"),
    "western": ("西餐", "Western food"),
    "french": ("法餐", "French food"),
    "italian": ("意大利菜", "Italian food"),
    "japanese": ("日料", "Japanese food"),
    "bar": ("酒吧", "bars"),
}


def cuisine_text(codes: list[str], zh: bool) -> str:
    names = [_CUISINE.get(c, (c, c))[0 if zh else 1] for c in codes]
    return "、".join(names) if zh else " or ".join(names)


def fit_notes(found: Suggestions, hints: FitHints, zh: bool) -> list[str]:
    """What the offered venues were chosen by, and what of the request could not be met."""
    notes = []
    if found.cuisine_unmatched:
        what = cuisine_text(hints.cuisines, zh)
        notes.append(f"没有可以预订的{what}。" if zh else f"No place serving {what} takes bookings here.")
    if found.price_unmatched:
        notes.append("没有符合这个价位的，下面是其他价位的。" if zh else "None fits that price; here are other prices.")
    elif hints.cheap and found.median_price is not None:
        m = money(found.median_price)
        notes.append(
            f"按人均价格低于 {m}（这些场所的中位数）挑选。"
            if zh
            else f"Chosen for a price per person under {m} (the median of these places)."
        )
    elif hints.cap is not None:
        m = money(hints.cap)
        notes.append(f"按人均不超过 {m} 挑选。" if zh else f"Chosen for at most {m} per person.")
    elif hints.dear and found.median_price is not None:
        m = money(found.median_price)
        notes.append(
            f"按人均价格不低于 {m}（这些场所的中位数）挑选。"
            if zh
            else f"Chosen for a price per person of at least {m} (the median of these places)."
        )
    return notes


def status_text(r: Reservation, zh: bool) -> str:
    reason = r.transitions[-1].reason if r.transitions else ""
    if r.status == "failed":
        if reason == "DRY_RUN_EXPIRED":
            return "未确认，已失效" if zh else "never confirmed (expired)"
        if reason == "SLOT_FULL":
            return "未订上（时段已满）" if zh else "not booked (the slot was full)"
        return "未成功" if zh else "failed"
    return {
        "pending": ("等待你确认", "waiting for your confirmation"),
        "confirmed": ("已确认", "confirmed"),
        "cancelled": ("已取消", "cancelled"),
    }[r.status][0 if zh else 1]


def listing(rs: list[Reservation], zh: bool, pack: RegionPack | None = None, *, numbered: bool = False) -> str:
    lines = []
    for n, r in enumerate(rs, 1):
        head = f"{n}. " if numbered else "- "
        lines.append(f"{head}{what(r, zh, pack)}{'：' if zh else ': '}{status_text(r, zh)}")
    return "\n".join(lines)


def refusal_text(
    code: str,
    details: dict[str, Any],
    *,
    item: BookableItem | None,
    zh: bool,
    at: time | None,
    pack: RegionPack | None = None,
) -> str:
    """A refusal by the venue's terms in a sentence (the free slots nearby when the asked one is full)."""
    name = name_of(pack, item.id, item.name, zh) if item else ("这家" if zh else "the venue")
    if code == "SLOT_FULL":
        near = details.get("suggestions") or []
        asked = hm(at) if at else ""
        if zh:
            return f"{name} {asked} 已满。" + (
                f"附近还有空位的时段：{'、'.join(near)}。" if near else "当天已经没有空位了。"
            )
        return f"{name} is full at {asked}. " + (
            f"Free slots nearby: {', '.join(near)}." if near else "There is no free slot left that day."
        )
    if code == "NOT_A_SLOT" and item is not None:
        t = item.terms
        if zh:
            return (
                f"{name}的预订时段是 {hm(t.first_slot)} 到 {hm(t.last_slot)}，每 {t.slot_minutes} 分钟一个，"
                f"{hm(at) if at else '这个时间'} 不在其中。请换一个时间。"
            )
        return (
            f"{name} takes bookings every {t.slot_minutes} min from {hm(t.first_slot)} to {hm(t.last_slot)}; "
            f"{hm(at) if at else 'that time'} is not one of them. Please pick another time."
        )
    if code == "PARTY_TOO_LARGE" and item is not None:
        n = item.terms.max_party
        return f"{name}每次最多预订 {n} 人。" if zh else f"{name} takes at most {n} people per booking."
    if code == "TOO_LATE" and item is not None:
        h = item.terms.lead_time_hours
        return (
            f"来不及了：{name} 需要在开始前 {h} 小时以前预订。请换一个更晚的时间或日期。"
            if zh
            else f"Too late: {name} must be booked at least {h} h ahead. Please pick a later time or day."
        )
    if code == "NOT_BOOKABLE":
        return f"{name}不接受预订。" if zh else f"{name} does not take reservations."
    if code == "TOKEN_INVALID":
        return (
            "这次确认已经失效（超时或已用过），没有做任何改动。请重新发起。"
            if zh
            else "This confirmation is no longer valid (it expired or was used); nothing changed. Please start again."
        )
    if code == "NOT_CANCELLABLE":
        return "这个预订现在不能取消。" if zh else "This reservation cannot be cancelled now."
    if code == "NOT_FOUND":
        return "没有找到这个预订。" if zh else "I could not find that reservation."
    return (
        "预订服务没有接受这个请求，没有做任何改动。请查看你的预订后再试。"
        if zh
        else "The reservation service did not accept this; nothing changed. Please check your reservations and try again."
    )
