"""The load bench's requests (issue 33): what people ask the agent's fast path, in Chinese and English, each request
new. A request is drawn from a seeded generator over the region pack's own places: a pair of places and a way of
going for a travel-time question, a place for an opening-hours or ticket question, a place and a kind for "what is
near", a day for the weather. The phrasings are many per kind and language, so a run rarely asks the same thing twice (the
travel-time questions alone have about a million different texts on a 200-place pack); the answers' caches
(the provider's geocodes and legs) warm up as they would for real users asking about the same city.

The shares (travel time 60 %, opening hours and tickets 20 %, near a place 10 %, weather 10 %; half Chinese, half
English, the language sent as ``Accept-Language`` as a client would) are this bench's choice, not a measurement of
what people ask: the fast path's four kinds, travel times first. ``MIX`` names them so the report can say what was
run; a phrasing the fast path does not parse (it answers NEED_MORE_INFO or routes elsewhere) is left out here, and
the report gives the fast path's share of the answers.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from core.models.region import RegionPack

Lang = Literal["zh", "en"]

#: (kind, share of requests)
MIX: tuple[tuple[str, float], ...] = (("travel_time", 0.6), ("place_facts", 0.2), ("nearby", 0.1), ("weather", 0.1))

_TRAVEL = {
    "zh": (
        "从{a}到{b}{mode_zh}要多久",
        "{a}到{b}{mode_zh}多长时间",
        "{a}去{b}{mode_zh}大概几分钟",
        "请问从{a}{mode_zh}到{b}需要多少时间？",
        "{mode_zh}从{a}去{b}要花多久",
    ),
    "en": (
        "How long does it take to {mode_en} from {a} to {b}?",
        "{mode_en_cap} time from {a} to {b}",
        "How many minutes to {mode_en} from {a} to {b}?",
        "What's the travel time from {a} to {b} by {mode_noun}?",
    ),
}
_MODES = (  # (zh, en verb, en noun)
    ("开车", "drive", "car"),
    ("步行", "walk", "foot"),
    ("走路", "walk", "foot"),
    ("打车", "drive", "taxi"),
)
_FACTS = {
    "zh": ("{a}几点开门", "{a}几点关门？", "{a}的开放时间是什么", "{a}门票多少钱", "{a}今天开放吗"),
    "en": (
        "What time does {a} open?",
        "When does {a} close?",
        "What are the opening hours of {a}?",
        "How much is a ticket to {a}?",
        "Is {a} open today?",
    ),
}
_NEARBY = {
    "zh": ("{a}附近有{kind_zh}吗", "{a}周边有什么{kind_zh}", "离{a}最近的{kind_zh}在哪"),
    "en": ("Is there a {kind_en} near {a}?", "Any {kind_en}s near {a}?", "What {kind_en}s are close to {a}?"),
}
_KINDS = (
    ("餐厅", "restaurant"),
    ("咖啡馆", "cafe"),
    ("博物馆", "museum"),
    ("公园", "park"),
    ("素食餐厅", "vegetarian restaurant"),
)
_WEATHER = {
    "zh": (
        "{day_zh}{city_zh}天气怎么样",
        "{day_zh}会下雨吗",
        "{city_zh}{day_zh}的天气",
        "{day_zh}适合出门吗，天气如何",
    ),
    "en": (
        "What's the weather in {city_en} {day_en}?",
        "Will it rain {day_en}?",
        "Weather forecast for {day_en} in {city_en}",
    ),
}
_DAYS = (("今天", "today"), ("明天", "tomorrow"), ("后天", "the day after tomorrow"), ("周六", "on Saturday"))


@dataclass(frozen=True)
class LoadRequest:
    """One question as a client sends it: the message, its language (also the ``Accept-Language``) and its kind."""

    message: str
    lang: Lang
    kind: str


def _name(pack: RegionPack, index: int, lang: Lang) -> str:
    place = pack.places[index]
    return place.name_zh if lang == "zh" else place.name_en


def named_places(pack: RegionPack) -> list[int]:
    """The places a question names: those with a name in both languages, addresses aside."""
    return [i for i, p in enumerate(pack.places) if p.name_zh and p.name_en and p.category != "address"]


def draw(pack: RegionPack, rng: random.Random, named: Sequence[int] | None = None) -> LoadRequest:
    """One request drawn from the mix, over ``pack``'s ``named`` places (default: ``named_places``)."""
    lang: Lang = "zh" if rng.random() < 0.5 else "en"
    kind = rng.choices([k for k, _ in MIX], weights=[w for _, w in MIX])[0]
    named = named_places(pack) if named is None else named
    a, b = (_name(pack, i, lang) for i in rng.sample(named, 2))
    if kind == "travel_time":
        zh, verb, noun = rng.choice(_MODES)
        text = rng.choice(_TRAVEL[lang]).format(
            a=a, b=b, mode_zh=zh, mode_en=verb, mode_en_cap=verb.capitalize(), mode_noun=noun
        )
    elif kind == "place_facts":
        text = rng.choice(_FACTS[lang]).format(a=a)
    elif kind == "nearby":
        kind_zh, kind_en = rng.choice(_KINDS)
        text = rng.choice(_NEARBY[lang]).format(a=a, kind_zh=kind_zh, kind_en=kind_en)
    else:
        day_zh, day_en = rng.choice(_DAYS)
        city_zh, city_en = pack.display_name.get("zh", pack.city), pack.display_name.get("en", pack.city)
        text = rng.choice(_WEATHER[lang]).format(day_zh=day_zh, day_en=day_en, city_zh=city_zh, city_en=city_en)
    return LoadRequest(message=text, lang=lang, kind=kind)


def requests(pack: RegionPack, *, seed: int) -> Iterator[LoadRequest]:
    """An endless stream of requests, the same for the same pack and seed (each client has its own seed)."""
    rng = random.Random(seed)
    named = named_places(pack)
    while True:
        yield draw(pack, rng, named)


def kinds_of(sent: Sequence[LoadRequest]) -> dict[str, int]:
    """How many requests of each kind and language were sent (the report's mix line)."""
    counts: dict[str, int] = {}
    for r in sent:
        counts[f"{r.kind}:{r.lang}"] = counts.get(f"{r.kind}:{r.lang}", 0) + 1
    return dict(sorted(counts.items()))
