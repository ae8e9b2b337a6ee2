"""What trip edit a message asks for, read from its words (System 1's trip CRUD, core/agent/fastpath.py).

``parse_trip_edit`` reads the one explicit edit of a message (add, delete, move, prioritise, rename, swap days) in
Chinese or English, or None when it is not clear enough; ``split_targets`` splits a target naming several known
places. A value the contract refuses is an ``InputError`` with a reason, never a validation traceback. No words are
written here: the fast path says what happened.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from core.agent.features import normalize_message
from core.errors import InputError
from core.models.agent import TripEdit
from core.models.common import echo
from core.phrases.numbers import cn_number

__all__ = ["clean_target", "parse_trip_edit", "split_targets"]

_DAYNUM = r"([0-9]+|[一二两三四五六七八九十]+)"
_FILLER = re.compile(r"^(请|帮我|麻烦|把|将|给我|please\s+)+|(吧|了|一下|好吗|谢谢|please)$", re.I)


def clean_target(t: str | None) -> str | None:
    """The place an edit names, without the words around it: "from my trip", a leading "the", polite filler."""
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
            raise InputError(
                f"day {value} is outside the days a trip can have (1 to 30)",
                field=name,
                details={"reason": "DAY_OUT_OF_RANGE", "day": value},
            ) from None
        if name in ("target", "new_name"):
            raise InputError(
                f"the place name '{echo(value)}' is too long (at most 120 characters)",
                field=name,
                details={"reason": "NAME_TOO_LONG", "most": 120},
            ) from None
        raise InputError(
            f"the edit could not be understood ({first.get('msg')})",
            field=name,
            details={"reason": "EDIT_NOT_UNDERSTOOD"},
        ) from None


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
        return _edit(op="move", target=clean_target(m.group("t")), day=_day(m.group(3)))
    m = re.search(r"\b(move|reschedule|shift)\s+(?P<t>.+?)\s+to\s+day\s*(?P<d>\d+)", t, re.I)
    if m:
        return _edit(op="move", target=clean_target(m.group("t")), day=int(m.group("d")))
    # priority
    m = re.search(r"把?(?P<t>.+?)(设为|改成|设成|列为|标为|作为)(?P<p>必去|可选|优先|普通)", t)
    if m:
        p = {"必去": "must", "优先": "must", "可选": "nice", "普通": "should"}[m.group("p")]
        return _edit(op="prioritize", target=clean_target(m.group("t")), priority=p)
    m = re.search(r"\bmake\s+(?P<t>.+?)\s+(a\s+)?(?P<p>must[- ]visit|must|optional)\b", t, re.I)
    if m:
        return _edit(
            op="prioritize",
            target=clean_target(m.group("t")),
            priority="nice" if m.group("p").lower() == "optional" else "must",
        )
    m = re.search(r"\bprioriti[sz]e\s+(?P<t>.+)$", t, re.I)
    if m:
        return _edit(op="prioritize", target=clean_target(m.group("t")), priority="must")
    m = re.search(r"(?P<t>.+?)(是|为)?必去", t)
    if m and clean_target(m.group("t")):
        return _edit(op="prioritize", target=clean_target(m.group("t")), priority="must")
    # add
    m = re.search(rf"(加上|添加|加入|增加|加个|加一个|再加|也去)(?P<t>.+?)(到第{_DAYNUM}天|到行程|$)", t)
    if m:
        d = re.search(rf"第{_DAYNUM}天", m.group(0))
        return _edit(op="add", target=clean_target(m.group("t")), day=_day(d.group(1)) if d else None)
    m = re.search(rf"把(?P<t>.+?)(加到|加入|添加到|放进|加进)(我的|我们的|这个|这次的?)?(第{_DAYNUM}天|行程)", t)
    if m:
        d = re.search(rf"第{_DAYNUM}天", m.group(0))
        return _edit(op="add", target=clean_target(m.group("t")), day=_day(d.group(1)) if d else None)
    m = re.search(
        r"\b(add|include)\s+(?P<t>.+?)(\s+to\s+(day\s*(?P<d>\d+)|(my|the)\s+(trip|itinerary|plan)))?\s*$", t, re.I
    )
    if m:
        return _edit(op="add", target=clean_target(m.group("t")), day=int(m.group("d")) if m.group("d") else None)
    # delete
    m = re.search(r"把?(?P<t>.+?)(删除|删掉|删了|去掉|移除|拿掉|取消)", t)
    if m and clean_target(m.group("t")):
        return _edit(op="delete", target=clean_target(m.group("t")))
    m = re.search(r"(删除|删掉|去掉|移除|拿掉|取消)(?P<t>.+)$", t)
    if m:
        return _edit(op="delete", target=clean_target(m.group("t")))
    m = re.search(r"(?P<t>.+?)不去了?", t)
    if m and clean_target(m.group("t")):
        return _edit(op="delete", target=clean_target(m.group("t")))
    m = re.search(r"\b(delete|remove|drop|skip|take out)\s+(?P<t>.+?)\s*$", t, re.I)
    if m:
        return _edit(op="delete", target=clean_target(m.group("t")))
    return None


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
