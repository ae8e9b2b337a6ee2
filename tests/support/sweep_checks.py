"""What a page's main view must never show a person (issue 12 §6, issue 32), shared by the browser sweep
(tests/ui/test_sweep_browser.py) and the AppTest sweep (tests/ui/test_sweep.py):

- no code (an UPPER_SNAKE word such as CLOSED_ON_DAY, a snake_case word such as local_food), no ``None``, ``True``
  or ``False``, no ``nan``, no place id of a region pack (``sh-yuyuan-garden``), no raw JSON or Python dict, no
  traceback;
- in Chinese, no sentence of the English catalog (locales/en); in English, no Chinese character, except a place's
  Chinese name in brackets beside its English one, and the name of a place the data has only in Chinese.

The pack ids and names are read from the packs' files (data/regions/*/places.csv), the sentences from the catalogs.
"""

from __future__ import annotations

import csv
import re

from core.i18n import LOCALES_DIR, read_catalog
from tests.support.paths import ROOT

CODE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|(?<![\w/.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/.-])")
SETTING = re.compile(r"^OMNI_[A-Z0-9_]+$")  # an environment variable the person sets (home's note) is not a code
NONE = re.compile(r"\bNone\b")
BOOLEAN = re.compile(r"\b(?:True|False)\b")
NAN = re.compile(r"\b(?:nan|NaN)\b")
RAW_JSON = re.compile(r"""[{\[]\s*["'][^"'\n]{1,60}["']\s*:""")
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+")
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
ID_LIKE = re.compile(r"\b[a-z]{2,4}-[a-z0-9]+(?:-[a-z0-9]+)*\b")
PLACEHOLDER = re.compile(r"\{[a-z_0-9]+\}")
IN_BRACKETS = re.compile(r"[(（]([^()（）]{1,40})[)）]")


def pack_places() -> tuple[set[str], set[str], set[str]]:
    """Every place id of the region packs, every Chinese name and alias of their places, and the Chinese names of
    the places with no English name (an English page keeps those: the data has no other)."""
    ids: set[str] = set()
    names: set[str] = set()
    only_chinese: set[str] = set()
    for path in sorted((ROOT / "data" / "regions").glob("*/places.csv")):
        with path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                ids.add(row["id"])
                names.update(n for n in [row.get("name_zh") or "", *(row.get("aliases") or "").split("|")] if n)
                if not (row.get("name_en") or "").strip() and row.get("name_zh"):
                    only_chinese.add(row["name_zh"])
    return ids, {n for n in names if CJK.search(n)}, {n for n in only_chinese if CJK.search(n)}


def english_sentences() -> set[str]:
    """Fragments of the English catalog a Chinese page must not show: each English message's text between its
    placeholders, when it is a sentence (three words or more) and not also part of the Chinese message (a brand, a
    unit, a domain)."""
    found: set[str] = set()
    for path in sorted((LOCALES_DIR / "en" / "LC_MESSAGES").glob("*.po")):
        english = read_catalog(path, "en")
        chinese = read_catalog(LOCALES_DIR / "zh" / "LC_MESSAGES" / path.name, "zh")
        for key, text in english.items():
            for fragment in PLACEHOLDER.split(text):
                fragment = fragment.strip(" .,:;·—()")
                if len(fragment.split()) >= 3 and fragment not in chinese.get(key, ""):
                    found.add(fragment)
    return found


PLACE_IDS, CHINESE_NAMES, ONLY_CHINESE_NAMES = pack_places()
ENGLISH = english_sentences()
#: the longest first, so that a name holding a shorter one is taken out whole
_ONLY_CHINESE = sorted(ONLY_CHINESE_NAMES, key=len, reverse=True)


def problems_in(text: str, lang: str) -> dict[str, list[str]]:
    """What the main view should never show, by check (an empty dict: nothing)."""
    found = {
        "code": sorted({c for c in CODE.findall(text) if not SETTING.match(c)}),  # CLOSED_ON_DAY, local_food
        "None": NONE.findall(text),
        "True/False": BOOLEAN.findall(text),
        "nan": NAN.findall(text),
        "place id": sorted({i for i in ID_LIKE.findall(text) if i in PLACE_IDS}),
        "raw JSON": RAW_JSON.findall(text),
        "traceback": TRACEBACK.findall(text),
    }
    if lang == "zh":
        found["English sentence"] = sorted(s for s in ENGLISH if s in text)
    else:
        # a place's Chinese name in brackets beside its English one ("its short alias (上海博物馆)") is allowed
        text = IN_BRACKETS.sub(lambda m: "" if m.group(1) in CHINESE_NAMES else m.group(0), text)
        for name in _ONLY_CHINESE:
            text = text.replace(name, "")
        found["Chinese"] = sorted({line.strip() for line in text.splitlines() if CJK.search(line)})
    return {check: seen for check, seen in found.items() if seen}
