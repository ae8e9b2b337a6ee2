"""Compile the numba kernels once at install time (cached under __pycache__), so the first plan or
benchmark in a fresh checkout does not pay the one-off compilation.

    python scripts/compile_kernels.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import vrptw_sisr  # noqa: E402
from core.optimizer import tsp  # noqa: E402

if __name__ == "__main__":
    tsp.warm_up()
    vrptw_sisr.warmup()
    print("numba kernels compiled")
