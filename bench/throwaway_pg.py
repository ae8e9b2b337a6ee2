"""A PostgreSQL cluster of the test's own (initdb + pg_ctl under a temporary folder, on a free loopback port), to
freeze (SIGSTOP), thaw, stop and start without touching the shared test cluster other tests use.

Used by the fault suite (tests/faults) and ``python -m core bench faults``. Root cannot run a cluster: as root, the commands run as ``postgres``.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path


def pg_bin() -> Path | None:
    """The newest installed PostgreSQL's programs (Debian keeps them off PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThrowawayCluster:
    """``start()``, then ``url``; ``freeze()`` / ``thaw()`` stop and continue the postmaster and every backend;
    ``stop()`` / ``start()`` shut it down and bring it back with its data; ``destroy()`` removes it."""

    def __init__(self) -> None:
        binaries = pg_bin()
        if binaries is None:
            raise RuntimeError("PostgreSQL is not installed: apt-get install -y postgresql")
        self.bin = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="omni-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.frozen: list[int] = []
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "omni", "--auth=trust", "-E", "UTF8", "--no-sync")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://omni@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> ThrowawayCluster:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start")
        return self

    def stop(self) -> None:
        self.thaw()
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def postmaster(self) -> int:
        return int((self.data / "postmaster.pid").read_text().splitlines()[0])

    def processes(self) -> list[int]:
        """The postmaster and its children (backends, checkpointer, ...)."""
        root = self.postmaster()
        pids = [root]
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                fields = Path(stat).read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == root:
                pids.append(int(stat.split("/")[2]))
        return pids

    def freeze(self) -> None:
        self.frozen = self.processes()
        for pid in self.frozen:
            os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        for pid in self.frozen:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.frozen = []

    def destroy(self) -> None:
        try:
            self.stop()
        except (subprocess.SubprocessError, OSError):
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
