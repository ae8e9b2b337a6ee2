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
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Literal

from babel.messages.pofile import read_po

from core.config import get_settings

Lang = Literal["zh", "en"]
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


def strict_mode() -> bool:
    """Missing words raise instead of falling back: under pytest, or with the setting ``OMNI_I18N_STRICT=true``."""
    if os.environ.get("PYTEST_CURRENT_TEST"):
        return True
    return get_settings().i18n_strict


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


def messages(lang: str, domain: str, *, root: Path | None = None) -> dict[str, str]:
    """The cached catalog of ``domain`` in ``lang`` (empty when there is no file)."""
    return _cached_catalog(str(root or LOCALES_DIR), lang, domain)


def reload() -> None:
    """Forget the cached catalogs (after editing a ``.po`` file in a running process)."""
    _cached_catalog.cache_clear()


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a message (``{n:.1f}`` → ``n``)."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(text) if name}


def has(key: str, lang: str, *, root: Path | None = None) -> bool:
    return key in messages(lang, domain_of(key), root=root)


def t(key: str, lang: str | None, /, **params: object) -> str:
    """The words of ``key`` in ``lang`` ("zh" or "en"; anything else reads as English), ``params`` filled in.

    Strict mode raises ``MissingMessage`` for a key without words in ``lang`` and ``KeyError`` for a missing
    parameter; otherwise the other language is used, and a message whose words are missing in both is an empty
    string (logged), never the key."""
    return lookup(key, lang, params)


def lookup(key: str, lang: str | None, params: Mapping[str, object], *, root: Path | None = None) -> str:
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
