"""Which bookable venues to offer when a booking request names none (docs/ARCHITECTURE.md, "Agent"): those that fit
the request — the kind asked for, the cuisine (the pack's ``cuisine`` column) and diet asked for (its diet tags), a
price hint (便宜 / 人均100 / cheap / under ¥150 / 高档 / fine dining), a party the venue can take — shown as a spread
of prices, cheapest first, each with the pack's price.

Pure functions over one message and the region pack. Nothing is invented: a venue without a price in the pack is
never called cheap or dear, it is only kept when no price hint is given.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from statistics import median

from pydantic import BaseModel, Field

from core.agent.features import normalize_message
from core.models.region import RegionPack
from core.models.reservations import BookableItem
from core.phrases.numbers import cn_number
from core.reservations.catalog import catalogue

#: words for a cuisine → the pack's cuisine codes (core/packs/validate.py CUISINES)
CUISINE_WORDS: list[tuple[str, re.Pattern[str]]] = [
    ("shanghainese", re.compile(r"本帮|上海菜|沪菜|上海本地菜|shanghainese|shanghai (food|cuisine|dishes)", re.I)),
    ("cantonese", re.compile(r"粤菜|广东菜|广式|cantonese", re.I)),
    ("dim_sum", re.compile(r"早茶|茶点|dim ?sum", re.I)),
    ("huaiyang", re.compile(r"淮扬菜|淮扬|huaiyang", re.I)),
    ("sichuan", re.compile(r"川菜|四川菜|sichuan|szechuan", re.I)),
    ("hunan", re.compile(r"湘菜|湖南菜|hunan", re.I)),
    ("yunnan", re.compile(r"云南菜|滇菜|yunnan", re.I)),
    ("beijing", re.compile(r"北京菜|京菜|烤鸭|peking|beijing (food|cuisine)", re.I)),
    ("noodles", re.compile(r"面馆|吃面|面条|noodles?", re.I)),
    ("dumplings", re.compile(r"小笼|生煎|汤包|饺子|馒头|dumplings?|xiaolongbao", re.I)),
    ("snacks", re.compile(r"小吃|点心|snacks?", re.I)),
    ("seafood", re.compile(r"海鲜|小龙虾|seafood|crayfish", re.I)),
    ("hotpot", re.compile(r"火锅|hot ?pot", re.I)),
    ("western", re.compile(r"西餐|western", re.I)),
    ("french", re.compile(r"法餐|法国菜|法式|french", re.I)),
    ("italian", re.compile(r"意大利菜|意餐|意式|italian", re.I)),
    ("japanese", re.compile(r"日料|日本料理|日本菜|寿司|japanese|sushi", re.I)),
    ("bar", re.compile(r"酒吧|\bbar\b|cocktails?", re.I)),
]
#: diet words → the pack's tags a venue must carry (any of them)
DIET_WORDS: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (("vegetarian_friendly", "vegan_options"), re.compile(r"素食|吃素|素菜|斋菜|vegetarian", re.I)),
    (("vegan_options",), re.compile(r"纯素|vegan", re.I)),
    (("halal",), re.compile(r"清真|halal", re.I)),
    (("light_options",), re.compile(r"清淡|少油|light (food|meal|options)", re.I)),
]
#: the pack's cuisine codes whose dishes are mostly hot (the ``spicy`` tag marks the others one by one)
SPICY_CUISINES = frozenset({"sichuan", "hunan", "hotpot"})
#: a standing diet rule (core/memory) → the tag group a venue must carry, as when the diet is asked for
RULE_DIETS: dict[str, tuple[str, ...]] = {
    "vegetarian": ("vegetarian_friendly", "vegan_options"),
    "vegan": ("vegan_options",),
    "halal": ("halal",),
}
_CHEAP = re.compile(r"便宜|实惠|平价|经济|不贵|低价|划算|省钱|cheap|budget|inexpensive|affordable|low[- ]cost", re.I)
_DEAR = re.compile(r"高档|高端|豪华|贵一点|奢华|米其林|fine dining|upscale|fancy|luxury|high[- ]end|michelin", re.I)
_CAP = re.compile(
    r"人均\s*(?P<a>\d{2,5}|[一二两三四五六七八九十百千]+)\s*(元|块)?\s*(以内|以下|左右|之内)?"
    r"|(?P<b>\d{2,5})\s*(元|块)\s*(以内|以下|左右|之内)"
    r"|(under|below|less than|max(imum)?|up to)\s*[¥￥$]?\s*(?P<c>\d{2,5})"
    r"|[¥￥]\s*(?P<d>\d{2,5})\s*(per person|a head|pp|each)?",
    re.I,
)


class FitHints(BaseModel):
    """What a request says about the venue it wants, beside its name."""

    cuisines: list[str] = Field(default_factory=list, description="cuisine codes asked for (any of them)")
    diet: list[tuple[str, ...]] = Field(default_factory=list, description="tag groups, each one must be met")
    cheap: bool = False
    dear: bool = False
    cap: float | None = Field(default=None, description="the most per person the request names (CNY)")

    @property
    def any(self) -> bool:
        return bool(self.cuisines or self.diet or self.cheap or self.dear or self.cap is not None)


def fit_hints(text: str) -> FitHints:
    t = normalize_message(text)
    cap = None
    if m := _CAP.search(t):
        said = next(g for g in (m.group("a"), m.group("b"), m.group("c"), m.group("d")) if g)
        cap = float(said) if said.isdigit() else _cn_amount(said)
    return FitHints(
        cuisines=[code for code, rx in CUISINE_WORDS if rx.search(t)],
        diet=[tags for tags, rx in DIET_WORDS if rx.search(t)],
        cheap=bool(_CHEAP.search(t)),
        dear=bool(_DEAR.search(t)) and not _CHEAP.search(t),
        cap=cap,
    )


def _cn_amount(s: str) -> float | None:
    """一百 → 100, 两百五 → 250 (the small amounts a person says per head)."""
    if m := re.fullmatch(r"([一二两三四五六七八九])?(百|千)([一二两三四五六七八九])?", s):
        unit = 100 if m.group(2) == "百" else 1000
        head = cn_number(m.group(1)) if m.group(1) else 1
        tail = (cn_number(m.group(3)) or 0) * unit // 10 if m.group(3) else 0
        return float((head or 1) * unit + tail)
    n = cn_number(s)
    return float(n) if n else None


class Suggestions(BaseModel):
    items: list[BookableItem]
    cuisine_unmatched: bool = Field(default=False, description="no venue of the kind serves the cuisine asked for")
    price_unmatched: bool = Field(
        default=False, description="none within the price asked for; the price hint was let go"
    )
    median_price: float | None = Field(default=None, description="the median price of the venues that fit the kind")


def suggest(
    pack: RegionPack,
    category: str | None,
    *,
    hints: FitHints,
    party: int | None = None,
    limit: int = 5,
    rules: Collection[str] = (),
) -> Suggestions:
    """Up to ``limit`` bookable venues of ``category`` that fit the hints, a spread of prices (cheapest first).
    ``rules``: the person's standing rules (core/memory): a diet rule narrows like a diet asked for, ``no_spicy``
    leaves out spicy venues (the pack's ``spicy`` tag, or a spicy cuisine), ``no_alcohol`` leaves out bars; each only
    when some venue is left."""
    items = [i for i in catalogue(pack) if category is None or i.category == category]
    if party is not None:
        items = [i for i in items if i.terms.max_party >= party]
    if "no_spicy" in rules:
        items = [i for i in items if not _spicy(pack, i)] or items
    if "no_alcohol" in rules:
        items = [i for i in items if not _alcohol(pack, i)] or items
    for code, tags in RULE_DIETS.items():
        if code in rules and tags not in hints.diet:
            hints = hints.model_copy(update={"diet": [*hints.diet, tags]})
    if category is None and not hints.any:  # no kind asked: the best-rated of each kind
        firsts: dict[str, BookableItem] = {}
        for i in sorted(items, key=lambda i: (-_rating(pack, i), i.id)):
            firsts.setdefault(i.category, i)
        return Suggestions(items=list(firsts.values())[:limit])
    cuisine_unmatched = False
    if hints.cuisines:
        served = [i for i in items if set(_place_cuisines(pack, i)) & set(hints.cuisines)]
        cuisine_unmatched = not served
        items = served or items
    for tags in hints.diet:
        items = [i for i in items if _meets_diet(pack, i, tags)] or items
    priced = [i.price_per_person for i in items if i.price_per_person is not None]
    mid = median(priced) if priced else None
    kept = items
    if hints.cap is not None:
        kept = [i for i in kept if i.price_per_person is not None and i.price_per_person <= hints.cap]
    if hints.cheap and mid is not None:
        kept = [i for i in kept if i.price_per_person is not None and i.price_per_person < mid]
    if hints.dear and mid is not None:
        kept = [i for i in kept if i.price_per_person is not None and i.price_per_person >= mid]
    price_unmatched = not kept and bool(items)
    return Suggestions(
        items=_spread(pack, kept or items, limit),
        cuisine_unmatched=cuisine_unmatched,
        price_unmatched=price_unmatched,
        median_price=mid,
    )


def _spicy(pack: RegionPack, item: BookableItem) -> bool:
    place = pack.place_by_id(item.id)
    return place is not None and ("spicy" in place.tags or bool(set(place.cuisine) & SPICY_CUISINES))


def _alcohol(pack: RegionPack, item: BookableItem) -> bool:
    place = pack.place_by_id(item.id)
    return place is not None and ("alcohol" in place.tags or "bar" in place.cuisine)


def _rating(pack: RegionPack, item: BookableItem) -> float:
    place = pack.place_by_id(item.id)
    return (place.rating or 0.0) if place else 0.0


def _place_cuisines(pack: RegionPack, item: BookableItem) -> list[str]:
    place = pack.place_by_id(item.id)
    return list(place.cuisine) if place else []


def _meets_diet(pack: RegionPack, item: BookableItem, tags: tuple[str, ...]) -> bool:
    place = pack.place_by_id(item.id)
    if place is None:
        return False
    return bool(set(place.tags) & set(tags)) or ("vegetarian" in place.cuisine and "vegetarian_friendly" in tags)


def _spread(pack: RegionPack, items: list[BookableItem], limit: int) -> list[BookableItem]:
    """``limit`` venues across the price range: the items in price order cut into ``limit`` bands, the best rated of
    each band (unpriced ones last), shown cheapest first."""
    ordered = sorted(items, key=lambda i: (i.price_per_person is None, i.price_per_person or 0.0, i.id))
    if len(ordered) <= limit:
        return ordered
    n = len(ordered)
    bands = [ordered[round(k * n / limit) : round((k + 1) * n / limit)] for k in range(limit)]
    return [max(band, key=lambda i: (_rating(pack, i), -(i.price_per_person or 0.0))) for band in bands if band]
