"""``python -m core ARGS`` in the test's own process: ``core.__main__.main``, the same parser, exit codes and error
lines as the command, with the environment a new process would get (the ``OMNI_*`` variables given, no others) and
the settings read afresh. A new interpreter per call costs its imports and its region pack again (seconds of CPU on
a loaded machine); a test that proves the process itself (the entry point, ``bench`` handed to a new process, a
signal) still starts one."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import pytest

from core.config import get_settings


@dataclass(frozen=True)
class CliRun:
    """What a finished command left: like ``subprocess.CompletedProcess`` with text output."""

    returncode: int
    stdout: str
    stderr: str


CoreCli = Callable[..., CliRun]


@pytest.fixture
def core_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[CoreCli]:
    """``core_cli(*args, env={...})`` runs ``python -m core *args`` here; ``env`` holds the variables the command
    sees (its ``OMNI_*`` ones replace the test process's)."""
    from core.__main__ import main

    def run(*args: str, env: Mapping[str, str]) -> CliRun:
        for name in [n for n in os.environ if n.startswith("OMNI_")]:
            monkeypatch.delenv(name)
        for name, value in env.items():
            if name.startswith("OMNI_"):
                monkeypatch.setenv(name, value)
        get_settings.cache_clear()
        capsys.readouterr()
        try:
            code = main(list(_strings(args)))
        finally:
            get_settings.cache_clear()
        out, err = capsys.readouterr()
        return CliRun(code, out, err)

    yield run
    get_settings.cache_clear()


def _strings(args: Sequence[str]) -> list[str]:
    return [str(a) for a in args]
