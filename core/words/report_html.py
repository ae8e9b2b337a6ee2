"""The HTML report's small parts (core/words/route_export.py and route_export_own.py): escaped text, figures in
km and minutes, signed differences, headings and table headers from the catalogs."""

from __future__ import annotations

import html
import re

from core.i18n import Lang, t
from core.models.common import strip_invisible

# Schemes a deep-link button may point to; anything else (javascript:, data:, file:, ...) is dropped.
ALLOWED_LINK_SCHEMES = frozenset({"http", "https", "amapuri", "iosamap"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def e(value: object) -> str:
    """Text for the page: escaped, without bidi overrides or other invisible characters (a name that would display
    reversed)."""
    return html.escape(strip_invisible("" if value is None else str(value)), quote=True)


def km(metres: int | float) -> str:
    return f"{metres / 1000:.2f}"


def minutes(seconds: int | float) -> str:
    return f"{seconds / 60:.1f}"


def signed(value: float, fmt: str) -> str:
    text = format(value, fmt)
    return text if text.startswith("-") or float(text) == 0 else "+" + text


def h2(key: str, lang: Lang) -> str:
    return f"<h2>{e(t(key, lang))}</h2>"


def th(keys: list[str], lang: Lang) -> str:
    return "".join(f"<th>{e(t(key, lang))}</th>" for key in keys)


def safe_href(link: str | None) -> str | None:
    """``link`` if its scheme is allowed for a button, else None (javascript:, data:, relative ...)."""
    if not link or not isinstance(link, str):
        return None
    # Browsers ignore control characters and whitespace inside a scheme ("java\tscript:"); our links
    # never contain any, so reject them outright instead of guessing how a browser reads them.
    if any(ord(c) < 0x21 or c == "\x7f" for c in link):
        return None
    match = _SCHEME.match(link)
    if not match or match.group(1).lower() not in ALLOWED_LINK_SCHEMES:
        return None
    return link
