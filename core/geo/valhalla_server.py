"""A pack's tiles served over HTTP by the wheel's ``valhalla_service`` (scale-out: the same tiles behind
several servers; ``OMNI_VALHALLA_URL`` points the planner at them). ``python -m core valhalla serve``."""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from core.errors import InputError, ProviderUnavailable
from core.geo.valhalla import write_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ValhallaServer:
    """``valhalla_service`` on 127.0.0.1 over ``tile_dir``; a context manager that waits until it answers."""

    def __init__(self, tile_dir: Path, *, host: str = "127.0.0.1", port: int | None = None, threads: int = 2) -> None:
        if not Path(tile_dir).is_dir():
            raise InputError(f"no Valhalla tiles in {tile_dir}", field="region")
        self.tile_dir = Path(tile_dir).resolve()
        self.host = host
        self.port = port or free_port()
        self.threads = max(1, int(threads))
        self._proc: subprocess.Popen[bytes] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, *, wait_s: float = 30.0) -> ValhallaServer:
        from core.packs.build import valhalla_bin

        self._tmp = tempfile.TemporaryDirectory(prefix="omni-valhalla-service-")
        config = write_config(
            self.tile_dir, Path(self._tmp.name) / "valhalla.json", listen=f"tcp://{self.host}:{self.port}"
        )
        self._proc = subprocess.Popen(
            [str(valhalla_bin("valhalla_service")), str(config), str(self.threads)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise ProviderUnavailable(f"valhalla_service exited with code {self._proc.returncode}")
            try:
                if httpx.get(f"{self.url}/status", timeout=1.0).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise ProviderUnavailable(f"valhalla_service did not answer on {self.url} within {wait_s:g} s")

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=5)
        self._proc = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def wait(self) -> int:
        assert self._proc is not None
        return self._proc.wait()

    def __enter__(self) -> ValhallaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
