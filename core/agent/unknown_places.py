"""Places a message names that the region's data does not have (issue 31): "赫尔辛基西站", "芬兰设计博物馆",
"Helsinki West Station" are names of places, not interests, and a plan without them never says nothing. A name is a
stretch of the message between separators (、，, ; : and 和 / and) that ends in a word of a place's kind (站, 博物馆,
教堂, station, museum, church, …) and says more than the kind and the city, once the verbs before it are set aside;
one that stands for a place the message was read to name (its canonical form, ``core.geo.text.canonical``) is
that place. What is left is a place not found, with the pack's places that really resemble it
(``resembles_distinctly``: its own words, not the city's or the kind's) as suggestions, never as answers."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from core.geo.text import canonical, distinctive, normalize, resemblance, resembles_distinctly, strip_city_names
from core.i18n import has_cjk
from core.models.region import RegionPack

Span = tuple[int, int]

#: what separates the things a message lists
_SEPARATORS = re.compile(
    r"[，,、；;：:。.!！?？\n]|(?:和|与|及|跟|还有|再去|然后|以及)|(?<![a-z])(?:and|then|plus)(?![a-z])"
)
#: the words before a name: who wants, and the verb of going or seeing
_LEAD = re.compile(
    r"^\s*(?:(?:我们|我|咱们)?(?:想|要|打算|准备|希望)?(?:先|再|也)?(?:去|逛逛?|看看?|参观|游览|到|走走)?)\s*"
    r"(?:(?:i|we)\s+)?(?:(?:want|would like|'d like|wish|plan|hope)\s+to\s+)?"
    r"(?:(?:a|one|half a)\s+(?:day|morning|afternoon|evening|trip)\s+(?:at|in|with|around)\s+)?"
    r"(?:(?:see|visit|go to|stop at|start at|end at|start from|check out)\s+)?(?:the\s+)?",
)
#: words of a place's kind a name ends in (Chinese longest first, as written; English whole words)
KIND_ZH = tuple(
    sorted(
        "站 车站 火车站 机场 博物馆 美术馆 艺术馆 画廊 教堂 大教堂 座堂 礼拜堂 寺 庙 宫 塔 桥 公园 花园 植物园 动物园 "
        "水族馆 海洋馆 广场 剧院 歌剧院 音乐厅 图书馆 大学 市场 商场 岛 城堡 纪念馆 纪念碑".split(),
        key=len,
        reverse=True,
    )
)
KIND_EN = re.compile(
    r"(?<![a-z])(?:station|airport|museum|gallery|church|cathedral|chapel|temple|palace|tower|bridge|park|garden|"
    r"gardens|zoo|aquarium|square|theatre|theater|opera|hall|library|university|market|island|castle|memorial)$"
)
MAX_NAME_CHARS = 32
#: how alike a suggestion must be (core/route/place_choice.py's RESEMBLES_MIN: a place offered for a typed name)
SUGGEST_MIN = 70.0
#: and how alike their own words must be (龙华庙 is like 龙华寺, not like 老城隍庙 for a sound or two)
OWN_WORDS_MIN = 80.0
MAX_SUGGESTIONS = 3


_CAPITALISED = re.compile(r"[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|of|the|de|la))*$")


def _segments(said: str) -> list[tuple[int, str]]:
    """(start, text) of each stretch of ``said`` (the message as written, its spaces collapsed) between separators,
    the leading verbs set aside; in English a name written with capitals is its capitalised words at the end ("A day
    with the Design Museum" names "Design Museum")."""
    low = said.lower()
    out, at = [], 0
    for m in [*_SEPARATORS.finditer(low), None]:
        end = m.start() if m else len(low)
        piece = low[at:end]
        lead = _LEAD.match(piece)
        cut = lead.end() if lead else 0
        start = at + cut + (len(piece[cut:]) - len(piece[cut:].lstrip()))
        name = low[start:end].strip()
        written = _CAPITALISED.search(said[start : start + len(name)]) if name.isascii() else None
        if written is not None and written.start() > 0:
            start, name = start + written.start(), name[written.start() :]
        if name:
            out.append((start, name))
        at = m.end() if m else len(low)
    return out


def _ends_in_kind(name: str) -> bool:
    if re.search(r"[\u4e00-\u9fff]$", name):
        return name.endswith(KIND_ZH)
    return bool(KIND_EN.search(name))


def _without_kind(name: str) -> str:
    """The name without the word of kind it ends in ("上海东站" -> "上海东", "Helsinki West Station" -> "Helsinki
    West"); a name that is only that word stays whole."""
    low = name.strip()
    if re.search(r"[\u4e00-\u9fff]$", low):
        kind = next((k for k in KIND_ZH if low.endswith(k)), "")
        return low[: len(low) - len(kind)] or low
    m = KIND_EN.search(low.lower())
    return low[: m.start()].strip() or low if m else low


def _own_words_alike(typed: str, name: str, cities: frozenset[str]) -> float:
    """How alike the two are by what is their own (the words of kind and of the city set aside): a name with
    nothing of its own ("赫尔辛基大教堂": the city's cathedral) is not like "赫尔辛基西站" for sharing the city."""
    mine, theirs = distinctive(_without_kind(typed), cities=cities), distinctive(_without_kind(name), cities=cities)
    if mine.strip() and theirs.strip():
        return resemblance(mine, theirs)
    if mine.strip() or theirs.strip():
        return 0.0
    return resembles_distinctly(typed, name, cities=cities)


def _says_more(name: str) -> bool:
    """More than words of kind ("博物馆", "寺庙", "the station" name no place; "赫尔辛基火车站", the city's station,
    does)."""
    left = distinctive(name)
    if has_cjk(left):
        for kind in KIND_ZH:
            left = left.replace(kind, "")
        return bool(left.strip())
    return any(not KIND_EN.search(word) for word in left.split())


def _names_of(pack: RegionPack, pid: str) -> list[str]:
    p = pack.place_by_id(pid)
    return [n for n in (p.name_zh, p.name_en, *p.aliases) if n] if p is not None else []


def _cities(pack: RegionPack) -> frozenset[str]:
    return frozenset(c for c in (pack.city, *pack.city_aliases, *pack.display_name.values(), pack.name) if c)


def unknown_places(said: str, pack: RegionPack, named: Collection[str], taken: list[Span]) -> list[tuple[Span, str]]:
    """(span, words) of each place the message names that is none of ``named`` (the places it was read to name)
    and overlaps no span already read; ``said``: the message with its spaces collapsed (the spans are its
    lowercase form's, as core/agent/trip_wishes.py reads it)."""
    cities = _cities(pack)
    prefixes = frozenset(normalize(c) for c in cities)

    def bare(text: str) -> str:  # the canonical form without the city's name ("赫尔辛基站" -> "站" stays whole)
        key = canonical(text)
        return strip_city_names(key, prefixes) or key

    keys = {bare(n) for pid in named for n in _names_of(pack, pid)}
    out: list[tuple[Span, str]] = []
    for at, name in _segments(said):
        span = (at, at + len(name))
        if len(name) > MAX_NAME_CHARS or not _ends_in_kind(name) or not _says_more(name):
            continue
        if any(a < span[1] and span[0] < b for a, b in taken):
            continue
        if bare(name) in keys:  # the place it was read to name, said another way (赫尔辛基火车站)
            continue
        out.append((span, said[span[0] : span[1]]))
    return out


def resembling(pack: RegionPack, words: str) -> list[str]:
    """The pack's places whose own names really resemble ``words`` (not by the city's or the kind's words), the most
    alike first; none is offered as the place itself."""
    cities = _cities(pack)
    text = unicodedata.normalize("NFKC", words)
    scored = []
    for p in pack.places:
        if p.category in ("address", "district"):
            continue
        # in the script typed: across scripts only sounds compare, and 上海东站 sounds like Shanghai Zhan
        names = [n for n in (p.name_zh, p.name_en, *p.aliases) if n and has_cjk(n) == has_cjk(text)]
        # alike as a whole, and by its own words once the words of kind are set aside too (上海东站 is not 上海南站:
        # 东 and 南 are what tell them apart; 赫尔辛基中洋车站 is 赫尔辛基中央车站 misspelt)
        alike = [resemblance(text, n) for n in names if _own_words_alike(text, n, cities) >= OWN_WORDS_MIN]
        best = max(alike, default=0.0)
        if best >= SUGGEST_MIN:
            scored.append((-best, p.id))
    return [pid for _, pid in sorted(scored)[:MAX_SUGGESTIONS]]
