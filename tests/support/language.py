"""Is an answer in one language? The words of the other language left in it once what is in no language is taken
out: links, e-mail addresses, commands and setting names, quoted input, and the names of places (a name in the
answer's language, or the only name the data has). An English answer keeps no Han character; a Chinese one no run
of two or more Latin words (a single word, a unit or a brand, is a name)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.models.region import RegionPack

_NO_LANGUAGE = re.compile(
    r"(?:https?|ftp)://\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|`[^`]*`|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"
    r"|\"[^\"]*\"|「[^」]*」|\b[a-z]+\.[a-z_.]+\b"
)
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z'’]*(?:[ \-][A-Za-z][A-Za-z'’]*)+")


def _has_han(text: str) -> bool:
    return bool(_HAN_RUN.search(text))


def names_in(pack: RegionPack, lang: str) -> list[str]:
    """The place names an answer in ``lang`` may carry: the names in ``lang`` (with the aliases in its script) and,
    for a place without a name in ``lang``, the one it has; longest first."""
    names: set[str] = set(pack.display_name.values()) | {pack.city}
    for place in pack.places:
        own = place.name_en if lang == "en" else place.name_zh
        names.add(own or place.name_zh or place.name_en)
        names.update(a for a in place.aliases if _has_han(a) == (lang == "zh"))
        if lang == "zh":  # a Latin word inside a Chinese name is part of the name (K11, iapm)
            names.add(place.name_zh)
    return sorted((n for n in names if n), key=len, reverse=True)


def foreign_words(answer: str, lang: str, names: Iterable[str]) -> list[str]:
    """The runs of the other language left in ``answer`` (empty: the answer is in ``lang`` alone)."""
    text = _NO_LANGUAGE.sub(" ", answer)
    for name in names:
        text = text.replace(name, " ")
    if lang == "en":
        return _HAN_RUN.findall(text)
    return [run for run in _LATIN_RUN.findall(text) if len(run.split()) >= 2 or "-" in run.strip("-")]
