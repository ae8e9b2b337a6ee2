"""The command line, a face (docs/ARCHITECTURE.md, "Command line and API"): one module per command family
(route, itinerary, halfday, agent, reservations, lab, packs, apikey), wired by core/__main__.py.

A command that plans, books or asks builds one ``RequestContext`` from its arguments (``request_context``: --user,
--lang, --region, --provider, --now) and calls a use case in ``core.app``; it decides no wiring of its own.
Here is what every command shares: exit codes, the structured error line, JSON request files, the context.
Bad input exits with code 2 and prints ``{"error": {"code", "message", "field"}}`` on stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import uuid
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from pydantic import ValidationError

from core.errors import InputError, OmniError, ResolutionError, error_from_validation
from core.i18n import normalize_lang
from core.models.common import echo

if TYPE_CHECKING:
    from core.app import AppServices, RequestContext
    from core.config import Settings

logger = logging.getLogger("omni.cli")

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1


def fail(err: OmniError, code: int = EXIT_BAD_INPUT) -> int:
    print(json.dumps(err.to_dict(), ensure_ascii=False), file=sys.stderr)
    return code


MAX_REQUEST_BYTES = 5_000_000


def read_json(path: str, field: str = "request") -> dict[str, Any]:
    """A JSON object from a request file; anything else (missing, too big, not UTF-8, not JSON, nested past
    reason) is an InputError naming the file."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"request file not found: {echo(path)}", field=field)
    if p.stat().st_size > MAX_REQUEST_BYTES:
        raise InputError(f"request file is larger than {MAX_REQUEST_BYTES // 1_000_000} MB", field=field)
    try:
        data = json.loads(p.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"request file is not UTF-8 text (byte {exc.start})", field=field) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"request file is not valid JSON: {exc.msg} (line {exc.lineno})", field=field) from None
    except RecursionError:
        raise InputError("request file is nested too deeply to be a request", field=field) from None
    if not isinstance(data, dict):
        raise InputError("the request must be a JSON object", field=field)
    return data


def services() -> AppServices:
    """The services of this command (one command per process: built for it, shared by nothing else)."""
    from core.app import AppServices

    return AppServices()


def settings() -> Settings:
    """The settings in force (for the commands that plan nothing: pack, apikey)."""
    return services().settings


def request_context(
    *,
    user: str | None = None,
    lang: str | None = None,
    region: str | None = None,
    provider: str | None = None,
    now: datetime | None = None,
    in_force: Settings | None = None,
) -> RequestContext:
    """The one context of a command: who (--user), in which language (--lang; None: not given), on which region
    pack and provider (else the settings'), at which moment (--now fixes the clock; a moment without an offset is
    the region's local time); ``in_force``: the settings the command runs on (else the process's)."""
    return services().context(
        settings=in_force,
        user=user,
        lang=normalize_lang(lang),  # --lang read once into a Lang, here at the edge
        region=region,
        provider=provider,
        clock=(lambda: now) if now is not None else None,
    )


PROVIDER_HELP = "offline (default), amap, amap-mcp or GEOCODER+ROUTER (e.g. pack+valhalla, nominatim+osrm)"


def add_provider_argument(parser: argparse.ArgumentParser) -> None:
    """``--provider``, the same on every command that plans."""
    parser.add_argument("--provider", default=None, help=PROVIDER_HELP)


def parse_now(value: str | None) -> datetime | None:
    """``--now`` as a moment (ISO 8601; without an offset it is the region's local time); anything else is an
    ``InputError`` on field ``now``."""
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.strip())
    except ValueError:
        raise InputError(
            f'--now must be a moment in ISO 8601, such as 2026-11-24T10:00:00+08:00; got "{echo(value)}"', field="now"
        ) from None


def internal_error(exc: BaseException) -> int:
    """The last guard of a command: log the failure with a trace id, print a structured error, exit 1."""
    trace_id = uuid.uuid4().hex[:16]
    logger.error("unexpected error (trace id %s)", trace_id, exc_info=(type(exc), exc, exc.__traceback__))
    error = {
        "code": "INTERNAL_ERROR",
        "message": f"an internal error occurred (trace id {trace_id})",
        "field": None,
        "trace_id": trace_id,
    }
    print(json.dumps({"error": error}, ensure_ascii=False), file=sys.stderr)
    return EXIT_FAILED


class Parser(argparse.ArgumentParser):
    """argparse that also prints the structured ``{"error": ...}`` line on a usage error (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        m = re.search(r"(?:^|\s)--?([A-Za-z][\w-]*)", message) or re.search(r"argument (\w+)", message)
        field = m.group(1).replace("-", "_") if m else None
        print(
            json.dumps(InputError(f"{self.prog}: {message}", field=field).to_dict(), ensure_ascii=False),
            file=sys.stderr,
        )
        raise SystemExit(EXIT_BAD_INPUT)


def run(parser: argparse.ArgumentParser, argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen command's ``func``, turning every failure into its documented exit code
    and structured error line (shared by ``python -m core`` and ``python -m bench``)."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage; keep the documented exit code
        return EXIT_BAD_INPUT if exc.code else 0
    try:
        result: int = args.func(args)
        return result
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
