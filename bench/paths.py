"""Where benchmarks read their instances: ``../shared/bench`` beside the project by default (tests never do)."""

from __future__ import annotations

from pathlib import Path

from core.config import PROJECT_ROOT
from core.errors import InputError

DEFAULT_BENCH_DIR = PROJECT_ROOT.parent / "shared" / "bench"


def bench_dir(path: str | Path, subfolder: str) -> Path:
    """The benchmark folder, checked to hold ``subfolder`` and ``known_optima.json``."""
    folder = Path(path)
    if not (folder / subfolder).is_dir() or not (folder / "known_optima.json").is_file():
        raise InputError(f"no {subfolder}/ and known_optima.json in {folder}; pass --dir", field="dir")
    return folder
