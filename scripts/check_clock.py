"""The product reads the moment from one place (core/clock.py): no other product module calls the wall clock.

Finds, in the product's Python files (core, components, pages, app.py, api.py, api_routes), every call of ``datetime.now``,
``datetime.utcnow``, ``datetime.today``, ``date.today``, ``time.time``, ``time.localtime``, ``time.gmtime`` and
``time.ctime`` (also through ``datetime.datetime`` and ``from time import time``), and every use of ``time.time``
as a value (a default clock). ``core/clock.py`` alone may; durations use ``time.monotonic`` or ``perf_counter``,
which this check allows. Exit 1 with each place listed, 0 when there is none.

    python scripts/check_clock.py [ROOT]
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PRODUCT = ("core", "components", "pages", "app.py", "api.py", "api_routes")
ALLOWED = {Path("core/clock.py")}
#: (module-ish name, attribute) pairs that read the wall clock
WALL = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "localtime"),
    ("time", "gmtime"),
    ("time", "ctime"),
}


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` of an attribute chain of names (None for anything else)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head is not None else None
    return None


def wall_reads(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """(line, expression) of each wall-clock read in ``source``."""
    tree = ast.parse(source, filename)
    bare = set()  # names bound by "from time import time" and the like
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in {"time", "datetime"}:
            for alias in node.names:
                if (node.module, alias.name) in WALL:
                    bare.add(alias.asname or alias.name)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted is None:
                continue
            parts = dotted.split(".")
            if len(parts) >= 2 and (parts[-2], parts[-1]) in WALL:
                found.append((node.lineno, dotted))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in bare:
            found.append((node.lineno, f"{node.func.id}()"))
    return sorted(set(found))


def product_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for name in PRODUCT:
        path = root / name
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else []
    return files


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    problems = []
    for path in product_files(root):
        rel = path.relative_to(root)
        if rel in ALLOWED:
            continue
        for line, expr in wall_reads(path.read_text(encoding="utf-8"), str(rel)):
            problems.append(f"{rel}:{line}: {expr} reads the wall clock; take the request's clock (core/clock.py)")
    print("\n".join(problems) if problems else f"clock: no wall-clock read outside core/clock.py ({root.name})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
