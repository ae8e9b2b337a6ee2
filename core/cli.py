"""What every command of ``python -m core`` shares: exit codes, the structured error line, JSON request files.

Bad input exits with code 2 and prints ``{"error": {"code", "message", "field"}}`` on stderr (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from core.errors import InputError, OmniError

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1


def fail(err: OmniError, code: int = EXIT_BAD_INPUT) -> int:
    print(json.dumps(err.to_dict(), ensure_ascii=False), file=sys.stderr)
    return code


def read_json(path: str, field: str = "request") -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        raise InputError(f"request file not found: {path}", field=field)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"request file is not valid JSON: {exc.msg} (line {exc.lineno})", field=field) from None
    if not isinstance(data, dict):
        raise InputError("the request must be a JSON object", field=field)
    return data


class Parser(argparse.ArgumentParser):
    """argparse that also prints the structured ``{"error": ...}`` line on a usage error (exit code 2)."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        m = re.search(r"(?:^|\s)--?([A-Za-z][\w-]*)", message) or re.search(r"argument (\w+)", message)
        field = m.group(1).replace("-", "_") if m else None
        print(
            json.dumps(InputError(f"{self.prog}: {message}", field=field).to_dict(), ensure_ascii=False),
            file=sys.stderr,
        )
        raise SystemExit(EXIT_BAD_INPUT)
