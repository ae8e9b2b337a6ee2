"""Text normalisation shared by the offline gazetteer and the resolver."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from core.i18n import has_cjk

_PUNCT = re.compile(r"[\s\-_,，。.、;；:：'\"“”‘’()（）\[\]【】/\\·•|!?！？&＆#]+")
_CITY_PREFIX = re.compile(r"^(中国)?(上海市|上海(?=市?[\u4e00-\u9fff]{1,3}区))")
_HOUSE_NUMBER = re.compile(r"(\d+)\s*(号|號|弄|$)")


#: letters that are not a base letter plus a mark but are typed as one on a plain keyboard
_FOLDS = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ł": "l", "þ": "th", "ð": "d"})


def fold(text: str) -> str:
    """Latin letters without their diacritics, as people type them on a keyboard without them ("Töölö" ->
    "toolo", "Ø" -> "o"; Pinyin tone marks go too: "Wàitān" -> "waitan"); Chinese, Cyrillic, Hangul kept."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    kept: list[str] = []
    base_is_latin = False
    for c in decomposed:
        if unicodedata.combining(c):
            # a mark on a Latin letter is a diacritic people leave out; on Cyrillic (й), kana (が) or
            # Devanagari it is part of the letter itself
            if not base_is_latin:
                kept.append(c)
            continue
        base_is_latin = c < "\u0250" and c.isalpha()
        kept.append(c)
    return unicodedata.normalize("NFC", "".join(kept)).translate(_FOLDS)


def normalize(text: str | None) -> str:
    """NFKC, case-folded, diacritics folded (``fold``), without whitespace and punctuation (CJK kept)."""
    if not text:
        return ""
    text = fold(unicodedata.normalize("NFKC", str(text)))
    return _PUNCT.sub("", text)


def folded_words(text: str) -> list[str]:
    """The text's words, NFKC, case-folded and without diacritics (``fold``), punctuation as a space."""
    return _PUNCT.sub(" ", fold(unicodedata.normalize("NFKC", text))).split()


def strip_city_prefix(text: str) -> str:
    """Drop a leading "中国上海市"/"上海市" (the pack's addresses are stored without it)."""
    norm = normalize(text)
    return _CITY_PREFIX.sub("", norm) or norm


def house_number(text: str | None) -> str | None:
    """The house number of an address ("世纪大道1号" -> "1"), if any."""
    if not text:
        return None
    m = _HOUSE_NUMBER.search(unicodedata.normalize("NFKC", text))
    return m.group(1) if m and ("号" in text or "號" in text or "弄" in text) else None


def strip_house_number(text: str) -> str:
    """ "南京东路300号2楼" -> "南京东路": the road or compound an address lies on."""
    t = unicodedata.normalize("NFKC", text)
    m = re.search(r"\d+\s*(号|號|弄)", t)
    return t[: m.start()].strip() if m else t


# -- the forms people type (issue 12): one key for 浦东国际机场T1航站楼 / 浦东机场1号航站楼 / Pudong Airport Terminal 1 --
_CN_DIGIT = {"一": "1", "二": "2", "三": "3", "四": "4", "五": "5"}
_BRACKETED = re.compile(r"[(（\[【][^)）\]】]*[)）\]】]")
_TERMINALS: tuple[re.Pattern[str], ...] = (  # each captures the terminal's number
    re.compile(r"(?:t|terminal)?([1-9一二三四五])号?航站楼(?:站)?"),
    re.compile(r"terminal([1-9])"),
    re.compile(r"(?<=\D)t([1-9])(?:航站楼)?(?:站)?$"),
)
#: (in order: a rewrite may leave what a later one reads, 中央火车站 -> 中央站 -> 站). A city's central or main
#: station is what its station names without a qualifier: 赫尔辛基火车站 / 赫尔辛基中央车站 / Helsinki Central
#: Railway Station / Helsinki main station are one key; where a city has both an "X站" and an "X中央站", the two are
#: two exact answers of one key, and the resolver asks (issue 31)
_WORD_REWRITES: tuple[tuple[str, str], ...] = (
    ("国际机场", "机场"),
    ("internationalairport", "airport"),
    ("火车站", "站"),
    ("高铁站", "站"),
    ("地铁站", "站"),
    ("车站", "站"),
    ("中央站", "站"),
    ("总站", "站"),
    ("railwaystation", "station"),
    ("trainstation", "station"),
    ("metrostation", "station"),
    ("subwaystation", "station"),
    ("centralstation", "station"),
    ("mainstation", "station"),
)
_LINE_SUFFIX = re.compile(r"(地铁)?\d+(号线)?$|磁浮$|磁悬浮$")
_STATION_MARK = re.compile(r"(站|station)$")
_DIGITS = re.compile(r"\d+")


def base_name(text: str | None) -> str:
    """The name without its bracketed qualifier: "上海博物馆(人民广场馆)" -> "上海博物馆"."""
    return _BRACKETED.sub("", unicodedata.normalize("NFKC", text or "")).strip()


def _terminal(match: re.Match[str]) -> str:
    return "t" + _CN_DIGIT.get(match.group(1), match.group(1))


@lru_cache(maxsize=1 << 16)
def canonical(text: str | None) -> str:
    """``normalize`` plus the words people vary: 国际机场 -> 机场, 火车站/高铁站/地铁站/车站/中央车站 -> 站,
    railway/train/metro/central/main station -> station, terminals (T1航站楼, 1号航站楼, 一号航站楼, Terminal 1) -> ``t1``; a metro line suffix
    ("站(地铁1/2/8号线)") is dropped. A result shorter than two characters keeps the plain form ("火车站")."""
    norm = normalize(text)
    out = norm
    for pattern in _TERMINALS:
        out = pattern.sub(_terminal, out)
    for word, repl in _WORD_REWRITES:
        out = out.replace(word, repl)
    if out.endswith(("号线", "磁浮", "磁悬浮")) or re.search(r"站(地铁)?\d+号线$", out):
        out = _LINE_SUFFIX.sub("", out)
    return out if len(out) >= 2 else norm


def has_station_mark(key: str) -> bool:
    """A canonical key that names a station ("人民广场站", "hongqiaostation")."""
    return bool(_STATION_MARK.search(key))


_DIRECTIONS = re.compile(r"[东南西北]|east|west|north|south")
_KIND_MARKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("station", re.compile(r"(站|station)$")),
    ("hotel", re.compile(r"酒店|饭店|宾馆|hotel")),
    ("airport", re.compile(r"机场|airport")),
)


def discriminators(key: str) -> frozenset[str]:
    """What tells two similar names apart and must agree: numbers ("虹桥t2" -> {"2"}: a terminal, a house
    number) and directions (上海南站 vs 上海站, Nanjing West vs East Road)."""
    return frozenset(_DIGITS.findall(key)) | frozenset(_DIRECTIONS.findall(key))


def kind_marks(key: str) -> frozenset[str]:
    """The kind of place a key names by its words: a station (站), a hotel (酒店, 饭店), an airport (机场)."""
    return frozenset(kind for kind, pattern in _KIND_MARKS if pattern.search(key))


def spaced(text: str | None) -> str:
    """Latin text as words (NFKC, case-folded, punctuation to spaces), for word-order-free matching; "" for
    text with Chinese or a single word."""
    if not text or has_cjk(text):
        return ""
    words = _PUNCT.sub(" ", fold(unicodedata.normalize("NFKC", text))).split()
    return " ".join(words) if len(words) > 1 else ""


_LOOSE_SOUNDS = (("zh", "z"), ("ch", "c"), ("sh", "s"), ("ng", "n"))


@lru_cache(maxsize=1 << 16)
def pinyin_key(text: str) -> str:
    """Toneless pinyin of a key's Chinese characters, other characters kept ("豫园" -> "yuyuan", "虹桥t2" ->
    "hongqiaot2"); "" when the text has no Chinese. Homophone typos (豫圆, 静按寺) share the key of the real name."""
    if not has_cjk(text):
        return ""
    from pypinyin import lazy_pinyin  # imported on first use: the table takes a moment to load

    return "".join(lazy_pinyin(text)).casefold()


def sound_key(pinyin: str) -> str:
    """Pinyin with the sounds people mix up merged (zh/z, ch/c, sh/s, -ng/-n), as pinyin input methods do:
    "dishini" and "disini" (迪士尼, 迪斯尼) are one key."""
    out = pinyin
    for a, b in _LOOSE_SOUNDS:
        out = out.replace(a, b)
    return out


def strip_city_names(key: str, cities: frozenset[str]) -> str:
    """A normalised key without a leading city name in Chinese ("上海外滩" -> "外滩"), when at least two Chinese
    characters remain; English keys keep theirs ("shanghaimuseum" is a name, not a city plus "museum")."""
    for city in sorted(cities, key=len, reverse=True):
        if city and has_cjk(city) and key.startswith(city):
            rest = key[len(city) :]
            if len(rest) >= 2 and has_cjk(rest[:1]):
                return rest
    return key


def _words(text: str) -> list[str]:
    return (spaced(text) or normalize(text)).split()


def _sounds(key: str) -> str:
    return sound_key(pinyin_key(key)) if has_cjk(key) else sound_key(key)


def resemblance(query: str | None, name: str | None, *, partial: bool = True) -> float:
    """How much ``name`` looks like what was typed, 0-100: the best of three views (issue 20 §5.2).

    * characters: the whole keys' edit similarity ("Senaatintorri" / "Senaatintori");
    * words: each typed word against its best word of the name, a typed word of four letters or more that
      begins a word of the name counting whole (a partial name: "Tuomiokirkko" in "Helsingin tuomiokirkko",
      "esplanadi" in "Pohjoisesplanadi" does not begin it), averaged over the typed words, so one word of two
      alike is half alike ("Qwerty Plaza" / "Radisson Blu Plaza");
    * sounds: the transliteration (pinyin of Chinese, merged sounds) of both ("豫圆" / "豫园", "Waitan" / "外滩").
    Diacritics are folded in every view ("Toolo" / "Töölö"). ``partial=False`` (an address: a street named
    like the text is not a place named like it) counts only whole words."""
    from rapidfuzz import fuzz

    q, n = normalize(query), normalize(name)
    if not q or not n:
        return 0.0
    best = fuzz.ratio(q, n)
    typed, have = _words(query or ""), _words(name or "")
    if typed and have:
        per = [
            max(100.0 if partial and len(w) >= 4 and h.startswith(w) else fuzz.ratio(w, h) for h in have) for w in typed
        ]
        best = max(best, sum(per) / len(per))
    if has_cjk(q) or has_cjk(n):
        best = max(best, fuzz.ratio(_sounds(q), _sounds(n)))
        if has_cjk(q) and len(q) >= 2:  # Chinese has no spaces: the typed characters, in order, in the name
            best = max(best, 100.0 * _in_order(q, n) / len(q))
        if has_cjk(n) and len(n) >= 2 and n in q:  # the whole name and more: a city before it ("上海外滩")
            best = 100.0
    return float(best)


def _in_order(short: str, long: str) -> int:
    """How many of ``short``'s characters appear in ``long`` in the same order ("交大" in "上海交通大学": 2)."""
    pos, found = 0, 0
    for ch in short:
        at = long.find(ch, pos)
        if at >= 0:
            found, pos = found + 1, at + 1
    return found


#: words that say what kind of place it is, or where, not which one: sharing one of them ("museum", "church",
#: "Kansallis-") is no resemblance (issue 32: "National Museum of Finland" is not "The National Library of Finland")
GENERIC_WORDS = frozenset(
    "the of and at in on de la le du des der die das von van a an "
    "museum museo museet art arts gallery galleria konst konstmuseum church kirkko kyrka kyrkan cathedral "
    "domkyrka chapel kappeli kapell temple square tori torget aukio plaza park puisto parken garden "
    "puutarha station asema stationen central centre center library kirjasto bibliotek biblioteket national "
    "university yliopisto universitet hall halli hallen city kaupungin stad market kauppa theatre theater "
    "teatteri teatern palace linna slott monument memorial statue patsas hotel restaurant ravintola cafe "
    "street katu gatan road tie old vanha new uusi main modern contemporary house talo building tower bridge "
    "silta island saari harbour port finland finnish suomi suomen finlands fi".split()
)
#: parts of a Finnish or Swedish compound that say its kind ("Kansallis|museo", "Kasvi|museo", "Tuomio|kirkko")
GENERIC_PARTS = (
    "kansallis",
    "nationa",
    "taidemuseo",
    "museo",
    "museum",
    "tuomiokirkko",
    "kirkko",
    "kyrka",
    "kirjasto",
    "bibliotek",
    "teatteri",
    "teater",
    "asema",
    "tori",
    "torg",
    "aukio",
    "puisto",
    "park",
    "halli",
    "hall",
    "kappeli",
    "galleria",
    "linna",
    "talo",
)
#: the Chinese words of kinds and of the country, longest first ("大教堂" before "教堂")
GENERIC_CJK = tuple(
    sorted(
        "博物馆 美术馆 艺术 当代 教堂 大教堂 座堂 主教座堂 礼拜堂 广场 公园 植物园 车站 火车站 中央 图书馆 国家 "
        "国立 大学 剧院 市政厅 宫 纪念碑 雕像 酒店 餐厅 市场 大厦 中心 芬兰".split(),
        key=len,
        reverse=True,
    )
)


def _distinctive_word(word: str) -> str:
    """A word without the parts of a compound that only say its kind; "" when nothing else is left."""
    if word in GENERIC_WORDS:
        return ""
    for part in GENERIC_PARTS:  # a kind before or after the distinctive part, not inside it
        if word.startswith(part):
            word = word[len(part) :]
        if word.endswith(part):
            word = word[: -len(part)]
    return word if len(word) >= 3 else ""


def distinctive(text: str | None, *, cities: frozenset[str] = frozenset()) -> str:
    """What is left of a name once the words of kinds, of the country and of ``cities`` are taken out, in the
    normalised form ``resemblance`` reads ("Kasvimuseo" -> "kasvi", "National Museum of Finland" -> "")."""
    if not text:
        return ""
    folded = {normalize(c) for c in cities if c}
    if has_cjk(text):
        key = normalize(text)
        for word in (*sorted(folded, key=len, reverse=True), *GENERIC_CJK):
            key = key.replace(word, "") if word and has_cjk(word) else key
        return key
    words = folded_words(text)
    kept = [_distinctive_word(w) for w in words if w not in folded]
    return " ".join(w for w in kept if w)


def resembles_distinctly(query: str | None, name: str | None, *, cities: frozenset[str] = frozenset()) -> float:
    """How much ``name`` looks like what was typed once the words of kinds and of the city are set aside
    (``distinctive``), 0-100: a name spelt nearly the same as a whole ("Jingan Tempel"); across scripts, as
    ``resemblance`` hears it ("yu fo si" / "玉佛寺"); else the distinctive parts' ``resemblance``. When one side is
    only words of kinds or the city ("Kansallismuseo", "博物馆", "Helsinki Cathedral"), every typed word must be
    in the name ("Tuomiokirkko" in "Helsingin tuomiokirkko"), or, in Chinese, the whole text."""
    from rapidfuzz import fuzz

    q, n = normalize(query), normalize(name)
    if not q or not n:
        return 0.0
    whole = float(fuzz.ratio(q, n))
    if whole >= KIND_WORDS_MIN:
        return whole
    if has_cjk(q) != has_cjk(n):
        return resemblance(query, name)
    typed, have = distinctive(query, cities=cities), distinctive(name, cities=cities)
    if typed and have:
        return resemblance(typed, have)
    if has_cjk(q):
        return 100.0 if q in n else 0.0
    words = _words(name or "") or [n]
    per = [
        max(100.0 if len(w) >= 4 and h.startswith(w) else fuzz.ratio(w, h) for h in words)
        for w in _words(query or "") or [q]
    ]
    return min(per) if min(per) >= KIND_WORDS_MIN else 0.0


#: words of kinds alone resemble a name only when nearly the same ("Kansallismuseo" / "Kansalliskirjasto": 71)
KIND_WORDS_MIN = 85.0
