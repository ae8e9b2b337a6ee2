"""A trip in a link (issue 12 §4): the request a page planned, encoded into one URL-safe query parameter, and
read back with every check a hostile or damaged link needs.

A token is ``<version>.<body>``: ``body`` is the URL-safe base64 (no padding) of the zlib-compressed canonical
JSON ``{"k": kind, "d": data}``. ``kind`` says which page the trip belongs to (``route``: a RoutePlanRequest and
its region; ``trip``: a TripRequest, the edits applied to its plan and its day orders). Reading a token never trusts it: the
token's length and the decompressed size are capped before JSON is parsed (no zip bomb), an unknown version, a
truncated or altered body, another page's kind and data the models refuse are each a ``ShareError`` with its own
code; the words for people are chosen by the pages (``common.share.error.*``). No Streamlit here.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import zlib
from datetime import date, time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints, TypeAdapter, ValidationError

from core.errors import OmniError
from core.models.common import EARLIEST_PLAN_DATE, LATEST_PLAN_DATE, REGION_NAME_PATTERN
from core.models.halfday.goal import ExactWindow
from core.models.halfday.plans import HalfDayRequest
from core.models.itinerary import TripRequest, UserEdit
from core.models.route import RoutePlanRequest

VERSION = "1"
#: the longest token read or written (a URL stays well under the 8 KB most servers and browsers accept)
MAX_TOKEN_CHARS = 6000
#: the largest decompressed payload read (bytes of JSON); a bigger one is refused before it is parsed
MAX_PAYLOAD_BYTES = 64_000
#: the most itinerary edits a link carries
MAX_SHARED_EDITS = 30
#: arrays and objects inside each other; a real trip nests about 6 deep
MAX_NESTING = 16

Kind = Literal["route", "trip", "halfday"]
_BODY = re.compile(r"^[A-Za-z0-9_-]+$")
_ISO_DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_HHMM = re.compile(r"^[0-2][0-9]:[0-5][0-9]$")
_EDITS = TypeAdapter(list[UserEdit])
#: each day's visits by place key, in order (the plan on screen)
DayOrders = list[list[Annotated[str, StringConstraints(min_length=1, max_length=80)]]]
_ORDERS: TypeAdapter[DayOrders] = TypeAdapter(DayOrders)


class ShareError(OmniError, ValueError):
    """A link that cannot be read or written. Codes: SHARE_CORRUPT (not a token, truncated or altered),
    SHARE_VERSION (written by another version of the format), SHARE_TOO_LONG (the token), SHARE_TOO_LARGE (the
    decompressed payload), SHARE_KIND (another page's link), SHARE_INVALID (the trip breaks the request's rules)."""

    code = "SHARE_CORRUPT"


def canonical_json(data: Any) -> str:
    """One spelling of ``data``: sorted keys, no spaces, UTF-8 kept (the same request → the same text)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(*parts: Any) -> str:
    """A short, stable key of JSON-able parts (a request's dump, a provider name, a pack's data date)."""
    return hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).hexdigest()


def encode(kind: Kind, data: dict[str, Any]) -> str:
    """The token of ``data`` for the page ``kind``; ShareError(SHARE_TOO_LONG) when it would not fit a link."""
    raw = canonical_json({"k": kind, "d": data}).encode("utf-8")
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise ShareError(f"the trip is {len(raw)} bytes, more than a link carries", code="SHARE_TOO_LARGE")
    body = base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode("ascii")
    token = f"{VERSION}.{body}"
    if len(token) > MAX_TOKEN_CHARS:
        raise ShareError(f"the link would be {len(token)} characters long", code="SHARE_TOO_LONG")
    return token


def decode(token: Any, *, kind: Kind) -> dict[str, Any]:
    """The data of a token written by ``encode`` for ``kind``; a ShareError with a code otherwise."""
    if not isinstance(token, str) or not token.strip():
        raise ShareError("the link carries no trip")
    token = token.strip()
    if len(token) > MAX_TOKEN_CHARS:
        raise ShareError(f"the link's trip is {len(token)} characters long", code="SHARE_TOO_LONG")
    version, dot, body = token.partition(".")
    if not dot or not (version.isascii() and version.isdigit()) or len(version) > 3:
        raise ShareError("the link's trip is not in a known format")
    if version != VERSION:
        raise ShareError(f"the link was made by format version {version}", code="SHARE_VERSION")
    if not _BODY.match(body):
        raise ShareError("the link's trip holds characters a link never has")
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_PAYLOAD_BYTES + 1)
    except (binascii.Error, ValueError, zlib.error):
        raise ShareError("the link's trip is damaged") from None
    if len(raw) > MAX_PAYLOAD_BYTES or inflater.unconsumed_tail:
        raise ShareError("the link's trip is larger than a link may carry", code="SHARE_TOO_LARGE")
    if not inflater.eof or inflater.unused_data:
        raise ShareError("the link's trip is cut short or has extra bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ShareError("the link's trip is damaged") from None
    if _nesting_depth(text) > MAX_NESTING:  # a few hundred bytes of "[[[[…" would exhaust the parser's recursion
        raise ShareError("the link's trip is nested deeper than a trip is")
    try:
        envelope = json.loads(text)
    except (ValueError, RecursionError):
        raise ShareError("the link's trip is damaged") from None
    if not isinstance(envelope, dict) or not isinstance(envelope.get("d"), dict):
        raise ShareError("the link's trip is damaged")
    if envelope.get("k") != kind:
        raise ShareError(f"the link is for another page ({str(envelope.get('k'))[:20]})", code="SHARE_KIND")
    data: dict[str, Any] = envelope["d"]
    return data


def _nesting_depth(text: str) -> int:
    """How deeply JSON arrays and objects nest in ``text`` (brackets inside strings do not count)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _invalid(exc: Exception) -> ShareError:
    message = exc.message if isinstance(exc, OmniError) else str(exc).splitlines()[0]
    return ShareError(f"the link's trip breaks the request's rules: {message[:200]}", code="SHARE_INVALID")


# --- the route planner ---------------------------------------------------------------------------------------
def route_token(request: RoutePlanRequest, *, region: str | None) -> str:
    """The link token of a route plan's request (only the fields that differ from their defaults) and region."""
    data: dict[str, Any] = {"q": request.model_dump(mode="json", exclude_defaults=True)}
    if region:
        data["r"] = region
    return encode("route", data)


def route_from_token(token: Any) -> tuple[RoutePlanRequest, str | None]:
    """The request and region a route link carries, checked by RoutePlanRequest; ShareError otherwise."""
    data = decode(token, kind="route")
    region = data.get("r")
    if region is not None and not (isinstance(region, str) and re.fullmatch(REGION_NAME_PATTERN, region)):
        raise ShareError("the link names no region", code="SHARE_INVALID")
    try:
        return RoutePlanRequest.model_validate(data.get("q")), region
    except (ValidationError, OmniError) as exc:
        raise _invalid(exc) from None


# --- the itinerary -------------------------------------------------------------------------------------------
def trip_token(
    request: TripRequest, edits: list[dict[str, Any]] | None = None, *, orders: DayOrders | None = None
) -> str:
    """The link token of an itinerary's request, the edits applied to its plan, in the order applied, and the plan's
    day orders (each day's visits by place key, as on screen)."""
    return encode("trip", trip_data(request, edits, orders=orders))


def trip_data(
    request: TripRequest, edits: list[dict[str, Any]] | None = None, *, orders: DayOrders | None = None
) -> dict[str, Any]:
    """What an itinerary link carries, as JSON: the request (fields that differ from their defaults), the edits
    (checked by UserEdit; one spelling per edit, so equal trips give equal data) and the day orders (``o``: place
    keys, absolute facts, so a new session lays the days out as they were even where a solver answers otherwise)."""
    typed = _EDITS.validate_python(list(edits or []))
    if len(typed) > MAX_SHARED_EDITS:
        raise ShareError(f"{len(typed)} edits are more than a link carries", code="SHARE_TOO_LARGE")
    data: dict[str, Any] = {"t": request.model_dump(mode="json", exclude_defaults=True)}
    if typed:
        data["e"] = _EDITS.dump_python(typed, mode="json", exclude_none=True)
    if orders is not None:
        data["o"] = _ORDERS.dump_python(_ORDERS.validate_python(orders), mode="json")
    return data


def trip_from_token(token: Any) -> tuple[TripRequest, list[dict[str, Any]], DayOrders | None]:
    """The TripRequest, the edits (UserEdit dicts, as the page keeps them) and the day orders (None: a link made
    before links carried them) an itinerary link carries."""
    data = decode(token, kind="trip")
    edits = data.get("e") or []
    if not isinstance(edits, list):
        raise ShareError("the link's edits are not a list", code="SHARE_INVALID")
    if len(edits) > MAX_SHARED_EDITS:
        raise ShareError("the link carries too many edits", code="SHARE_TOO_LARGE")
    try:
        request = TripRequest.model_validate(data.get("t"))
        typed = _EDITS.validate_python(edits)
        orders = _ORDERS.validate_python(data["o"]) if "o" in data else None
    except (ValidationError, OmniError) as exc:
        raise _invalid(exc) from None
    if orders is not None and len(orders) != len(request.days):
        raise ShareError("the link's day orders do not match its days", code="SHARE_INVALID")
    return request, [_page_edit(edit.model_dump(exclude_none=True)) for edit in typed], orders


def _page_edit(edit: dict[str, Any]) -> dict[str, Any]:
    """An edit as the itinerary page writes it (a lock's time as ``HH:MM``)."""
    return {k: (f"{v:%H:%M}" if isinstance(v, time) else v) for k, v in edit.items()}


# --- the half-day planner ------------------------------------------------------------------------------------
class HalfDayLink(BaseModel):
    """What a half-day link carries: the goal as written, the start place, the region and the window the plans
    were made for, absolute (a day and its local start and end), never a relative word read again later (issue 22:
    "tomorrow afternoon" moved a day on each opening). ``legacy_day``: a link made before windows were kept (it
    holds only the day the goal was read for)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    goal: str
    origin: str | None = None
    region: str | None = None
    window: ExactWindow | None = None
    legacy_day: date | None = None


def halfday_token(*, goal: str, origin: str | None, region: str | None, window: ExactWindow | None) -> str:
    """The link token of a half-day goal: the sentence, the start place, the region and the resolved window."""
    data: dict[str, Any] = {"g": goal}
    if origin:
        data["o"] = origin
    if region:
        data["r"] = region
    if window is not None:
        data["w"] = {"d": window.date.isoformat(), "s": f"{window.start:%H:%M}", "e": f"{window.end:%H:%M}"}
    return encode("halfday", data)


def halfday_from_token(token: Any) -> HalfDayLink:
    """The half-day link of a token, checked by HalfDayRequest and ExactWindow; ShareError otherwise. A link of the
    earlier format (a day ``d``, no window) comes back with ``legacy_day``."""
    data = decode(token, kind="halfday")
    try:
        request = HalfDayRequest.model_validate(
            {"goal": data.get("g"), "origin": data.get("o"), "region": data.get("r")}
        )
        window = _window(data.get("w"))
        day = data.get("d")
        if day is not None and not (isinstance(day, str) and _ISO_DAY.match(day)):
            raise ValueError("the day is not YYYY-MM-DD")
        legacy_day = date.fromisoformat(day) if day is not None and window is None else None
    except (ValidationError, OmniError, TypeError, ValueError) as exc:
        raise _invalid(exc) from None
    for day_ in (legacy_day, window.date if window else None):
        if day_ is not None and not EARLIEST_PLAN_DATE <= day_ <= LATEST_PLAN_DATE:
            raise ShareError(f"the link's day {day_} is outside the dates a plan can cover", code="SHARE_INVALID")
    return HalfDayLink(
        goal=request.goal, origin=request.origin, region=request.region, window=window, legacy_day=legacy_day
    )


def _window(raw: Any) -> ExactWindow | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) != {"d", "s", "e"}:
        raise ValueError("the window is not a day with a start and an end")
    if not (isinstance(raw["d"], str) and _ISO_DAY.match(raw["d"])):
        raise ValueError("the window's day is not YYYY-MM-DD")
    if not all(isinstance(raw[k], str) and _HHMM.match(raw[k]) for k in ("s", "e")):
        raise ValueError("the window's times are not HH:MM")
    window = ExactWindow(
        date=date.fromisoformat(raw["d"]), start=time.fromisoformat(raw["s"]), end=time.fromisoformat(raw["e"])
    )
    if window.end <= window.start:
        raise ValueError("the window ends before it starts")
    return window
