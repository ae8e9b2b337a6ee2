"""What the browse executor holds to: which URLs it may visit (the allowlist, read as a browser reads a URL), what
a captcha page looks like, and the facts it reads from a page (schema.org JSON-LD offers first, then microdata and
``data-*`` attributes, then labelled text), with the models of its evidence and its outcome."""

from __future__ import annotations

import ipaddress
import json
import re
from html.parser import HTMLParser
from typing import Any, Literal

import ada_url
from pydantic import BaseModel, Field

CAPTCHA_MARKERS = (
    "captcha",
    "g-recaptcha",
    "h-captcha",
    "hcaptcha",
    "cf-challenge",
    "challenge-form",
    "验证码",
    "安全验证",
    "人机验证",
    "滑块验证",
    "are you a robot",
    "verify you are human",
    "unusual traffic",
)
AVAILABLE_WORDS = re.compile(
    r"(有房|可预订|可预约|有票|余\s*\d+|尚有|available|in stock|rooms? left|tickets? left)", re.I
)
UNAVAILABLE_WORDS = re.compile(
    r"(满房|售罄|已满|无房|无票|约满|sold out|fully booked|no availability|unavailable)", re.I
)
PRICE_RX = re.compile(
    r"(?:¥|￥|CNY|RMB|人民币)\s*([0-9][0-9,]*(?:\.[0-9]+)?)|([0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:元|CNY|RMB)", re.I
)
CANCEL_RX = re.compile(r"(?:取消政策|退改政策|退订政策|cancell?ation policy)\s*[:：]?\s*([^\n<]{3,160})", re.I)

BlockType = Literal["NOT_ALLOWLISTED", "CAPTCHA", "BUDGET", "HTTP_ERROR", "TOO_LARGE"]


class BrowseOffer(BaseModel):
    """One offer a page publishes (a room for a night, a table at a time, a seat class of a show), as the page
    states it: nothing is filled in that the page did not say."""

    name: str | None = None
    alternate_name: str | None = Field(default=None, description="the page's other name for it (often English)")
    item: str | None = Field(default=None, description="what the offer belongs to (the show, the hotel)")
    price: float | None = None
    currency: str | None = None
    date: str | None = Field(default=None, description="the offer's date (validFrom / the event's start)")
    availability: Literal["available", "unavailable", "unknown"] = "unknown"
    left: int | None = Field(default=None, description="rooms, tables or seats left, when stated")


class BrowseEvidence(BaseModel):
    url: str
    title: str | None = None
    availability: Literal["available", "unavailable", "unknown"] = "unknown"
    availability_text: str | None = None
    price: float | None = None
    currency: str | None = None
    cancellation_policy: str | None = None
    offers: list[BrowseOffer] = Field(default_factory=list)
    source: str = Field(default="web", description="the page's own label of its data (e.g. demo-venue-site)")
    screenshot_path: str | None = None
    screenshot_sha256: str | None = None
    fetched_at: float | None = None


class BrowseHop(BaseModel):
    """One request of a visit as the network guard saw it."""

    url: str
    outcome: Literal["fetched", "redirect", "refused"]
    status: int | None = None
    addresses: list[str] = Field(default_factory=list, description="what the host resolved to")
    detail: str | None = None


class BrowseBlocked(BaseModel):
    url: str
    domain: str
    blocked_type: BlockType
    takeover_url: str | None = None
    detail: str | None = Field(default=None, description="the executor's own note (for logs, never for a person)")
    http_status: int | None = Field(default=None, description="the site's HTTP status (HTTP_ERROR from the site)")
    refused: str | None = Field(
        default=None,
        description="what the allowlist did not allow (NOT_ALLOWLISTED): the host, host:port when only the port "
        "is not allowed, or the URL itself when it is no http(s) URL to a host",
    )


class BrowseOutcome(BaseModel):
    evidence: list[BrowseEvidence] = Field(default_factory=list)
    blocked: BrowseBlocked | None = None
    steps: int = 0
    visited: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list, description="Followed links refused (off the allowlist)")
    hops: list[BrowseHop] = Field(default_factory=list, description="every request of the visit, refused ones too")


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: str | None = None
        self._in_title = False
        self._skip = 0
        self.text: list[str] = []
        self.attrs: dict[str, str] = {}
        self.links: list[tuple[str, str]] = []  # (href, role)
        self._item: str | None = None
        self._in_ld = False
        self.json_ld: list[str] = []
        self.source: str | None = None

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: (v or "") for k, v in attrs_list}
        if tag in ("script", "style"):
            self._skip += 1
            if attrs.get("type", "").lower() == "application/ld+json":
                self._in_ld = True
                self.json_ld.append("")
        if tag == "title":
            self._in_title = True
        for key in ("data-availability", "data-price", "data-currency", "data-cancellation-policy"):
            if key in attrs and key not in self.attrs:
                self.attrs[key] = attrs[key]
        prop = attrs.get("itemprop")
        if prop in ("availability", "price", "priceCurrency", "cancellationPolicy"):
            if attrs.get("content"):
                self.attrs.setdefault(f"itemprop-{prop}", attrs["content"])
            else:
                self._item = prop
        if tag == "a" and attrs.get("href"):
            role = attrs.get("data-role") or attrs.get("rel") or ""
            self.links.append((attrs["href"], role))
        if tag == "meta" and attrs.get("name", "").lower() in ("captcha", "challenge"):
            self.attrs["meta-captcha"] = "1"
        if tag == "meta" and attrs.get("name", "").lower() == "omni:source" and attrs.get("content"):
            self.source = attrs["content"][:80]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
            self._in_ld = False
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_ld:
            self.json_ld[-1] += data
        if self._in_title:
            self.title = (self.title or "") + data.strip()
        if self._item:
            self.attrs.setdefault(f"itemprop-{self._item}", data.strip())
            self._item = None
        if not self._skip and data.strip():
            self.text.append(data.strip())


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text.strip("[]"))
        return True
    except ValueError:
        return False


DEFAULT_PORTS = {"http": 80, "https": 443}


class WebURL(BaseModel):
    """A URL as a browser reads it (WHATWG URL Standard, via ada-url): the form that is checked is the form
    that is fetched, so backslashes, userinfo, case, dots and IP spellings cannot say two things."""

    href: str
    scheme: str
    host: str
    port: int
    has_credentials: bool


def parse_web_url(url: str) -> WebURL | None:
    """http(s) URLs only; None for anything a browser would not fetch as such (data:, javascript:, junk)."""
    try:
        parsed = ada_url.URL(str(url).strip())
    except ValueError:
        return None
    scheme = parsed.protocol.rstrip(":").lower()
    if scheme not in DEFAULT_PORTS or not parsed.hostname:
        return None
    host = parsed.hostname.lower().strip("[]").rstrip(".")
    port = int(parsed.port) if parsed.port else DEFAULT_PORTS[scheme]
    return WebURL(
        href=parsed.href, scheme=scheme, host=host, port=port, has_credentials=bool(parsed.username or parsed.password)
    )


def _entry(entry: str) -> tuple[str, str | None]:
    """An allowlist entry: ``host`` (ports 80/443), ``host:PORT`` or ``host:*`` (any port)."""
    entry = entry.strip().lower().lstrip(".")
    if entry.startswith("["):  # [::1]:8080
        host, _, rest = entry[1:].partition("]")
        return host, rest.lstrip(":") or None
    if entry.count(":") == 1:
        host, port = entry.split(":")
        return host.rstrip("."), port or None
    return entry.rstrip("."), None


def domain_allowed(url: str, allowlist: list[str]) -> bool:
    """Whether ``url`` is http(s), without credentials, to an allowlisted host on an allowed port.

    A domain covers its subdomains; an IP literal covers only itself. A bare entry allows the standard ports
    (80, 443); ``host:PORT`` allows that port, ``host:*`` any port."""
    target = parse_web_url(url)
    if target is None or target.has_credentials:
        return False
    for raw in allowlist:
        host, port = _entry(raw)
        if not host:
            continue
        host_ok = target.host == host or (
            not _is_ip(host) and not _is_ip(target.host) and target.host.endswith("." + host)
        )
        if not host_ok:
            continue
        if port == "*" or (port is None and target.port in DEFAULT_PORTS.values()) or port == str(target.port):
            return True
    return False


def refused_target(url: str, allowlist: list[str]) -> str:
    """What of ``url`` the allowlist does not allow, to be named in the refusal: ``host:port`` when the host is
    allowed on other ports only, else the host; the URL itself (clipped) when it is no http(s) URL to a host or
    carries credentials."""
    target = parse_web_url(url)
    if target is None or target.has_credentials:  # no URL to a host; or one carrying a name and password
        text = " ".join(str(url).split())
        return text if len(text) <= 80 else text[:79] + "…"
    host = f"[{target.host}]" if ":" in target.host else target.host
    for raw in allowlist:
        allowed, _ = _entry(raw)
        if allowed and (
            target.host == allowed
            or (not _is_ip(allowed) and not _is_ip(target.host) and target.host.endswith("." + allowed))
        ):
            return f"{host}:{target.port}"  # the host is on the list, this port is not
    return host


def is_captcha(html: str, status_code: int) -> bool:
    low = html.lower()
    return any(m in low for m in CAPTCHA_MARKERS) or (status_code in (403, 429) and "challenge" in low)


SCHEMA_AVAILABLE = ("instock", "limitedavailability", "onlineonly", "instoreonly", "presale", "preorder")
SCHEMA_UNAVAILABLE = ("soldout", "outofstock", "discontinued", "backorder")


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", "").strip())
        except ValueError:
            return None
    return None


def _text(value: Any) -> str | None:
    return value.strip()[:200] if isinstance(value, str) and value.strip() else None


def _schema_availability(value: Any) -> Literal["available", "unavailable", "unknown"]:
    word = str(value or "").rsplit("/", 1)[-1].lower()
    if word in SCHEMA_AVAILABLE:
        return "available"
    if word in SCHEMA_UNAVAILABLE:
        return "unavailable"
    return "unknown"


def _types(node: dict[str, Any]) -> set[str]:
    kind = node.get("@type")
    return {str(k) for k in (kind if isinstance(kind, list) else [kind]) if k}


def _offer(node: dict[str, Any], parent: dict[str, Any] | None) -> BrowseOffer:
    item = node.get("itemOffered")
    left = node.get("inventoryLevel")
    left_value = _number(left.get("value")) if isinstance(left, dict) else _number(left)
    return BrowseOffer(
        name=_text(node.get("name")) or (_text(item.get("name")) if isinstance(item, dict) else None),
        alternate_name=_text(node.get("alternateName"))
        or (_text(item.get("alternateName")) if isinstance(item, dict) else None),
        item=_text(parent.get("name")) if parent else None,
        price=_number(node.get("price")),
        currency=_text(node.get("priceCurrency")),
        date=_text(node.get("validFrom")) or (_text(parent.get("startDate")) if parent else None),
        availability=_schema_availability(node.get("availability")),
        left=int(left_value) if left_value is not None else None,
    )


def json_ld_offers(blocks: list[str]) -> list[BrowseOffer]:
    """Every schema.org Offer in the page's JSON-LD blocks, each with the thing it belongs to (an Event's name and
    start, a Hotel's name). A block that is not JSON is skipped: a page's mistake is not a reason to stop."""
    found: list[BrowseOffer] = []

    def walk(node: Any, parent: dict[str, Any] | None, depth: int) -> None:
        if depth > 12:
            return
        if isinstance(node, list):
            for child in node:
                walk(child, parent, depth + 1)
            return
        if not isinstance(node, dict):
            return
        if "Offer" in _types(node):
            found.append(_offer(node, parent))
            return
        here = node if _types(node) & {"Event", "Hotel", "Restaurant", "Product", "MenuItem"} else parent
        for key, child in node.items():
            if key != "@context":
                walk(child, here, depth + 1)

    for block in blocks:
        try:
            walk(json.loads(block), None, 0)
        except ValueError:
            continue
    return found[:200]


def extract_evidence(url: str, html: str) -> tuple[BrowseEvidence, list[tuple[str, str]], _PageParser]:
    p = _PageParser()
    p.feed(html)
    text = "\n".join(p.text)
    ev = BrowseEvidence(url=url, title=p.title)
    avail = (p.attrs.get("data-availability") or p.attrs.get("itemprop-availability") or "").lower()
    if avail:
        ev.availability_text = avail
        if (
            any(w in avail for w in ("instock", "in stock", "available", "有房", "可预订"))
            and "unavailable" not in avail
        ):
            ev.availability = "available"
        elif any(w in avail for w in ("soldout", "sold out", "outofstock", "unavailable", "满房", "售罄")):
            ev.availability = "unavailable"
    if ev.availability == "unknown":
        if m := UNAVAILABLE_WORDS.search(text):
            ev.availability, ev.availability_text = "unavailable", m.group(0)
        elif m := AVAILABLE_WORDS.search(text):
            ev.availability, ev.availability_text = "available", m.group(0)
    price = p.attrs.get("data-price") or p.attrs.get("itemprop-price")
    if price:
        try:
            ev.price = float(price.replace(",", ""))
        except ValueError:
            ev.price = None
    if ev.price is None and not p.json_ld:  # a page with structured offers: its prices are those, not its text
        m = PRICE_RX.search(text)
        if m:
            ev.price = float((m.group(1) or m.group(2)).replace(",", ""))
            ev.currency = "CNY"
    ev.currency = p.attrs.get("data-currency") or p.attrs.get("itemprop-priceCurrency") or ev.currency
    cancel = p.attrs.get("data-cancellation-policy") or p.attrs.get("itemprop-cancellationPolicy")
    for block in p.json_ld if not cancel else []:  # structured before labelled text
        m = re.search(r'"cancellationPolicy"\s*:\s*"([^"]{3,300})"', block)
        if m:
            cancel = m.group(1)
            break
    if not cancel:
        m = CANCEL_RX.search(text)
        cancel = m.group(1).strip() if m else None
    ev.cancellation_policy = cancel
    ev.offers = json_ld_offers(p.json_ld)
    if ev.offers:
        states = {o.availability for o in ev.offers}
        ev.availability = (
            "available" if "available" in states else ("unavailable" if states == {"unavailable"} else "unknown")
        )
    ev.source = p.source or "web"
    return ev, p.links, p
