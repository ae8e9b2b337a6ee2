"""AMap's answer envelope: empty values normalised, the infocode table, its map to our exceptions, and the key kept out of every message
(AMap echoes the key in invalid-key bodies)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderMalformed,
    ProviderQuotaExceeded,
    ProviderRateLimited,
    ProviderUnavailable,
    RouteNotFound,
)
from core.geo.http import redact_secret, sanitize_body
from core.geo.ratelimit import Held, KeyHold, next_midnight, next_minute


def _norm(value: Any) -> Any:
    """AMap v3 writes absent values as ``[]`` (sometimes ``""``/``{}``): normalise them to None."""
    if value is None or value == [] or value == "" or value == {}:
        return None
    return value


def _text(value: Any) -> str | None:
    value = _norm(value)
    if value is None or isinstance(value, (list, dict)):
        return None
    return str(value).strip() or None


AUTH_CODES = frozenset({"10001", "10002", *(str(c) for c in range(10005, 10014)), "10026", "10041"})


QUOTA_CODES = frozenset({"10003", "10029", "10044", "10045", "40000", "40002", "40003"})


RATE_LIMIT_CODES = frozenset({"10004", "10014", "10015", "10016", "10019", "10020", "10021"})


CLIENT_BUG_CODES = frozenset({"20000", "20001", "20002", "20003"})


ROUTE_CODES = frozenset({"20800", "20801", "20802", "20803"})


_HINTS = {
    "10001": "the key is wrong or expired; check OMNI_AMAP_KEY (it must be a Web服务 key)",
    "10002": "the key has no permission for this service",
    "10003": "the daily quota is used up until 00:00 Asia/Shanghai",
    "10009": "the key belongs to another platform; a Web服务 key is needed",
    "10012": "the key lacks the privilege for this service",
    "10044": "the account's daily quota is used up until 00:00 Asia/Shanghai",
    "20800": "a route point lies outside mainland China",
    "20801": "no road was found near a route point",
    "20802": "no connected road joins the points",
    "20803": "the points are too far apart",
}


#: AMap's clock for its limits: the daily quota is reset at 00:00 here (docs/amap.md §1)
AMAP_ZONE = "Asia/Shanghai"
#: ACCESS_TOO_FREQUENT: the key's calls this minute are spent; lifted at the next minute
PER_MINUTE_CODE = "10004"
#: DAILY_QUERY_OVER_LIMIT, USER_DAILY_QUERY_OVER_LIMIT: lifted at 00:00 Asia/Shanghai
DAILY_CODES = frozenset({"10003", "10044"})
HELD_INFO = {
    "10004": "ACCESS_TOO_FREQUENT",
    "10003": "DAILY_QUERY_OVER_LIMIT",
    "10044": "USER_DAILY_QUERY_OVER_LIMIT",
}


def held_error(held: Held, *, endpoint: str) -> ProviderError:
    """The refusal AMap would give a call of a held key, marked as not sent (``details["not_sent"]``)."""
    exc = error_for_infocode(held.code, HELD_INFO.get(held.code), endpoint=endpoint)
    until = held.local_time(AMAP_ZONE)
    exc.message = f"{exc.message} Not asked: AMap refuses this key's calls until {until} ({AMAP_ZONE})."
    exc.args = (exc.message,)
    exc.details = {**(exc.details or {}), "held_until": until, "not_sent": True}
    return exc


def hold_after_refusal(hold: KeyHold, code: str | None) -> None:
    """A refusal that lasts holds every later call of the key: 10004 until the next minute, 10003/10044 until
    00:00 Asia/Shanghai (REST and MCP calls of one key share the hold)."""
    if code == PER_MINUTE_CODE:
        hold.hold(next_minute(hold.now()), code)
    elif code in DAILY_CODES:
        hold.hold(next_midnight(hold.now(), AMAP_ZONE), code)


def redact_key(text: str, key: str | None = None) -> str:
    """The text without the key (``key=...`` in a URL, ``"key": "..."`` in a body, or its literal value)."""
    return redact_secret(text, key)


def error_for_infocode(infocode: str | None, info: str | None, *, endpoint: str = "") -> ProviderError:
    """Map AMap's ``infocode`` to one of our exceptions (AMap's published error table)."""
    code = str(infocode or "").strip()
    name = redact_key(str(info or "UNKNOWN"))
    where = f" for {endpoint}" if endpoint else ""
    hint = _HINTS.get(code)
    tail = f": {hint}" if hint else ""
    details = {"infocode": code, "info": name, "endpoint": endpoint}
    if code in AUTH_CODES:
        return ProviderAuthError(
            f"AMap rejected the request{where} ({name}, infocode {code}){tail or ': check OMNI_AMAP_KEY'}.",
            field="amap_key",
            details=details,
        )
    if code in QUOTA_CODES:
        return ProviderQuotaExceeded(
            f"AMap quota is exhausted{where} ({name}, infocode {code}){tail}.", details=details
        )
    if code in RATE_LIMIT_CODES:
        return ProviderRateLimited(
            f"AMap is rate-limiting calls{where} ({name}, infocode {code}); retry after a pause.", details=details
        )
    if code in ROUTE_CODES:
        return RouteNotFound(f"AMap found no route{where} ({name}, infocode {code}){tail}.", details=details)
    if code in CLIENT_BUG_CODES:
        return ProviderError(
            f"AMap refused the request parameters{where} ({name}, infocode {code}); this is a client bug.",
            details=details,
        )
    if code.startswith("3"):
        return ProviderUnavailable(f"AMap's engine failed{where} ({name}, infocode {code}).", details=details)
    return ProviderError(f"AMap call failed{where} ({name}, infocode {code or 'missing'}).", details=details)


def amap_rows(data: Mapping[str, Any], key: str, *, endpoint: str) -> list[Mapping[str, Any]]:
    """The rows of a successful answer's ``key`` list: none when AMap sent none (absent, null, "" or []), else every
    row an object. Anything else breaks AMap's schema and is the service failing (``ProviderMalformed``), never "no
    such place"."""
    value = data.get(key)
    if value in (None, "", []):
        return []
    if not isinstance(value, list):
        raise ProviderMalformed(
            f"AMap's {endpoint} answer breaks its schema: {key!r} is {type(value).__name__}, not a list",
            details={"service": endpoint, "field": key, "body": sanitize_body(data)},
        )
    for i, row in enumerate(value):
        if not isinstance(row, Mapping):
            raise ProviderMalformed(
                f"AMap's {endpoint} answer breaks its schema: {key}[{i}] is {type(row).__name__}, not an object",
                details={"service": endpoint, "field": f"{key}[{i}]", "body": sanitize_body(data)},
            )
    return value


def raise_for_amap_status(data: Any, *, endpoint: str = "") -> None:
    """Raise the mapped exception unless ``data`` is a successful AMap answer.

    v3/v5 envelope: success is ``status == "1"``; v4 envelope: ``errcode == 0``.
    """
    if not isinstance(data, Mapping):
        raise ProviderMalformed(f"AMap answered{' ' + endpoint if endpoint else ''} with an unexpected body.")
    if "status" in data:
        if str(data.get("status")) == "1":
            return
        exc = error_for_infocode(_text(data.get("infocode")), _text(data.get("info")), endpoint=endpoint)
    elif "errcode" in data:
        if str(data.get("errcode")) == "0":
            return
        exc = error_for_infocode(str(data.get("errcode")), _text(data.get("errmsg")), endpoint=endpoint)
    else:
        raise ProviderMalformed(f"AMap answered{' ' + endpoint if endpoint else ''} without a status field.")
    exc.details = {**(exc.details or {}), "body": sanitize_body(data)}
    raise exc
