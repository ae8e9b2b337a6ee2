"""The web-browse executor (SYSTEM2_WEBBROWSE): an honest HTTP fetcher, not a headless browser.

- It visits only allowlisted domains (``OMNI_BROWSE_ALLOWLIST``; a domain covers its subdomains);
  anything else is refused before a request is sent.
- Every fetch is one browser step, counted against ``max_browser_steps`` before it is made.
- It detects captcha / bot-check pages and stops with BROWSER_BLOCKED_CAPTCHA (the user can take
  over at the URL, or the agent downgrades to the knowledge base).
- From simple HTML it extracts structured evidence: availability, price, currency, cancellation
  policy (microdata / ``data-*`` attributes first, then labelled text), and same-site links marked
  as availability pages, which it may follow (one more step each).

URLs are read as a browser reads them (WHATWG, ada-url) and fetched in that normalised form; only ports 80/443
unless an allowlist entry names another; one deadline and a byte cap bound every visit.

It never runs without consent: the orchestrator checks ``allow_webbrowse`` first (gates.py).
"""

from __future__ import annotations

import ipaddress
import re
import time
from collections.abc import Callable
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Literal
from urllib.parse import urljoin

import ada_url
import httpx
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from core.agent.telemetry import Telemetry

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


class BrowseEvidence(BaseModel):
    url: str
    title: str | None = None
    availability: Literal["available", "unavailable", "unknown"] = "unknown"
    availability_text: str | None = None
    price: float | None = None
    currency: str | None = None
    cancellation_policy: str | None = None
    fetched_at: float | None = None


class BrowseBlocked(BaseModel):
    url: str
    domain: str
    blocked_type: BlockType
    takeover_url: str | None = None
    detail: str | None = None


class BrowseOutcome(BaseModel):
    evidence: list[BrowseEvidence] = Field(default_factory=list)
    blocked: BrowseBlocked | None = None
    steps: int = 0
    visited: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list, description="Followed links refused (off the allowlist)")


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

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: (v or "") for k, v in attrs_list}
        if tag in ("script", "style"):
            self._skip += 1
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

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
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


def is_captcha(html: str, status_code: int) -> bool:
    low = html.lower()
    return any(m in low for m in CAPTCHA_MARKERS) or (status_code in (403, 429) and "challenge" in low)


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
    if ev.price is None:
        m = PRICE_RX.search(text)
        if m:
            ev.price = float((m.group(1) or m.group(2)).replace(",", ""))
            ev.currency = "CNY"
    ev.currency = p.attrs.get("data-currency") or p.attrs.get("itemprop-priceCurrency") or ev.currency
    cancel = p.attrs.get("data-cancellation-policy") or p.attrs.get("itemprop-cancellationPolicy")
    if not cancel:
        m = CANCEL_RX.search(text)
        cancel = m.group(1).strip() if m else None
    ev.cancellation_policy = cancel
    return ev, p.links, p


class BrowserExecutor:
    """Fetches allowlisted pages within one deadline and a byte cap; see the module docstring."""

    def __init__(
        self,
        *,
        allowlist: list[str],
        client: httpx.Client | None = None,
        timeout_s: float = 8.0,
        max_bytes: int = 2_000_000,
        telemetry: Telemetry | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.allowlist = list(allowlist)
        self._client = client  # built lazily: most requests never browse
        self._timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.telemetry = telemetry
        self._clock = clock

    def _block(self, out: BrowseOutcome, url: str, kind: BlockType, detail: str | None = None) -> BrowseOutcome:
        parsed = parse_web_url(url)
        domain = parsed.host if parsed else ""
        out.blocked = BrowseBlocked(
            url=url[:500],
            domain=domain,
            blocked_type=kind,
            takeover_url=url if kind in ("CAPTCHA", "BUDGET") and parsed else None,
            detail=detail,
        )
        if self.telemetry is not None:
            self.telemetry.webbrowse_blocked(domain=domain, blocked_type=kind)
        return out

    def _fetch(
        self, href: str, deadline: float, clock: Callable[[], float], left: float
    ) -> tuple[int, str] | Literal["TIMEOUT", "TOO_LARGE"]:
        """(status, text) of one GET read as a stream, or a block reason: TIMEOUT past the deadline (checked
        between chunks, so a page dripped a byte at a time cannot hold the visit), TOO_LARGE past the cap."""
        if self._client is None:
            self._client = httpx.Client(
                follow_redirects=False, headers={"User-Agent": "OmniTravelAgent/0.1 (+consented lookup)"}
            )
        body = bytearray()
        with self._client.stream("GET", href, timeout=min(self._timeout_s, left), follow_redirects=False) as resp:
            if resp.is_redirect:
                return resp.status_code, resp.headers.get("location") or ""
            for chunk in resp.iter_bytes():
                body.extend(chunk)
                if len(body) > self.max_bytes:
                    return "TOO_LARGE"
                if clock() > deadline:
                    return "TIMEOUT"
            encoding = resp.encoding or "utf-8"
            return resp.status_code, bytes(body).decode(encoding, errors="replace")

    def run(
        self, start_url: str, *, max_steps: int, follow_availability: bool = True, max_seconds: float | None = None
    ) -> BrowseOutcome:
        """Visit ``start_url`` (and same-site availability links) within ``max_steps`` fetches and one deadline
        (``max_seconds``, else the executor's timeout, for the whole visit). A redirect is one more step, to an
        allowlisted URL only; a redirect elsewhere, or to another scheme, is refused, never followed."""
        out = BrowseOutcome()
        clock = self._clock or time.monotonic
        deadline = clock() + (max_seconds if max_seconds is not None else self._timeout_s)
        queue = [start_url]
        required = {start_url}  # the start page and the redirects it leads to: refusing them blocks the visit
        seen: set[str] = set()
        while queue:
            url = queue.pop(0)
            target = parse_web_url(url)
            key = target.href if target else url
            if key in seen:
                continue
            seen.add(key)
            if not domain_allowed(url, self.allowlist) or target is None:
                if url in required:
                    return self._block(out, url, "NOT_ALLOWLISTED")
                out.skipped.append(url[:500])  # a link elsewhere: never fetched, the visit goes on
                if self.telemetry is not None:
                    self.telemetry.webbrowse_blocked(
                        domain=target.host if target else "", blocked_type="NOT_ALLOWLISTED"
                    )
                continue
            if out.steps >= max_steps:
                return self._block(out, target.href, "BUDGET", detail=f"max_browser_steps={max_steps}")
            left = deadline - clock()
            if left <= 0:
                return self._block(out, target.href, "BUDGET", detail="the visit's time is up")
            out.steps += 1
            out.visited.append(target.href)
            try:
                fetched = self._fetch(target.href, deadline, clock, left)
            except httpx.InvalidURL:  # httpx reads a Location before we do; one it cannot parse is not http(s)
                return self._block(out, target.href, "NOT_ALLOWLISTED", detail="a redirect to a non-http(s) URL")
            except httpx.HTTPError as exc:
                return self._block(out, target.href, "HTTP_ERROR", detail=type(exc).__name__)
            if fetched == "TIMEOUT":
                return self._block(out, target.href, "BUDGET", detail="the visit's time is up")
            if fetched == "TOO_LARGE":
                return self._block(out, target.href, "TOO_LARGE", detail=f"over {self.max_bytes} bytes")
            status, text = fetched
            if 300 <= status < 400:
                if not text:
                    return self._block(out, target.href, "HTTP_ERROR", detail=f"HTTP {status} without a location")
                next_url = urljoin(target.href, text)
                if url in required:
                    required.add(next_url)
                queue.insert(0, next_url)
                continue
            if is_captcha(text, status):
                return self._block(out, target.href, "CAPTCHA")
            if status >= 400:
                return self._block(out, target.href, "HTTP_ERROR", detail=f"HTTP {status}")
            ev, links, _ = extract_evidence(target.href, text)
            ev.fetched_at = round(time.time(), 3)
            if ev.availability != "unknown" or ev.price is not None or ev.cancellation_policy:
                out.evidence.append(ev)
            if follow_availability:
                for href, role in links:
                    if role.lower() in ("availability", "booking", "rooms"):
                        queue.append(urljoin(target.href, href))
        return out
