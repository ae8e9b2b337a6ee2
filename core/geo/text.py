"""Text normalisation shared by the offline gazetteer and the resolver."""

from __future__ import annotations

import re
import unicodedata

_PUNCT = re.compile(r"[\s\-_,，。.、;；:：'\"“”‘’()（）\[\]【】/\\·•|!?！？&＆#]+")
_CITY_PREFIX = re.compile(r"^(中国)?(上海市|上海(?=市?[\u4e00-\u9fff]{1,3}区))")
_HOUSE_NUMBER = re.compile(r"(\d+)\s*(号|號|弄|$)")


def normalize(text: str | None) -> str:
    """NFKC, case-folded, without whitespace and punctuation (CJK kept)."""
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    return _PUNCT.sub("", text)


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
