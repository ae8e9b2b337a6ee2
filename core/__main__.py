"""Command line: ``python -m core COMMAND ...`` (a stable interface; docs/ARCHITECTURE.md).

The commands live in the face package ``core.cli`` (one module each: route, itinerary, halfday, agent,
reservations, lab, packs, apikey, venues). ``bench ...`` is handed to ``python -m bench`` in a new process: the benchmarks are not part
of the product, which never imports them. Bad input exits with code 2 and prints
``{"error": {"code", "message", "field"}}`` on stderr.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from core.cli import Parser, run

BENCH_HELP = (
    "benchmarks, run by python -m bench: tsp FILE | vrptw FILE | plan N | agent | itinerary | fuzz | faults | roads "
    "| amap-cache | amap-live | reservations | halfday | ..."
)


def build_parser() -> argparse.ArgumentParser:
    from core.cli.agent import add_parsers as agent_commands
    from core.cli.apikey import add_parsers as apikey_commands
    from core.cli.halfday import add_parsers as halfday_commands
    from core.cli.itinerary import add_parsers as itinerary_commands
    from core.cli.lab import add_parsers as lab_commands
    from core.cli.memory import add_parsers as memory_commands
    from core.cli.packs import add_parsers as pack_commands
    from core.cli.reservations import add_parsers as reservation_commands
    from core.cli.route import add_parsers as route_commands
    from core.cli.venues import add_parsers as venue_commands

    parser = Parser(prog="python -m core", description="Omni-Travel Planner command line")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    route_commands(sub)  # plan
    itinerary_commands(sub)  # itinerary
    # listed for --help only: main() hands `bench ...` over before parsing
    sub.add_parser("bench", help=BENCH_HELP, add_help=False)
    agent_commands(sub)  # route "MESSAGE" | route --file FILE | run --message "MESSAGE" [--allow-webbrowse]
    pack_commands(sub)  # pack validate NAME | build --pbf FILE --name NAME | serve REGION
    apikey_commands(sub)  # apikey new USER
    reservation_commands(sub)  # reservations list | book | cancel
    halfday_commands(sub)  # halfday --goal TEXT [--events] | halfday memory --user U [--reset]
    memory_commands(sub)  # memory list | forget --rule CODE | --all | recall --query TEXT
    lab_commands(sub)  # lab generate | run BATCH --grid GRID --out FILE | summary FILE | schema
    venue_commands(sub)  # venues serve [--port P]: the demo venue websites
    return parser


def run_bench(args: list[str]) -> int:
    """``python -m bench ARGS`` in a new process with this interpreter; its exit code is ours. The project root
    goes first on PYTHONPATH so ``bench`` (beside ``core``) is found from any working directory."""
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, "-m", "bench", *args], env=env, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:
        return run_bench(argv[1:])
    return run(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
