"""Command line: ``python -m core COMMAND ...`` (a stable interface; docs/ARCHITECTURE.md).

Each domain adds its own commands (core/route/cli.py, core/itinerary/cli.py, core/agent/cli.py,
core/bench/cli.py, core/packs/cli.py). Bad input exits with code 2 and prints
``{"error": {"code", "message", "field"}}`` on stderr.
"""

from __future__ import annotations

import argparse
import sys

from pydantic import ValidationError

from core.cli import EXIT_BAD_INPUT, EXIT_FAILED, Parser, fail, internal_error
from core.errors import InputError, OmniError, ResolutionError, error_from_validation


def build_parser() -> argparse.ArgumentParser:
    from core.agent.cli import add_parsers as agent_commands
    from core.auth import add_parsers as apikey_commands
    from core.bench.cli import add_parsers as bench_commands
    from core.halfday.cli import add_parsers as halfday_commands
    from core.itinerary.cli import add_parsers as itinerary_commands
    from core.lab.cli import add_parsers as lab_commands
    from core.packs.cli import add_parsers as pack_commands
    from core.reservations.cli import add_parsers as reservation_commands
    from core.route.cli import add_parsers as route_commands

    parser = Parser(prog="python -m core", description="Omni-Travel Planner command line")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    route_commands(sub)  # plan
    itinerary_commands(sub)  # itinerary
    bench_commands(sub)  # bench tsp|vrptw|plan|agent|itinerary|fuzz|faults|tsplib|lkh|solomon
    agent_commands(sub)  # route "MESSAGE" | route --file FILE | run --message "MESSAGE" [--allow-webbrowse]
    pack_commands(sub)  # pack validate NAME | build --pbf FILE --name NAME | serve REGION
    apikey_commands(sub)  # apikey new USER
    reservation_commands(sub)  # reservations list | book | cancel
    halfday_commands(sub)  # halfday --goal TEXT [--events] | halfday memory --user U [--reset]
    lab_commands(sub)  # lab generate | run BATCH --grid GRID --out FILE | summary FILE | schema
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage; keep the documented exit code
        return EXIT_BAD_INPUT if exc.code else 0
    try:
        return args.func(args)
    except ValidationError as exc:
        return fail(error_from_validation(exc))
    except InputError as exc:
        return fail(exc)
    except OmniError as exc:
        # unresolvable places are bad input too: the user must change the request
        return fail(exc, EXIT_BAD_INPUT if isinstance(exc, ResolutionError) else EXIT_FAILED)
    except (RecursionError, UnicodeError) as exc:  # pathological input deep inside a library
        return fail(InputError(f"the input could not be processed ({type(exc).__name__})"))
    except Exception as exc:  # the last guard: a structured error with a trace id, never a traceback
        return internal_error(exc)


if __name__ == "__main__":
    sys.exit(main())
