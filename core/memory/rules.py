"""Semantic memory: standing rules a person states about themselves ("我不吃辣", "I hate queues", "we have a
wheelchair"), read from their words into typed codes with facts, and requests to forget them ("忘掉我不吃辣",
"forget everything").

Only statements about the person count: a request for one meal ("找一家素食餐厅") is the booking's hint, not a rule
(the patterns need a first person or a standing verb: 我吃素, I'm vegetarian, we don't drink). Negations that mean the
opposite (我不怕辣, I don't mind queues, 别忘了) never make a rule or a forgetting.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

RuleCode = Literal[
    "no_spicy",  # 不吃辣, no spicy food
    "no_queues",  # 不想排队, hates queues
    "vegetarian",  # 我吃素, I'm vegetarian
    "vegan",  # 我吃全素, I'm vegan
    "halal",  # 只吃清真, halal only
    "no_alcohol",  # 我不喝酒, I don't drink
    "wheelchair",  # 坐轮椅, with a wheelchair
    "stroller",  # 推婴儿车, with a stroller
    "kids_under_6",  # 带3岁的孩子, a toddler, kids under 6
]
RULE_CODES: tuple[RuleCode, ...] = get_args(RuleCode)
KIDS_AGE_LIMIT = 6  # "young children": below school age; they walk little and cannot wait long


class Rule(BaseModel):
    """One standing rule: a code and its facts (the youngest age said for ``kids_under_6``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: RuleCode
    facts: dict[str, int] = Field(default_factory=dict)


class Said(BaseModel):
    """What one message says for the memory: rules to keep, or what to forget."""

    remember: list[Rule] = Field(default_factory=list)
    forget: list[RuleCode] = Field(default_factory=list, description="rules the person asked to forget")
    forget_all: bool = False
    forget_asked: bool = Field(default=False, description="the message asks to forget (even if nothing known matched)")

    @property
    def any(self) -> bool:
        return bool(self.remember or self.forget_asked)


_I = re.IGNORECASE
_NO_SPICY = re.compile(
    r"(不|没法|不能|不太能|不会|不敢)吃辣|吃不(了|得)辣|(?<!不)怕辣|不要辣|不能吃辣|忌辣|不碰辣|辣的(都)?不吃|不吃(任何)?辣"
    r"|\b(don'?t|do not|can'?t|cannot|won'?t|never) (eat|handle|do|stand|take|tolerate|like) (spicy|hot|chil+i|chil+ies)"
    r"|\bno (spicy|chil+i)\b|\bnothing spicy\b|\bavoid (spicy|chil+i)|\bhate spicy|\bspicy food (is|'s) not for me"
    r"|\bcan'?t take the heat\b|\ballergic to chil+i",
    _I,
)
_NO_QUEUES = re.compile(
    r"(不想|不喜欢|讨厌|不愿意?|最怕|怕|懒得|受不了|不爱|不要|不能)排(长)?队|排(长)?队(太久)?(我)?受不了|不排队"
    r"|\b(hates?|hating|can'?t stand|don'?t like|do not like|dislike|avoid|no) (long )?(queues|queueing|queuing|lines)"
    r"|\b(don'?t|do not|never) (want to |like to )?(queue|wait in (a )?line)",
    _I,
)
_VEGAN = re.compile(r"我(们)?(是)?(吃)?(全素|纯素)|\b(i'?m|i am|we'?re|we are) (a )?vegans?\b", _I)
_VEGETARIAN = re.compile(
    r"我(们|们全家|全家)?(是)?(吃素|素食者?)|我(们)?不吃(任何)?肉|全家(都)?吃素"
    r"|\b(i'?m|i am|we'?re|we are) (a )?(vegetarians?|veggie)\b|\b(i|we) (don'?t|do not) eat meat\b"
    r"|\b(i|we) (only )?eat vegetarian\b",
    _I,
)
_HALAL = re.compile(
    r"只吃清真|我(们)?(是)?(穆斯林|回族|回民)|我(们)?吃清真"
    r"|\b(i|we) (only )?eat halal\b|\bhalal only\b|\b(i'?m|i am|we'?re|we are) muslims?\b",
    _I,
)
_NO_ALCOHOL = re.compile(
    r"我(们)?(不|从不|不能)喝酒|滴酒不沾|我(们)?戒酒了?|\b(i|we) (don'?t|do not|never) drink( alcohol)?\b"
    r"|\bteetotal|\b(i'?m|i am|we'?re|we are) (sober|teetotal)",
    _I,
)
_WHEELCHAIR = re.compile(r"(?<!不需要)(?<!不用)(坐|推|用)?轮椅|\bwheel ?chair", _I)
_STROLLER = re.compile(r"婴儿车|推车|童车|\b(stroller|pushchair|pram|buggy)\b", _I)
_CN_AGE = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_KID_AGE = re.compile(
    r"(?P<a>\d{1,2}|[一两二三四五六七八九十])(周)?岁(半)?(的|大的)?(孩子|小孩|宝宝|儿子|女儿|娃)"
    r"|(孩子|小孩|宝宝|儿子|女儿|娃)(才|刚|只有)?(?P<b>\d{1,2}|[一两二三四五六七八九十])(周)?岁"
    r"|\b(?P<c>\d{1,2})[- ]year[- ]olds?\b|\b(son|daughter|kid|child|boy|girl) (is|aged) (?P<d>\d{1,2})\b",
    _I,
)
_KIDS_YOUNG = re.compile(
    r"宝宝|幼儿|婴儿(?!车)|学龄前|小宝|\b(toddlers?|bab(y|ies)|infants?|preschoolers?)\b"
    r"|\b(kids?|children|child)( are| is)? (under|below|younger than) (6|six|5|five|4|four|3|three)\b",
    _I,
)
_FORGET = re.compile(
    r"^(请|请你|麻烦|帮我|你)?(忘掉|忘记|忘了吧|别再记着?|不要再记着?|不用再记着?)"
    r"|^(please )?(forget|stop remembering)\b",
    _I,
)
#: "删除 / delete" is a forget request only when what follows is a rule or the memory ("删除清水寺" edits a trip)
_DELETE = re.compile(r"^(请|请你|麻烦|帮我|你)?(删掉|删除|清除|清空)|^(please )?(delete|erase|remove|clear|drop)\b", _I)
_MEMORY_WORDS = re.compile(r"记忆|记住的|记着的|\b(memory|memories|what you (know|remember))\b", _I)
_FORGET_ALL = re.compile(
    r"所有|一切|全部|都忘|所有的记忆|我的记忆|关于我的|\b(everything|all( of it| my| that| you)?|my memory|what you know)\b",
    _I,
)


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("’", "'").lower()
    return re.sub(r"\s+", " ", text).strip()


def _cn_or_int(s: str) -> int | None:
    return int(s) if s.isdigit() else _CN_AGE.get(s)


def _kids_rule(text: str) -> Rule | None:
    ages = []
    for m in _KID_AGE.finditer(text):
        said = next(g for g in (m.group("a"), m.group("b"), m.group("c"), m.group("d")) if g)
        age = _cn_or_int(said)
        if age is not None:
            ages.append(age)
    if ages:
        youngest = min(ages)
        return Rule(code="kids_under_6", facts={"youngest_age": youngest}) if youngest < KIDS_AGE_LIMIT else None
    return Rule(code="kids_under_6") if _KIDS_YOUNG.search(text) else None


def rules_in(text: str) -> list[Rule]:
    """The standing rules a text states, in code order (none when it states none)."""
    t = _norm(text)
    found: list[Rule] = []
    checks: list[tuple[RuleCode, re.Pattern[str]]] = [
        ("no_spicy", _NO_SPICY),
        ("no_queues", _NO_QUEUES),
        ("vegan", _VEGAN),
        ("vegetarian", _VEGETARIAN),
        ("halal", _HALAL),
        ("no_alcohol", _NO_ALCOHOL),
        ("wheelchair", _WHEELCHAIR),
        ("stroller", _STROLLER),
    ]
    for code, rx in checks:
        if rx.search(t):
            if code == "vegetarian" and any(r.code == "vegan" for r in found):
                continue  # vegan says more
            found.append(Rule(code=code))
    kids = _kids_rule(t)
    if kids is not None:
        found.append(kids)
    return found


def read_message(text: str) -> Said:
    """What a message says for the memory: a request to forget (some rules, or everything), or rules to keep.
    "别忘了我不吃辣" / "don't forget I'm vegetarian" keep the rule: a forget verb counts only at the message's start."""
    t = _norm(text)
    m = _FORGET.search(t) or _DELETE.search(t)
    if m is not None:
        rest = t[m.end() :]
        named = [r.code for r in rules_in(rest)]
        everything = not named and bool(_FORGET_ALL.search(rest))
        if m.re is _FORGET or named or _MEMORY_WORDS.search(rest):
            return Said(forget=named, forget_all=everything, forget_asked=True)
    return Said(remember=rules_in(t))
