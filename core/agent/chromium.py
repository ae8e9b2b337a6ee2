"""Headless Chromium for the browse executor: one browser process per server, and the network guard every visit
runs behind.

- ``ChromiumHost``: Debian's Chromium driven by Playwright's sync API on one thread of its own (Playwright objects
  belong to the thread that made them; Streamlit and the API call from many), started at the first browse, reused
  by every later one (a new context per visit), closed at exit.
- ``NetworkGuard``: the route handler of a visit's context. No request leaves the browser itself: each one is
  checked (http(s), the allowlist, GET/HEAD only), its host resolved and every address checked (a loopback, private,
  link-local or otherwise non-public address only when the allowlist names that address and port), then fetched
  here, pinned to the checked address for http, within the visit's byte cap and deadline, and handed to the page
  with ``route.fulfill``. A redirect is never handed to the browser (Chromium would follow it without asking the
  route again): a main-frame redirect goes back to the executor as the next hop, any other is followed here, each
  hop checked the same way. Web sockets are closed and service workers blocked: nothing bypasses the guard.
"""

from __future__ import annotations

import atexit
import ipaddress
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import urljoin

import ada_url
import httpx

from core.agent.browse_rules import BlockType, BrowseHop, domain_allowed, parse_web_url

T = TypeVar("T")

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--dns-prefetch-disable",  # the page's host names are resolved by the guard alone
]
USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) OmniTravelAgent/0.2 (+consented lookup; headless Chromium)"
#: request headers passed on from the page (cookies and the like stay in the browser)
FORWARDED = ("accept", "accept-language", "user-agent", "referer")
#: response headers not passed back: the body is handed over decoded and whole
DROPPED = ("content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive")
MAX_SUBRESOURCE_REDIRECTS = 5

Resolver = Callable[[str, int], list[str]]


def resolve_host(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (an IP literal resolves to itself)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def address_allowed(address: str, url: str, allowlist: list[str]) -> bool:
    """A public address always; any other (loopback, private, link-local, reserved, ...) only when the allowlist
    names it, with this URL's port: so a listed name that resolves inward (DNS rebinding, an internal alias) is
    refused, while the demo sites listed as ``127.0.0.1:PORT`` are reached."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_global and not ip.is_multicast:
        return True
    target = parse_web_url(url)
    if target is None:
        return False
    literal = f"[{ip}]" if ip.version == 6 else str(ip)
    return domain_allowed(f"{target.scheme}://{literal}:{target.port}/", allowlist)


@dataclass
class Refusal:
    kind: BlockType
    detail: str


@dataclass
class Fetched:
    status: int
    headers: dict[str, str]
    body: bytes
    location: str | None = None


@dataclass
class NetworkGuard:
    """The route handler of one visit: see the module docstring. ``blocked`` is set when the visit must stop;
    ``redirect_to`` when the main frame's page redirected (the executor's next hop)."""

    allowlist: list[str]
    max_bytes: int
    deadline: float
    clock: Callable[[], float]
    client: httpx.Client
    resolve: Resolver
    timeout_s: float
    hops: list[BrowseHop]
    bytes_read: int = 0
    expected: str | None = None
    blocked: tuple[BlockType, str, str | None] | None = None
    redirect_to: str | None = None
    status: int | None = None
    _main_frame: Any = field(default=None, repr=False)

    def expect(self, page: Any, href: str) -> None:
        """The executor is about to navigate the page's main frame to ``href``."""
        self._main_frame = page.main_frame
        self.expected, self.redirect_to, self.status = href, None, None

    def _log(self, url: str, outcome: Literal["fetched", "redirect", "refused"], **kw: Any) -> None:
        self.hops.append(BrowseHop(url=url[:500], outcome=outcome, **kw))

    def handle(self, route: Any, request: Any) -> None:
        url = request.url
        try:
            main = request.is_navigation_request() and request.frame == self._main_frame
        except Exception:  # a request without a frame (a worker's): never the page itself
            main = False
        if self.blocked is not None:
            route.abort("blockedbyclient")
            return
        if (
            main and url.split("#")[0] != (self.expected or "").split("#")[0]
        ):  # the page navigating itself (script, meta refresh): not a hop we chose
            self._log(url, "refused", detail="navigation started by the page")
            route.abort("blockedbyclient")
            return
        if request.method not in ("GET", "HEAD"):  # a visit reads; it never submits
            self._log(url, "refused", detail=f"method {request.method}")
            route.abort("blockedbyclient")
            return
        headers = {k: v for k, v in request.headers.items() if k.lower() in FORWARDED}
        got = self.fetch(url, headers, method=request.method, checked=main)
        hops = 0
        while not main and isinstance(got, Fetched) and got.location is not None and hops < MAX_SUBRESOURCE_REDIRECTS:
            hops += 1
            got = self.fetch(got.location, headers, method=request.method)
        if isinstance(got, Refusal):
            if main or got.kind in ("BUDGET", "TOO_LARGE"):  # the visit's own limits stop the whole visit
                self.blocked = (got.kind, url, got.detail)
            route.abort("blockedbyclient")
            return
        if got.location is not None:
            if main:
                self.redirect_to = got.location
            # never handed to Chromium, which would follow it unchecked; "aborted" leaves no error page behind to
            # interrupt the executor's next navigation
            route.abort("aborted")
            return
        if main:
            self.status = got.status
        route.fulfill(status=got.status, headers=got.headers, body=got.body)

    def fetch(
        self, url: str, headers: dict[str, str], *, method: str = "GET", checked: bool = False
    ) -> Fetched | Refusal:
        """One hop: checked, resolved, its addresses checked, fetched (pinned for http) within the byte cap and
        the deadline. A redirect comes back with its absolute ``location``, unread."""
        target = parse_web_url(url)
        if target is None or not domain_allowed(url, self.allowlist):
            self._log(url, "refused", detail="not on the allowlist")
            return Refusal("NOT_ALLOWLISTED", "not on the allowlist")
        try:
            addresses = self.resolve(target.host, target.port)
        except OSError as exc:
            self._log(url, "refused", detail="the host does not resolve")
            return Refusal("HTTP_ERROR", f"DNS: {type(exc).__name__}")
        bad = [a for a in addresses if not address_allowed(a, target.href, self.allowlist)]
        if bad or not addresses:
            self._log(url, "refused", addresses=addresses, detail="resolves to a forbidden address")
            return Refusal("NOT_ALLOWLISTED", f"{target.host} resolves to a forbidden address")
        send, send_headers = target.href, dict(headers)
        if target.scheme == "http":  # pinned: the address checked is the address connected to (https: the
            pinned = ada_url.URL(target.href)  # certificate names the host, so a rebound address cannot answer)
            address = addresses[0]
            pinned.hostname = f"[{address}]" if ":" in address else address
            send, send_headers["host"] = pinned.href, ada_url.URL(target.href).host
        left = self.deadline - self.clock()
        if left <= 0 and not checked:  # the executor checked the time just before its own navigation
            return Refusal("BUDGET", "the visit's time is up")
        body = bytearray()
        try:
            with self.client.stream(
                method, send, headers=send_headers, timeout=min(self.timeout_s, max(left, 0.5)), follow_redirects=False
            ) as resp:
                if resp.is_redirect:
                    location = resp.headers.get("location")
                    if not location:
                        return Refusal("HTTP_ERROR", f"HTTP {resp.status_code} without a location")
                    nxt = urljoin(target.href, location)
                    self._log(url, "redirect", status=resp.status_code, addresses=addresses, detail=nxt[:500])
                    return Fetched(resp.status_code, {}, b"", location=nxt)
                for chunk in resp.iter_bytes():
                    body.extend(chunk)
                    self.bytes_read += len(chunk)
                    if self.bytes_read > self.max_bytes:
                        self._log(url, "refused", status=resp.status_code, detail="byte cap")
                        return Refusal("TOO_LARGE", f"over {self.max_bytes} bytes")
                    if self.clock() > self.deadline:
                        self._log(url, "refused", status=resp.status_code, detail="deadline")
                        return Refusal("BUDGET", "the visit's time is up")
                kept = {k: v for k, v in resp.headers.items() if k.lower() not in DROPPED}
                self._log(url, "fetched", status=resp.status_code, addresses=addresses)
                return Fetched(resp.status_code, kept, bytes(body))
        except httpx.InvalidURL:  # httpx reads a Location before we do; one it cannot parse is not http(s)
            self._log(url, "refused", addresses=addresses, detail="a redirect to a non-http(s) URL")
            return Refusal("NOT_ALLOWLISTED", "a redirect to a non-http(s) URL")
        except httpx.TimeoutException:
            return Refusal("BUDGET", "the visit's time is up")
        except httpx.HTTPError as exc:
            return Refusal("HTTP_ERROR", type(exc).__name__)


class ChromiumHost:
    """One headless Chromium on a thread of its own: started by the first ``call``, reused, closed by ``close``."""

    def __init__(self, executable: Path) -> None:
        self.executable = executable
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chromium")
        self._playwright: Any = None
        self._browser: Any = None
        self.launches = 0

    @property
    def running(self) -> bool:
        return self._browser is not None

    def call(self, fn: Callable[[Any], T], *, timeout_s: float) -> T:
        """``fn(browser)`` on the browser's thread; the browser is started first when it is not running."""
        return self._pool.submit(self._run, fn).result(timeout=timeout_s)

    def _run(self, fn: Callable[[Any], T]) -> T:
        if self._browser is None or not self._browser.is_connected():
            from playwright.sync_api import sync_playwright

            if not self.executable.is_file():
                raise FileNotFoundError(f"Chromium is not installed at {self.executable}")
            if self._playwright is None:
                self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(executable_path=str(self.executable), args=CHROMIUM_ARGS)
            self.launches += 1
        return fn(self._browser)

    def _close(self) -> None:
        if self._browser is not None:
            self._browser.close()
        if self._playwright is not None:
            self._playwright.stop()
        self._browser = self._playwright = None

    def close(self) -> None:
        try:
            self._pool.submit(self._close).result(timeout=10)
        finally:
            self._pool.shutdown(wait=False)


_HOSTS: dict[Path, ChromiumHost] = {}
_HOSTS_LOCK = threading.Lock()


def shared_chromium(executable: Path) -> ChromiumHost:
    """The process's one Chromium of ``executable`` (made at first use, not started until the first browse)."""
    with _HOSTS_LOCK:
        host = _HOSTS.get(executable)
        if host is None:
            host = _HOSTS[executable] = ChromiumHost(executable)
        return host


@atexit.register
def close_all() -> None:
    """Close every shared Chromium (at exit; a benchmark calls it to measure a first browse again)."""
    with _HOSTS_LOCK:
        hosts = list(_HOSTS.values())
        _HOSTS.clear()
    for host in hosts:
        try:
            host.close()
        except Exception:  # at exit: a browser already gone is closed enough
            pass
