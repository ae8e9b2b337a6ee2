"""The composition root's counts (issue 30): what domain code fetches or keeps for itself, where words come from the
catalogs, and how long functions are.

Counts, in the product's Python files:

- **settings reads below the root**: calls of ``get_settings`` or ``clock_from_settings`` in domain and engine code
  (``core`` but for ``core/config.py``, ``core/clock.py``, ``core/app`` and ``core/cli``, which build the request's
  context): a domain is given its settings, it never fetches them;
- **global statements** anywhere in the product;
- **context variables** (``ContextVar(...)``) in domain and engine code: request state rides in the call, not
  beside it;
- **catalog calls outside the words layer**: modules that call the catalogs (``core.i18n.t`` or ``lookup``, by name
  or through a module that re-exports them, ``words.t(...)``) outside the words layer (``core/words``) and the
  faces (``components``, ``pages``, ``app.py``, ``api.py``, ``core/cli``): domains return codes and facts, one layer
  words them (issue 30);
- **long functions**: functions (methods included) of more than 80 lines, and the longest, over ``core``,
  ``components``, ``pages``, ``app.py`` and ``api.py``.

Each count has a target and a ceiling. The ceiling is today's figure where the target is not reached yet: a change
may lower it (and should then lower the ceiling here), never raise it. Exit 1 when a count is over its ceiling, with
every place listed; 0 otherwise. ``--list`` prints every place even when all is within the ceilings.

    python scripts/check_architecture.py [--list] [ROOT]
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

PRODUCT = ("core", "components", "pages", "app.py", "api.py")
#: the root and the faces of core: they read the settings to build a request's context
ROOT_MODULES = ("core/config.py", "core/clock.py", "core/app/", "core/cli/")
LONG_LINES = 80
#: where words may come from the catalogs: the words layer and the faces
WORDING_MODULES = ("core/words/", "core/cli/", "core/i18n.py", "components/", "pages/", "app.py", "api.py")
#: the catalog's lookups, by the name core.i18n defines them under
CATALOG_CALLS = ("t", "lookup")


@dataclass(frozen=True)
class Count:
    name: str
    target: int
    ceiling: int  # today's figure while the target is not reached; lowered as the work lands, never raised


#: target, and the ceiling until the target is reached
COUNTS = {
    "settings_reads": Count("settings reads below the root", target=0, ceiling=0),
    "globals": Count("global statements", target=0, ceiling=0),
    "context_vars": Count("context variables below the root", target=0, ceiling=0),
    "catalog_callers": Count(
        "modules outside the words layer and the faces that call the catalogs", target=0, ceiling=7
    ),
    "long_functions": Count(f"functions over {LONG_LINES} lines", target=10, ceiling=33),
    "longest_function": Count("lines of the longest function", target=120, ceiling=120),
}


@dataclass
class Findings:
    settings_reads: list[str] = field(default_factory=list)
    globals: list[str] = field(default_factory=list)
    context_vars: list[str] = field(default_factory=list)
    catalog_callers: list[str] = field(default_factory=list)
    long_functions: list[tuple[int, str]] = field(default_factory=list)

    def figures(self) -> dict[str, int]:
        return {
            "settings_reads": len(self.settings_reads),
            "globals": len(self.globals),
            "context_vars": len(self.context_vars),
            "catalog_callers": len(self.catalog_callers),
            "long_functions": len(self.long_functions),
            "longest_function": max((n for n, _ in self.long_functions), default=0),
        }


#: the calls counted, by the name they are defined under
SETTINGS_READS = ("get_settings", "clock_from_settings")


def _called_name(node: ast.Call, aliases: dict[str, str]) -> str | None:
    """The defined name of what ``node`` calls: ``f()``, ``module.f()``, or ``g()`` after ``import f as g``."""
    func = node.func
    if isinstance(func, ast.Name):
        return aliases.get(func.id, func.id)
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _catalog_calls(tree: ast.Module) -> list[int]:
    """The lines where ``tree`` calls the catalogs: ``t(...)``/``lookup(...)`` imported from ``core.i18n`` (under any
    alias), or ``module.t(...)``/``module.lookup(...)`` (``i18n.t``, or a module that re-exports them)."""
    from_catalogs = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "core.i18n"
        for alias in node.names
        if alias.name in CATALOG_CALLS
    }
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Name) and func.id in from_catalogs) or (
            isinstance(func, ast.Attribute) and func.attr in CATALOG_CALLS and isinstance(func.value, ast.Name)
        ):
            lines.append(node.lineno)
    return sorted(lines)


def inspect_source(source: str, where: str, *, below_root: bool, into: Findings, words_allowed: bool = True) -> None:
    """Add what ``source`` (the file ``where``) holds to ``into``; ``below_root``: domain or engine code;
    ``words_allowed``: the words layer or a face, which may call the catalogs."""
    tree = ast.parse(source, where)
    if not words_allowed:
        calls = _catalog_calls(tree)
        if calls:
            into.catalog_callers.append(f"{where}:{calls[0]} calls the catalogs {len(calls)} times")
    aliases = {
        alias.asname: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname is not None
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            into.globals.append(f"{where}:{node.lineno} global {', '.join(node.names)}")
        elif isinstance(node, ast.Call) and below_root:
            name = _called_name(node, aliases)
            if name in SETTINGS_READS:
                into.settings_reads.append(f"{where}:{node.lineno} {name}()")
            elif name == "ContextVar":
                into.context_vars.append(f"{where}:{node.lineno} ContextVar")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > LONG_LINES:
                into.long_functions.append((lines, f"{where}:{node.lineno} {node.name}"))


def product_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for entry in PRODUCT:
        path = root / entry
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.is_file() else []
    return files


def inspect(root: Path) -> Findings:
    found = Findings()
    for path in product_files(root):
        where = path.relative_to(root).as_posix()
        below_root = where.startswith("core/") and not where.startswith(ROOT_MODULES)
        words_allowed = where.startswith(WORDING_MODULES)
        source = path.read_text(encoding="utf-8")
        inspect_source(source, where, below_root=below_root, into=found, words_allowed=words_allowed)
    found.long_functions.sort(reverse=True)
    return found


def report(found: Findings, *, list_all: bool) -> tuple[list[str], bool]:
    """The report's lines, and whether every count is within its ceiling."""
    figures = found.figures()
    places = {
        "settings_reads": found.settings_reads,
        "globals": found.globals,
        "context_vars": found.context_vars,
        "catalog_callers": found.catalog_callers,
        "long_functions": [f"{where} ({n} lines)" for n, where in found.long_functions],
    }
    lines: list[str] = []
    ok = True
    for key, count in COUNTS.items():
        value = figures[key]
        over = value > count.ceiling
        ok = ok and not over
        state = "OVER THE CEILING" if over else "target reached" if value <= count.target else "within the ceiling"
        lines.append(f"{count.name}: {value} (target {count.target}, ceiling {count.ceiling}): {state}")
        if (over or list_all) and key in places:
            lines += [f"    {place}" for place in places[key]]
    return lines, ok


def main(argv: list[str]) -> int:
    list_all = "--list" in argv
    rest = [a for a in argv if a != "--list"]
    root = Path(rest[0]) if rest else Path(__file__).resolve().parent.parent
    lines, ok = report(inspect(root), list_all=list_all)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
