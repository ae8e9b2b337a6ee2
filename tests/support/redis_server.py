"""A Redis of the test's own: Debian's ``redis-server`` on 127.0.0.1 at a free port, in memory only (no dump, no
append-only file), stopped and started again at will (the fault tests), gone at the end."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    def __init__(self, folder: Path, *, port: int | None = None) -> None:
        binary = shutil.which("redis-server")
        assert binary, "Redis is required for the team tests: apt-get install -y redis-server"
        self.binary = binary
        self.folder = folder
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        # the server keeps real time: a test run under libfaketime (the time-travel suites) must not hand it the
        # moved clock, under which it does not start
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("FAKETIME")}
        self._process = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--dir", str(self.folder), "--logfile", str(self.folder / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # ready when it takes a connection (not a duration under test)
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}: see {self.folder / 'redis.log'}")

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=30)
            self._process = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object | TracebackType) -> None:
        self.stop()
