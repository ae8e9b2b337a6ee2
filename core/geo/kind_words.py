"""A name said with a word of its kind: "Ateneumin taidemuseo", "Konstmuseet Ateneum", "Ateneum art museum" are
the place named "Ateneum", a museum (issue 32). Finnish puts the name in the genitive before the kind
("Ateneum|in taidemuseo", "Kaisanieme|n puisto", "Kiasma|n museo"), Swedish and English after it or with an "s"
("Ateneums konstmuseum"). ``name_without_kind`` gives the forms the name may have without its kind, and the kinds
of place (the packs' categories) the words allow: the resolver takes an exact match of such a form only when the
place is of that kind, so a word of kind never stands for a name (``core/route/resolver.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from core.geo.text import GENERIC_WORDS, distinctive, fold, folded_words, normalize
from core.i18n import has_cjk

_MUSEUM = frozenset({"museum"})
_CHURCH = frozenset({"temple"})
_PARK = frozenset({"park"})
_THEATRE = frozenset({"theatre"})
_SQUARE = frozenset({"landmark", "market"})
_STATION = frozenset({"station", "stop"})
_HOTEL = frozenset({"hotel"})
#: words of kind in Finnish, Swedish and English (folded, as typed without diacritics) and the categories of place
#: they name; a compound ending in one of five letters or more is of its kind too ("taidemuseo", "nykytaidemuseo")
KINDS: dict[str, frozenset[str]] = {
    **dict.fromkeys("museo museot museum museums museet konstmuseum galleria gallery galleriet".split(), _MUSEUM),
    **dict.fromkeys(
        "kirkko kyrka kyrkan church cathedral katedraali katedralen kappeli kapell kapellet chapel".split(), _CHURCH
    ),
    **dict.fromkeys("puisto puistikko park parken garden gardens puutarha tradgard tradgarden".split(), _PARK),
    **dict.fromkeys("teatteri teater teatern theatre theater ooppera opera operan".split(), _THEATRE),
    **dict.fromkeys("tori torg torget aukio square plaza plats platsen".split(), _SQUARE),
    **dict.fromkeys("asema station stationen".split(), _STATION),
    **dict.fromkeys("hotelli hotel hotellet".split(), _HOTEL),
}
#: Chinese words of kind at a name's end, longest first where one ends another ("大教堂" before "教堂")
CJK_KINDS: dict[str, frozenset[str]] = {
    **dict.fromkeys("博物馆 美术馆 艺术馆 画廊".split(), _MUSEUM),
    **dict.fromkeys("大教堂 主教座堂 座堂 教堂 礼拜堂".split(), _CHURCH),
    **dict.fromkeys("公园 花园 植物园".split(), _PARK),
    **dict.fromkeys("大剧院 剧院 歌剧院".split(), _THEATRE),
    **dict.fromkeys("广场".split(), _SQUARE),
    **dict.fromkeys("火车站 车站".split(), _STATION),
    **dict.fromkeys("酒店 饭店 宾馆".split(), _HOTEL),
}
_COMPOUND_TAIL = 5  # "tori" ends "Senaatintori", a name: only longer words of kind make a compound of that kind
_MAX_NAME_WORDS = 3


@dataclass(frozen=True)
class NameWithoutKind:
    forms: tuple[str, ...]  # the name as it may stand alone, most likely first ("ateneum", "ateneumi")
    kinds: frozenset[str]  # the categories the words of kind allow
    #: Chinese: the form is what is left of a name without its words of kind and city (``distinctive``), to be met
    #: by a place whose own name leaves the same ("奇亚斯玛美术馆" / "奇亚斯玛当代艺术博物馆"), not a whole name
    distinctive: bool = False


def kind_of(word: str) -> frozenset[str] | None:
    """The categories a folded word of kind names ("taidemuseo" -> museum), None: not a word of kind."""
    if word in KINDS:
        return KINDS[word]
    tails = [k for k in KINDS if len(k) >= _COMPOUND_TAIL and word.endswith(k) and len(word) > len(k)]
    return KINDS[max(tails, key=len)] if tails else None


def stems(word: str) -> list[str]:
    """The word and the forms it may have out of the genitive: Finnish -in, -n, -en -> -i ("Ateneumin" -> "Ateneum",
    "Kiasman" -> "Kiasma", "Kaisaniemen" -> "Kaisaniemi"), Swedish and English -s ("Ateneums"); never under four
    letters."""
    forms = [word]
    if word.endswith("in"):
        forms.append(word[:-2])
    if word.endswith("en"):
        forms.append(word[:-2] + "i")
    if word.endswith(("n", "s")):
        forms.append(word[:-1])
    return [f for f in dict.fromkeys(forms) if len(f) >= 4]


def name_without_kind(text: str | None, *, cities: frozenset[str] = frozenset()) -> NameWithoutKind | None:
    """The name ``text`` says beside its words of kind, in the forms it may stand alone in; None when the text
        has no word of kind, nothing else (or only general words: "National Museum of Finland", the city), more than
        three words of name. Chinese is read by its last word of kind (``CJK_KINDS``), the name being what
    ``core/geo/text.py``'s ``distinctive`` leaves."""
    if not text:
        return None
    if has_cjk(text):
        return _cjk_without_kind(text, cities=cities)
    words = folded_words(text)
    folded_cities = {fold(c) for c in cities if c}
    kinds: set[str] = set()
    name: list[str] = []
    for word in words:
        kind = kind_of(word)
        if kind is not None:
            kinds |= kind
        elif word not in GENERIC_WORDS and word not in folded_cities:
            name.append(word)
    if not kinds or not name or len(name) > _MAX_NAME_WORDS:
        return None
    *lead, last = name  # the genitive is on the name's last word ("Amos Andersonin taidemuseo")
    forms = tuple(" ".join([*lead, stem]) for stem in stems(last))
    return NameWithoutKind(forms=forms, kinds=frozenset(kinds)) if forms else None


def _cjk_without_kind(text: str, *, cities: frozenset[str]) -> NameWithoutKind | None:
    key = normalize(text)
    kind = next((k for k in sorted(CJK_KINDS, key=len, reverse=True) if key.endswith(k)), None)
    if kind is None:
        return None
    form = distinctive(text, cities=cities)
    return NameWithoutKind(forms=(form,), kinds=CJK_KINDS[kind], distinctive=True) if len(form) >= 2 else None
