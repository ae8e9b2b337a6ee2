"""The web-browse executor (SYSTEM2_WEBBROWSE): headless Chromium behind a network guard (core/agent/chromium.py).

- It visits only allowlisted sites (``OMNI_BROWSE_ALLOWLIST``; a domain covers its subdomains; unset: the demo
  venue sites); anything else is refused before a request is sent. Every request of the page (the document, each
  redirect, each script, image or fetch) is checked again by the guard, after DNS resolution too.
- Every navigation of the page, a redirect included, is one browser step, counted against ``max_browser_steps``
  before it is made.
- It detects captcha / bot-check pages and stops with BROWSER_BLOCKED_CAPTCHA (the user can take over at the URL,
  or the agent downgrades to the knowledge base).
- From the rendered page it extracts structured evidence: the schema.org offers of its JSON-LD (room, price,
  currency, date, availability), else microdata / ``data-*`` attributes, then labelled text; a screenshot (PNG,
  saved by its SHA-256) goes with it. Same-site links marked as availability pages may be followed (a step each).

URLs are read as a browser reads them (WHATWG, ada-url); only ports 80/443 unless an allowlist entry names another;
one deadline and a byte cap (over every request of the visit) bound it.

It never runs without consent: the browse flow checks consent first (gates.py).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import httpx

from core.agent.browse_rules import (
    BlockType,
    BrowseBlocked,
    BrowseEvidence,
    BrowseHop,
    BrowseOffer,
    BrowseOutcome,
    WebURL,
    domain_allowed,
    extract_evidence,
    is_captcha,
    parse_web_url,
    refused_target,
)
from core.agent.chromium import USER_AGENT, NetworkGuard, Resolver, resolve_host, shared_chromium
from core.clock import real_epoch_s

if TYPE_CHECKING:
    from core.agent.telemetry import Telemetry

__all__ = [
    "BrowseBlocked",
    "BrowseEvidence",
    "BrowseHop",
    "BrowseOffer",
    "BrowseOutcome",
    "BrowserExecutor",
    "domain_allowed",
    "extract_evidence",
    "is_captcha",
    "parse_web_url",
]

DEFAULT_CHROMIUM = Path("/usr/bin/chromium")
#: time beyond the visit's deadline for the browser itself (a context to open and close, a screenshot)
BROWSER_GRACE_S = 20.0


class BrowserExecutor:
    """Visits allowlisted pages in the process's shared Chromium within one deadline and a byte cap; see the module
    docstring. ``client`` and ``resolve`` (the guard's HTTP client and DNS) are for tests."""

    def __init__(
        self,
        *,
        allowlist: list[str],
        client: httpx.Client | None = None,
        timeout_s: float = 8.0,
        max_bytes: int = 2_000_000,
        telemetry: Telemetry | None = None,
        clock: Callable[[], float] | None = None,
        chromium: Path = DEFAULT_CHROMIUM,
        evidence_dir: Path | None = None,
        resolve: Resolver | None = None,
    ) -> None:
        self.allowlist = list(allowlist)
        self._client = client  # built lazily: most requests never browse
        self._timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.telemetry = telemetry
        self._clock = clock
        self.chromium = chromium
        self.evidence_dir = evidence_dir
        self._resolve = resolve or resolve_host

    def _block(
        self,
        out: BrowseOutcome,
        url: str,
        kind: BlockType,
        detail: str | None = None,
        *,
        http_status: int | None = None,
    ) -> BrowseOutcome:
        parsed = parse_web_url(url)
        domain = parsed.host if parsed else ""
        out.blocked = BrowseBlocked(
            url=url[:500],
            domain=domain,
            blocked_type=kind,
            takeover_url=url if kind in ("CAPTCHA", "BUDGET") and parsed else None,
            detail=detail,
            http_status=http_status,
            refused=refused_target(url, self.allowlist) if kind == "NOT_ALLOWLISTED" else None,
        )
        if self.telemetry is not None:
            self.telemetry.webbrowse_blocked(domain=domain, blocked_type=kind)
        return out

    def run(
        self, start_url: str, *, max_steps: int, follow_availability: bool = True, max_seconds: float | None = None
    ) -> BrowseOutcome:
        """Visit ``start_url`` (and same-site availability links) within ``max_steps`` navigations and one deadline
        (``max_seconds``, else the executor's timeout, for the whole visit). A redirect is one more step, to an
        allowlisted URL only; a redirect elsewhere, or to another scheme, is refused, never followed."""
        out = BrowseOutcome()
        clock = self._clock or time.monotonic
        seconds = max_seconds if max_seconds is not None else self._timeout_s
        deadline = clock() + seconds
        if not domain_allowed(start_url, self.allowlist):  # refused before a browser is started for it
            return self._block(out, start_url, "NOT_ALLOWLISTED")
        if self._client is None:
            self._client = httpx.Client(follow_redirects=False, headers={"User-Agent": USER_AGENT})
        guard = NetworkGuard(
            allowlist=self.allowlist,
            max_bytes=self.max_bytes,
            deadline=deadline,
            clock=clock,
            client=self._client,
            resolve=self._resolve,
            timeout_s=self._timeout_s,
            hops=out.hops,
        )
        host = shared_chromium(self.chromium)
        try:
            return host.call(
                lambda browser: self._visit(browser, guard, out, start_url, max_steps, follow_availability),
                timeout_s=seconds + BROWSER_GRACE_S,
            )
        except FileNotFoundError as exc:
            return self._block(out, start_url, "HTTP_ERROR", detail=str(exc))
        except TimeoutError:
            return self._block(out, start_url, "BUDGET", detail="the visit's time is up")

    def _visit(
        self,
        browser: Any,
        guard: NetworkGuard,
        out: BrowseOutcome,
        start_url: str,
        max_steps: int,
        follow_availability: bool,
    ) -> BrowseOutcome:
        # no scripts: the facts are read from the page's markup (JSON-LD), and a script could reach past the guard
        # (WebRTC's STUN/TURN go around the request routing) or spin forever on the one browser thread
        context = browser.new_context(
            service_workers="block",
            user_agent=USER_AGENT,
            viewport={"width": 1280, "height": 900},
            locale="zh-CN",
            java_script_enabled=False,
        )
        context.set_default_timeout(max(1.0, self._timeout_s) * 1000)
        try:
            context.route("**/*", guard.handle)
            context.route_web_socket("**/*", lambda ws: ws.close())  # a read needs no socket; it could reach anywhere
            page = context.new_page()
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
                    refused = self._refuse(out, url, target, required)
                    if refused is not None:
                        return refused
                    continue
                if out.steps >= max_steps:
                    return self._block(out, target.href, "BUDGET", detail=f"max_browser_steps={max_steps}")
                left = guard.deadline - guard.clock()
                if left <= 0:
                    return self._block(out, target.href, "BUDGET", detail="the visit's time is up")
                out.steps += 1
                out.visited.append(target.href)
                guard.expect(page, target.href)
                failed = _goto(page, target.href, left)
                if guard.blocked is not None:
                    kind, where, detail = guard.blocked
                    return self._block(out, where if kind == "NOT_ALLOWLISTED" else target.href, kind, detail)
                if guard.redirect_to is not None:
                    if url in required:
                        required.add(guard.redirect_to)
                    queue.insert(0, guard.redirect_to)
                    continue
                if failed == "TIMEOUT":
                    return self._block(out, target.href, "BUDGET", detail="the visit's time is up")
                if failed is not None or guard.status is None:
                    return self._block(out, target.href, "HTTP_ERROR", detail=failed or "no response")
                blocked, links = self._read(page, guard.status, out, target.href)
                if blocked is not None:
                    return blocked
                if follow_availability:
                    for href, role in links:
                        if role.lower() in ("availability", "booking", "rooms"):
                            queue.append(urljoin(page.url, href))
            return out
        finally:
            context.close()

    def _refuse(self, out: BrowseOutcome, url: str, target: WebURL | None, required: set[str]) -> BrowseOutcome | None:
        """A page off the allowlist is never fetched: the visit blocked when it is the start page (or a redirect it
        leads to); else skipped (a link elsewhere), and the visit goes on (None)."""
        out.hops.append(BrowseHop(url=url[:500], outcome="refused", detail="not on the allowlist"))
        if url in required:
            return self._block(out, url, "NOT_ALLOWLISTED")
        out.skipped.append(url[:500])  # a link elsewhere: never fetched, the visit goes on
        if self.telemetry is not None:
            self.telemetry.webbrowse_blocked(domain=target.host if target else "", blocked_type="NOT_ALLOWLISTED")
        return None

    def _read(
        self, page: Any, status: int, out: BrowseOutcome, href: str
    ) -> tuple[BrowseOutcome | None, list[tuple[str, str]]]:
        """The loaded page read: the visit blocked on a captcha or an HTTP error; else its evidence kept (with a
        screenshot) when it states anything, and its links with their roles."""
        html = page.content()
        if is_captcha(html, status):
            return self._block(out, href, "CAPTCHA"), []
        if status >= 400:
            return self._block(out, href, "HTTP_ERROR", detail=f"HTTP {status}", http_status=status), []
        ev, links, _ = extract_evidence(page.url, html)
        ev.fetched_at = round(real_epoch_s(), 3)  # when the page really was read
        if ev.availability != "unknown" or ev.price is not None or ev.cancellation_policy or ev.offers:
            self._screenshot(page, ev)
            out.evidence.append(ev)
        return None, links

    def _screenshot(self, page: Any, ev: BrowseEvidence) -> None:
        """The page as seen, saved by its SHA-256 (the same page twice is one file); path and hash go in the
        evidence. No folder configured: no screenshot, and the evidence says none."""
        if self.evidence_dir is None:
            return
        png = page.screenshot(full_page=True, type="png", timeout=5000)
        digest = hashlib.sha256(png).hexdigest()
        self.evidence_dir.mkdir(parents=True, exist_ok=True)
        path = self.evidence_dir / f"{digest}.png"
        if not path.exists():
            path.write_bytes(png)
        ev.screenshot_path, ev.screenshot_sha256 = str(path), digest


def _goto(page: Any, href: str, left_s: float) -> str | None:
    """Load ``href`` within the ``left_s`` seconds the visit has: None, "TIMEOUT" or the browser's error."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.goto(href, timeout=max(1.0, left_s * 1000), wait_until="load")
    except PlaywrightTimeout:
        return "TIMEOUT"
    except PlaywrightError as exc:
        return str(exc).splitlines()[0][:200]
    return None
