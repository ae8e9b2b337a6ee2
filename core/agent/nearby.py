"""A question for places of a kind near a place the pack knows (issue 31): "外滩附近有素食餐厅吗", "any local
restaurants near People's Square?", "where can we eat Shanghainese food around the Bund".

The anchor is the place the message names (the pack's names and aliases); the kind (restaurant, cafe, bar) and the
wishes (vegetarian, local, a cuisine) come from the vocabularies below; the answer is the pack's places of that kind
that have the wishes, nearest first by straight-line distance between the pack's own coordinates. Never the anchor
itself: a question about what is near a landmark is not answered with the landmark.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from core.geo.coords import haversine_m
from core.models.region import RegionPack, RegionPlace

#: words that ask for what is near a place
NEAR = re.compile(r"附近|周边|周围|旁边|边上|一带|不远|\bnear(by)?\b|\baround\b|\bclose to\b|\bnext to\b", re.I)

#: the kinds of place a question may ask for, and the pack categories of each
KINDS: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    ("cafe", ("cafe",), re.compile(r"咖啡|甜品|下午茶|\bcaf[eé]s?\b|\bcoffee\b|\bdesserts?\b", re.I)),
    ("bar", ("restaurant", "cafe"), re.compile(r"酒吧|喝一杯|\bbars?\b|\bdrinks?\b|\bpubs?\b", re.I)),
    (
        "restaurant",
        ("restaurant", "cafe"),
        re.compile(
            r"餐厅|餐馆|饭馆|饭店|菜馆|馆子|酒楼|吃饭|吃的|好吃|美食|小吃|[早午晚]饭|[早午晚]餐|本帮菜|素食|素菜"
            r"|\brestaurants?\b|\beat(s|ing|ery|eries)?\b|\bfood\b|\bdining\b|\blunch\b|\bdinner\b|\bbreakfast\b|\bbrunch\b",
            re.I,
        ),
    ),
]

#: wishes: the words, and what a place must have for them (a tag, or a cuisine; "HOME" is the pack's own cuisine)
WISHES: list[tuple[re.Pattern[str], tuple[str, ...], tuple[str, ...]]] = [
    (
        re.compile(r"素食|素菜|吃素|素斋|全素|\bvegetarian\b|\bvegan\b|\bmeat[- ]free\b|\bveggie\b", re.I),
        ("vegetarian_friendly", "vegan_options"),
        ("vegetarian",),
    ),
    (
        re.compile(r"本地|当地|地道|本帮|老字号|家常|\blocal\b|\bauthentic\b|\btraditional\b", re.I),
        ("local_favourite",),
        ("HOME",),
    ),
    (re.compile(r"上海菜|沪菜|\bshanghainese\b|\bshanghai (food|cuisine|dishes)\b", re.I), (), ("shanghainese",)),
    (re.compile(r"粤菜|广东菜|早茶|\bcantonese\b|\bdim sum\b", re.I), (), ("cantonese", "dim_sum")),
    (re.compile(r"小笼|生煎|饺子|\bdumplings?\b|\bxiaolongbao\b", re.I), (), ("dumplings",)),
    (re.compile(r"面馆|面条|\bnoodles?\b", re.I), (), ("noodles",)),
    (re.compile(r"西餐|\bwestern\b|\bfrench\b|\bitalian\b", re.I), (), ("western", "french", "italian")),
    (re.compile(r"清真|\bhalal\b", re.I), ("halal",), ()),
]

#: how far a place may be from the anchor to count as near it (straight line between the pack's coordinates)
NEAR_M = 3000.0
#: how many places the answer names
MAX_PLACES = 3


@dataclass(frozen=True)
class NearbyAsk:
    """What a nearby question asks: ``anchor`` the place id, ``kind`` and its categories, the wishes' tags and
    cuisines (a place needs one of each wish), and the answer's places, nearest first, with their distance (m)."""

    anchor: str
    kind: str
    places: list[tuple[str, float]] = field(default_factory=list)
    wishes: int = 0


def asks_nearby(text: str) -> bool:
    """The message asks for a kind of place near somewhere ("…附近有素食餐厅吗", "restaurants near …")."""
    return bool(NEAR.search(text)) and any(rx.search(text) for _, _, rx in KINDS)


def home_cuisine(pack: RegionPack) -> str | None:
    """The pack's own cuisine: the one most of its restaurants serve (None when they say none)."""
    counts = Counter(c for p in pack.places if p.category == "restaurant" for c in p.cuisine)
    return counts.most_common(1)[0][0] if counts else None


def _fits(place: RegionPlace, wishes: list[tuple[tuple[str, ...], tuple[str, ...]]], home: str | None) -> bool:
    for tags, cuisines in wishes:
        wanted = {home if c == "HOME" else c for c in cuisines} - {None}
        if not (set(place.tags) & set(tags) or set(place.cuisine) & wanted):
            return False
    return True


def read_nearby(text: str, pack: RegionPack, *, anchors: list[str]) -> NearbyAsk | None:
    """The nearby question of ``text`` against ``pack``, around the first of ``anchors`` (the places the message
    names, longest name first); None when it asks for no kind of place near one."""
    if not asks_nearby(text) or not anchors:
        return None
    anchor = pack.place_by_id(anchors[0])
    if anchor is None:
        return None
    kind, categories = next((name, cats) for name, cats, rx in KINDS if rx.search(text))
    wishes = [(tags, cuisines) for rx, tags, cuisines in WISHES if rx.search(text)]
    home = home_cuisine(pack)
    near = sorted(
        (haversine_m(anchor.lon, anchor.lat, p.lon, p.lat), p.id)
        for p in pack.places
        if p.category in categories and p.id not in anchors and _fits(p, wishes, home)
    )
    if kind == "bar":  # a bar is a place that serves drinks: its cuisine or tags say so
        near = [(d, pid) for d, pid in near if _serves_drinks(pack.place_by_id(pid))]
    kept = [(pid, round(d)) for d, pid in near if d <= NEAR_M][:MAX_PLACES]
    return NearbyAsk(anchor=anchor.id, kind=kind, places=[(pid, float(d)) for pid, d in kept], wishes=len(wishes))


def _serves_drinks(place: RegionPlace | None) -> bool:
    return place is not None and ("bar" in place.cuisine or "alcohol" in place.tags)
