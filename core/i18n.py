"""Words for people, in the user's language: gettext catalogs read with Babel (docs/ARCHITECTURE.md, "Language").

Every message a face shows has a key (``route.form.origin.label``) and one ``.po`` file per language and area:
``locales/<lang>/LC_MESSAGES/<domain>.po``, where the domain is the key's first segment (``route`` →
``route.po``). The key is the ``msgid``; the ``msgstr`` holds the words, with ``{name}`` placeholders filled by
``t(key, lang, name=...)``. The catalogs are read at runtime (no compile step) and cached.

A key missing in the asked language is an error under tests (strict mode: pytest is running, or
``OMNI_I18N_STRICT=true``); in production the other language's words are shown instead, and the key itself is
never shown. No Streamlit here: the dashboard (components/language.py), the CLI and the agent's replies all call
``t``.
"""

from __future__ import annotations

import logging
import os
import re
import string
import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Literal

from babel.messages.pofile import read_po

from core.models.common import Lang as Lang  # the one language type (core/models/common.py), here for the words

LANGS: tuple[Lang, ...] = ("zh", "en")
DEFAULT_LANG: Lang = "en"
LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")

log = logging.getLogger(__name__)


class MissingMessage(LookupError):
    """A key without words in the asked language (raised in strict mode only)."""


def normalize_lang(value: object) -> Lang | None:
    """``"zh"``, ``"zh-CN"``, ``"zh_Hant_TW"`` → ``"zh"``; ``"en"``, ``"en-GB"`` → ``"en"``; anything else → None."""
    text = str(value or "").strip().casefold().replace("_", "-")
    head = text.split("-", 1)[0]
    return "zh" if head == "zh" else "en" if head == "en" else None


def lang_of_locale(locale: object) -> Lang:
    """The language for a browser's locale: Chinese for any ``zh-*``, English for everything else."""
    return "zh" if normalize_lang(locale) == "zh" else "en"


def other(lang: Lang) -> Lang:
    return "en" if lang == "zh" else "zh"


# --- script and language of a text -----------------------------------------------------------------------------------
#: Han characters (the unified ideographs, extension A and the compatibility block), for regex classes: ``[{CJK}]``
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{CJK}]")
_LATIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
#: characters that carry Chinese grammar (pronouns, particles, common verbs of a request), rare inside place names
_ZH_GRAMMAR = re.compile(r"[我你您咱的了吗呢吧嘛想去请帮要在是有怎么哪把给从到就都也还吃玩看订]")
#: English words that carry grammar, never a name by themselves
_EN_GRAMMAR = frozenset(
    "i me my we us our you your it is are was be can could will would do does what how where when which who "
    "the a an to from and or of in on at for with by near about please want like go get show find".split()
)


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Han character: script detection (tokenising, name matching), not the language."""
    return bool(_CJK_CHAR.search(text))


#: what says nothing about the writer's language: links, e-mail addresses, times, figures and codes with figures
#: (T1, K11, 7pm, 2-day), taken out before the words are weighed
_NOT_LANGUAGE = re.compile(
    r"(?:https?|ftp)://\S+|www\.\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|\d{1,2}[:：.]\d{2}(?:\s*[ap]\.?m\.?\b)?|\b\d+(?:[.,]\d+)*(?:\s*[ap]\.?m\.?\b)?|[a-z]*\d[a-z\d]*",
    re.IGNORECASE,
)
_HAN_RUN = re.compile(f"[{CJK}]+")
_NAME_RUN = re.compile(r"[A-Z][A-Za-z'&.-]*(?:\s+[A-Z][A-Za-z'&.-]*)*")


def guess_lang(text: str, *, default: Lang | None = None) -> Lang:
    """The language a person wrote ``text`` in, for a reply, when no face said which (``default``, else English,
    when the text has no letters: empty, digits, punctuation, a bare link).

    Links, e-mail addresses, times, figures and codes with figures (T1, 7pm) are taken out first: they are in no
    language. Text in one script is that script's language. Mixed text is weighed, words against words, and grammar
    more than names, since the words around a quoted name show the writer's language: a run of Han characters with
    a Chinese grammar character (我 想 去 的 吗 请 …) counts ½ a character and 2 more per grammar character, a run
    without one is a name and counts 1; a Latin word counts 1 and an English function word (to, the, is, please, …)
    3, but in text with Han characters a run of capitalised words (Grand Hyatt, Apple Store) is a name and counts
    ½. Chinese wins ties. So "Take me to 外滩", "Is 浦东机场T1 open?" and "外滩 to 豫园" are English, while
    "我想去 the Bund", "官网查房 http://…", "Apple Store 营业时间" and "帮我订 Grand Hyatt 明晚" are Chinese."""
    plain = _NOT_LANGUAGE.sub(" ", unicodedata.normalize("NFKC", text or ""))
    runs = _HAN_RUN.findall(plain)
    names = 0
    if runs:  # capitalised Latin runs in Chinese text are names: counted apart, then taken out
        names = len(_NAME_RUN.findall(_HAN_RUN.sub(" ", plain)))
        plain = _NAME_RUN.sub(" ", plain)
    words = _LATIN_WORD.findall(plain.casefold())
    if not runs:
        return "en" if words else default or DEFAULT_LANG
    if not words and not names:
        return "zh"
    zh = sum(_han_weight(run) for run in runs)
    en = len(words) + 2 * sum(w in _EN_GRAMMAR for w in words) + names / 2
    return "zh" if zh >= en else "en"


def _han_weight(run: str) -> float:
    """A run of Han characters weighed as words: with grammar, ½ a character and 2 per grammar character; without,
    a name (one word)."""
    grammar = len(_ZH_GRAMMAR.findall(run))
    return len(run) / 2 + 2 * grammar if grammar else 1.0


# --- lists of words --------------------------------------------------------------------------------------------------
Separator = Literal["list", "items", "phrases", "facts", "clauses", "sentences"]
_SEPARATORS: dict[Separator, dict[Lang, str]] = {
    "list": {"zh": "、", "en": ", "},  # names and short words: 外滩、豫园 / the Bund, Yu Garden
    "items": {"zh": "、", "en": "; "},  # items that may hold a comma in English (a name with its price)
    "phrases": {"zh": "，", "en": ", "},  # facts, each a phrase: 2人，周六 / 2 people, Saturday
    "facts": {"zh": "，", "en": "; "},  # facts about one thing that may hold commas in English (hours, prices)
    "clauses": {"zh": "；", "en": "; "},  # parts of a sentence that may hold commas themselves
    "sentences": {"zh": "", "en": " "},  # whole sentences, each with its own full stop
}
_LAST_WORD: dict[str, dict[Lang, str]] = {"and": {"zh": "和", "en": "and"}, "or": {"zh": "或", "en": "or"}}


def join_words(items: Iterable[str], lang: Lang, *, sep: Separator = "list") -> str:
    """``items`` joined the way ``lang`` writes a run of them (empty items left out): ``sep`` says what they are
    (see ``_SEPARATORS``; "list": 「、」 in Chinese, ", " in English)."""
    want: Lang = normalize_lang(lang) or DEFAULT_LANG
    return _SEPARATORS[sep][want].join(i for i in items if i)


def list_sentence(items: Iterable[str], lang: Lang, *, last: Literal["and", "or"] = "and") -> str:
    """A run of names as a sentence says it, the last two joined by "and"/"or": 外滩、豫园和新天地 /
    the Bund, Yu Garden and Xintiandi (one item: itself; none: "")."""
    want: Lang = normalize_lang(lang) or DEFAULT_LANG
    names = [i for i in items if i]
    if len(names) < 2:
        return "".join(names)
    word = _LAST_WORD[last][want]
    head = join_words(names[:-1], want)
    return f"{head}{word}{names[-1]}" if want == "zh" else f"{head} {word} {names[-1]}"


class _Strictness:
    """Whether a missing word raises: set once by the composition root from the setting ``i18n_strict``
    (``core.app.context.AppServices``), not read from the settings here."""

    strict = False


_STRICTNESS = _Strictness()


def set_strict(strict: bool) -> None:
    """The process's policy for missing words (the composition root's call; ``OMNI_I18N_STRICT``)."""
    _STRICTNESS.strict = strict


def strict_mode() -> bool:
    """Missing words raise instead of falling back: under pytest, or where the root set ``OMNI_I18N_STRICT=true``."""
    if os.environ.get("PYTEST_CURRENT_TEST"):
        return True
    return _STRICTNESS.strict


def domain_of(key: str) -> str:
    return key.split(".", 1)[0]


def catalog_path(lang: str, domain: str, *, root: Path | None = None) -> Path:
    return (root or LOCALES_DIR) / lang / "LC_MESSAGES" / f"{domain}.po"


def domains(*, root: Path | None = None) -> list[str]:
    """Every domain that has a catalog in any language."""
    base = root or LOCALES_DIR
    return sorted({p.stem for p in base.glob("*/LC_MESSAGES/*.po")})


def read_catalog(path: Path, lang: str) -> dict[str, str]:
    """``{msgid: msgstr}`` of one ``.po`` file (the header and empty msgstrs left out)."""
    with path.open("rb") as fh:
        catalog = read_po(fh, locale=lang)
    found: dict[str, str] = {}
    for message in catalog:
        if not message.id or not isinstance(message.id, str):
            continue  # the header, and plural entries (not used: write one key per form)
        text = message.string if isinstance(message.string, str) else ""
        if text:
            found[message.id] = text
    return found


@lru_cache(maxsize=64)
def _cached_catalog(root: str, lang: str, domain: str) -> dict[str, str]:
    path = catalog_path(lang, domain, root=Path(root))
    return read_catalog(path, lang) if path.is_file() else {}


def messages(lang: Lang, domain: str, *, root: Path | None = None) -> dict[str, str]:
    """The cached catalog of ``domain`` in ``lang`` (empty when there is no file)."""
    return _cached_catalog(str(root or LOCALES_DIR), lang, domain)


def reload() -> None:
    """Forget the cached catalogs (after editing a ``.po`` file in a running process)."""
    _cached_catalog.cache_clear()


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a message (``{n:.1f}`` → ``n``)."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(text) if name}


def has(key: str, lang: Lang, *, root: Path | None = None) -> bool:
    return key in messages(lang, domain_of(key), root=root)


def t(key: str, lang: Lang, /, **params: object) -> str:
    """The words of ``key`` in ``lang``, ``params`` filled in (a value that is no ``Lang``, from an untyped source such
    as a session, reads as English).

    Strict mode raises ``MissingMessage`` for a key without words in ``lang`` and ``KeyError`` for a missing
    parameter; otherwise the other language is used, and a message whose words are missing in both is an empty
    string (logged), never the key."""
    return lookup(key, lang, params)


def lookup(key: str, lang: Lang, params: Mapping[str, object], *, root: Path | None = None) -> str:
    """``t`` on the catalogs under ``root`` (default: the project's ``locales/``)."""
    want: Lang = normalize_lang(lang) or DEFAULT_LANG
    domain = domain_of(key)
    text = messages(want, domain, root=root).get(key)
    if text is None:
        if strict_mode():
            raise MissingMessage(f"no {want} words for {key!r} in {catalog_path(want, domain, root=root)}")
        text = messages(other(want), domain, root=root).get(key)
        log.warning("no %s words for %r%s", want, key, "" if text is None else "; the other language is shown")
        if text is None:
            return ""
    if not params and "{" not in text:
        return text
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError):
        if strict_mode():
            raise
        log.warning("message %r could not be filled with %s", key, sorted(params))
        return text


def check_catalogs(*, root: Path | None = None) -> list[str]:
    """Every problem of the catalogs under ``root``, as sentences (none: they are complete): a file that does
    not parse, a key that is not ``domain.words`` in its domain's file, a key without words in one language, and
    placeholders that differ between the languages."""
    problems: list[str] = []
    for domain in domains(root=root):
        found: dict[str, dict[str, str]] = {}
        for lang in LANGS:
            path = catalog_path(lang, domain, root=root)
            if not path.is_file():
                problems.append(f"{path}: missing")
                found[lang] = {}
                continue
            try:
                found[lang] = read_catalog(path, lang)
                with path.open("rb") as fh:
                    every = [m.id for m in read_po(fh, locale=lang) if m.id]
            except Exception as exc:  # babel raises several kinds on a broken file
                problems.append(f"{path}: does not parse ({exc})")
                found[lang] = {}
                continue
            for key in every:
                if not isinstance(key, str) or not KEY_PATTERN.match(key) or domain_of(key) != domain:
                    problems.append(f"{path}: {key!r} is not a key of the {domain!r} domain")
                elif key not in found[lang]:
                    problems.append(f"{path}: {key!r} has no words")
        for key in sorted(set(found["zh"]) | set(found["en"])):
            missing = [lang for lang in LANGS if key not in found[lang]]
            if missing:
                problems.append(f"{key!r} has no {'/'.join(missing)} words ({domain}.po)")
            elif placeholders(found["zh"][key]) != placeholders(found["en"][key]):
                problems.append(
                    f"{key!r}: placeholders differ: zh {sorted(placeholders(found['zh'][key]))}, "
                    f"en {sorted(placeholders(found['en'][key]))}"
                )
    return problems
