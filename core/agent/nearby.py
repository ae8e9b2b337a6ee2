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
from collections.abc import Callable
from dataclasses import dataclass, field

from core.geo.coords import haversine_m
from core.models.region import RegionPack, RegionPlace
from core.phrases.numbers import cn_number

#: words that ask for what is near a place
NEAR = re.compile(
    r"附近|周边|周围|旁边|边上|一带|不远|步行可达|走路能到|走路就到|\bnear(by)?\b|\baround\b|\bclose to\b|\bnext to\b"
    r"|\bwalking distance\b|\bwithin \d",
    re.I,
)

#: the kinds of place a question may ask for, and the pack categories of each
KINDS: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    ("cafe", ("cafe",), re.compile(r"咖啡|甜品|下午茶|\bcaf[eé]s?\b|\bcoffee\b|\bdesserts?\b", re.I)),
    ("bar", ("restaurant", "cafe"), re.compile(r"酒吧|喝一杯|\bbars?\b|\bdrinks?\b|\bpubs?\b", re.I)),
    (
        "restaurant",
        ("restaurant", "cafe"),
        re.compile(
            r"餐厅|餐馆|饭馆|饭店|菜馆|馆子|酒楼|吃饭|吃的|好吃|美食|小吃|[早午晚]饭|[早午晚]餐|本帮菜|素食|素菜|能吃|吃到|用餐|就餐"
            r"|小笼|生煎|饺子|面馆|面条|\bnoodles?\b|\bdumplings?\b|\bxiaolongbao\b|\bdim sum\b"
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
    (re.compile(r"清真|穆斯林|回民|伊斯兰|\bhalal\b|\bmuslim\b|\bislamic\b", re.I), ("halal",), ()),
]

#: how far a place may be from the anchor to count as near it when the message says no distance (straight line
#: between the pack's coordinates)
NEAR_M = 3000.0
#: "within walking distance", "走路能到": what a walk of about a quarter of an hour covers
WALK_M = 1200.0
#: a distance said: "2公里内", "500米以内", "within 1.5 km", "less than 800 m"
_SAID_RADIUS = re.compile(
    r"(?P<n>\d+(?:\.\d+)?|[一二两三四五六七八九十半]+)\s*(?P<unit>公里|千米|km|米|m)\s*(?:以内|之内|内|范围|左右)"
    r"|(?:within|under|less than|at most|no more than)\s+(?P<n2>\d+(?:\.\d+)?)\s*(?P<unit2>km|kilomet(?:er|re)s?|m|met(?:er|re)s?)\b",
    re.I,
)
_WALK = re.compile(r"走路|步行|走过去|走着|\bwalk(ing|able)?\b|\bon foot\b", re.I)
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
    radius_m: float = NEAR_M
    radius_source: str = "default"  # default | said (a distance in the message) | walking (a walk said)
    other_kind: bool = False  # no place of the kind fits: these are places to eat of another kind (a food street)


def asks_nearby(text: str) -> bool:
    """The message asks for a kind of place near somewhere ("…附近有素食餐厅吗", "restaurants near …")."""
    return bool(NEAR.search(text)) and any(rx.search(text) for _, _, rx in KINDS)


def read_radius(text: str) -> tuple[float, str]:
    """How far "near" reaches for this message, and why: a distance said ("1公里内", "within 800 m"), else a walk
    said ("走路能到", "walking distance"), else the default."""
    m = _SAID_RADIUS.search(text)
    if m:
        raw, unit = (m.group("n"), m.group("unit")) if m.group("n") else (m.group("n2"), m.group("unit2"))
        value = 0.5 if raw == "半" else (float(raw) if raw[0].isdigit() else float(cn_number(raw) or 0))
        in_metres = unit == "米" or unit.lower() == "m" or unit.lower().startswith("met")
        metres = value if in_metres else value * 1000
        if metres > 0:
            return metres, "said"
    if _WALK.search(text):
        return WALK_M, "walking"
    return NEAR_M, "default"


def eats_there(place: RegionPlace) -> bool:
    """A place where one goes to eat: a restaurant or café, or a food street or food market (a market the data tag
    food and say what it serves). A shopping street or a sight with stalls is not one."""
    return place.category in ("restaurant", "cafe") or (
        place.category == "market" and "food" in place.tags and bool(place.cuisine)
    )


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
    radius, source = read_radius(text)

    def nearest(fits_kind: Callable[[RegionPlace], bool]) -> list[tuple[str, int]]:
        near = sorted(
            (haversine_m(anchor.lon, anchor.lat, p.lon, p.lat), p.id)
            for p in pack.places
            if fits_kind(p) and p.id not in anchors and _fits(p, wishes, home)
        )
        if kind == "bar":  # a bar is a place that serves drinks: its cuisine or tags say so
            near = [(d, pid) for d, pid in near if _serves_drinks(pack.place_by_id(pid))]
        return [(pid, round(d)) for d, pid in near if d <= radius][:MAX_PLACES]

    kept = nearest(lambda p: p.category in categories)
    other_kind = False
    if not kept and kind == "restaurant":  # no restaurant fits: a food street or a market that does is said as one
        kept, other_kind = nearest(lambda p: p.category not in categories and eats_there(p)), True
    return NearbyAsk(anchor=anchor.id, kind=kind, places=[(pid, float(d)) for pid, d in kept], wishes=len(wishes),
                     radius_m=radius, radius_source=source, other_kind=other_kind and bool(kept))  # fmt: skip


def _serves_drinks(place: RegionPlace | None) -> bool:
    return place is not None and ("bar" in place.cuisine or "alcohol" in place.tags)
