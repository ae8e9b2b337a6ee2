"""The demo venue sites on 127.0.0.1 through uvicorn: in the foreground (``python -m core venues serve``) or on a
thread (``VenueServer(...).start()``, for a test or a benchmark; ``stop()`` ends it)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import uvicorn

from core.clock import Clock, system_clock
from core.errors import InputError
from core.venues.catalog import DEMO_SOURCE, load_sites
from core.venues.site import build_app


def _config(venues_dir: Path, region: str, port: int, clock: Clock) -> uvicorn.Config:
    sites = load_sites(venues_dir, region)
    if sites is None:
        raise InputError(f"no demo venue sites for region {region!r} in {venues_dir}", field="region")
    return uvicorn.Config(
        build_app(sites, clock=clock), host="127.0.0.1", port=port, log_level="warning", lifespan="off"
    )


#: how long a face waits for the demo sites' answer before taking them as not running (a local port answers at once)
PROBE_TIMEOUT_S = 0.5


def demo_sites_running(port: int, *, timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """Whether the demo venue sites answer on 127.0.0.1:``port``: their index page, labelled as theirs (whatever
    else may listen on that port is never taken for them)."""
    try:
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=timeout_s, follow_redirects=False, trust_env=False)
    except httpx.HTTPError:
        return False
    return page.status_code == 200 and f'content="{DEMO_SOURCE}"' in page.text


def serve_forever(venues_dir: Path, region: str, port: int, *, clock: Clock = system_clock) -> None:
    uvicorn.Server(_config(venues_dir, region, port, clock)).run()


class VenueServer:
    """The demo sites on a thread; ``port=0`` takes a free port (``self.port`` once started)."""

    def __init__(
        self, venues_dir: Path, region: str = "shanghai", *, port: int = 0, clock: Clock = system_clock
    ) -> None:
        self._server = uvicorn.Server(_config(venues_dir, region, port, clock))
        self._thread = threading.Thread(target=self._server.run, name="venue-sites", daemon=True)
        self.port = port

    def start(self, timeout_s: float = 10.0) -> VenueServer:
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the demo venue server did not start")
            time.sleep(0.02)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
