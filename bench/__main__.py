"""``python -m bench KIND ...``: the benchmarks (docs/BENCHMARKS.md); ``python -m core bench ...`` runs this in a new
process. Same exit codes and structured error line as ``python -m core``."""

from __future__ import annotations

import sys

from bench.cli import build_parser
from core.cli import run


def main(argv: list[str] | None = None) -> int:
    return run(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
