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
  faces (``components``, ``pages``, ``app.py``, ``api.py``, ``api_routes``, ``core/cli``): domains return codes and facts, one layer
  words them (issue 30);
- **long functions**: functions (methods included) of more than 80 lines, and the longest, over ``core``,
  ``components``, ``pages``, ``app.py``, ``api.py`` and ``api_routes``;
- **modules outside mypy strict**: product files that ``make lint``'s mypy does not check (``[tool.mypy] files``) or
  checks without ``strict`` (its overrides), read from ``pyproject.toml``;
- **re-exports of the application layer**: names a ``core/app`` module lists in its ``__all__`` but imports from
  outside ``core/app`` (a face imports a contract from ``core/models``, not through a use case);
- **forwarders of the application layer**: ``core/app`` functions whose body (its docstring and imports aside) is a
  single ``return other(...)`` that only passes its own arguments on: a use case binds the request's context or
  does something, a forwarder adds nothing.

Each count has a target and a ceiling. The ceiling is today's figure where the target is not reached yet: a change
may lower it (and should then lower the ceiling here), never raise it. Exit 1 when a count is over its ceiling, with
every place listed; 0 otherwise. ``--list`` prints every place even when all is within the ceilings.

    python scripts/check_architecture.py [--list] [ROOT]
"""

from __future__ import annotations

import ast
import fnmatch
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PRODUCT = ("core", "components", "pages", "app.py", "api.py", "api_routes")
#: the root and the faces of core: they read the settings to build a request's context
ROOT_MODULES = ("core/config.py", "core/clock.py", "core/app/", "core/cli/")
LONG_LINES = 80
APP = "core/app/"
#: today's re-export: ReservationService (the dashboard's reservation flow still drives the service itself)
CEILING_REEXPORTS = 1
#: today's forwarders: 10 word functions (notice, source, provider, stops, search, why, reason and fix words: the
#: words layer takes them) and 8 domain functions a face reads (lab, half-day windows, calendar, datum, comparison)
CEILING_FORWARDERS = 18
#: where words may come from the catalogs: the words layer and the faces
WORDING_MODULES = (
    "core/words/",
    "core/cli/",
    "core/i18n.py",
    "components/",
    "pages/",
    "app.py",
    "api.py",
    "api_routes/",
)
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
    "long_functions": Count(f"functions over {LONG_LINES} lines", target=10, ceiling=0),
    "longest_function": Count("lines of the longest function", target=120, ceiling=80),
    "not_strict": Count("product modules outside mypy strict", target=0, ceiling=0),
    "app_reexports": Count("names core/app re-exports from below it", target=0, ceiling=CEILING_REEXPORTS),
    "app_forwarders": Count("forwarders in core/app", target=0, ceiling=CEILING_FORWARDERS),
}


@dataclass
class Findings:
    settings_reads: list[str] = field(default_factory=list)
    globals: list[str] = field(default_factory=list)
    context_vars: list[str] = field(default_factory=list)
    catalog_callers: list[str] = field(default_factory=list)
    long_functions: list[tuple[int, str]] = field(default_factory=list)
    longest: tuple[int, str] = (0, "")  # the longest function of all, long or not
    not_strict: list[str] = field(default_factory=list)
    app_reexports: list[str] = field(default_factory=list)
    app_forwarders: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, int]:
        return {
            "settings_reads": len(self.settings_reads),
            "globals": len(self.globals),
            "context_vars": len(self.context_vars),
            "catalog_callers": len(self.catalog_callers),
            "long_functions": len(self.long_functions),
            "longest_function": self.longest[0],
            "not_strict": len(self.not_strict),
            "app_reexports": len(self.app_reexports),
            "app_forwarders": len(self.app_forwarders),
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
            if lines > into.longest[0]:
                into.longest = (lines, f"{where}:{node.lineno} {node.name}")
            if lines > LONG_LINES:
                into.long_functions.append((lines, f"{where}:{node.lineno} {node.name}"))


def _exported(tree: ast.Module) -> list[str]:
    """The names of the module's ``__all__`` (a list or tuple of strings; none when it has no such ``__all__``)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            if isinstance(node.value, ast.List | ast.Tuple):
                return [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _imported_from_below(tree: ast.Module) -> set[str]:
    """The names the module binds at its top by importing them from outside ``core.app``."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and not (node.module or "").startswith("core.app") and node.level == 0:
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.asname or alias.name.partition(".")[0] for alias in node.names}
    return names


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def _forwarded_call(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Call | None:
    """The call ``node`` only hands its own arguments on to, if that is all it does (None otherwise)."""
    body = [
        s
        for s in node.body
        if not isinstance(s, ast.Import | ast.ImportFrom)
        and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str))
    ]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return None
    call = body[0].value
    callee = call.func
    while isinstance(callee, ast.Attribute):
        callee = callee.value
    params = _parameters(node)
    if not isinstance(callee, ast.Name) or callee.id in params:  # a parameter's method: the call uses what it got
        return None
    passed = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
    return call if all(isinstance(a, ast.Name) and a.id in params for a in passed) else None


def inspect_app_source(source: str, where: str, *, into: Findings) -> None:
    """Add what the ``core/app`` module ``source`` (the file ``where``) re-exports and forwards to ``into``."""
    tree = ast.parse(source, where)
    below = _imported_from_below(tree)
    into.app_reexports += [f"{where} {name}" for name in _exported(tree) if name in below]
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (call := _forwarded_call(node)) is not None:
            into.app_forwarders.append(f"{where}:{node.lineno} {node.name} -> {ast.unparse(call.func)}")


def product_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for entry in PRODUCT:
        path = root / entry
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.is_file() else []
    return files


def module_name(where: str) -> str:
    """``core/geo/base.py`` -> ``core.geo.base``; a package's ``__init__.py`` is the package."""
    parts = where.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def strict_checked(where: str, mypy: dict[str, Any]) -> bool:
    """Whether mypy, as ``[tool.mypy]`` configures it, checks the file ``where`` with ``strict``."""
    files = [str(f).rstrip("/") for f in mypy.get("files", [])]
    if not any(where == f or where.startswith(f + "/") for f in files):
        return False
    name = module_name(where)
    if mypy.get("strict") is True:
        return True
    overrides = mypy.get("overrides", [])
    return any(
        override.get("strict") is True and any(fnmatch.fnmatchcase(name, pattern) for pattern in override["module"])
        for override in overrides
    )


def inspect(root: Path) -> Findings:
    found = Findings()
    pyproject = root / "pyproject.toml"
    mypy = (
        tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {}).get("mypy", {})
        if pyproject.is_file()
        else {}
    )
    for path in product_files(root):
        where = path.relative_to(root).as_posix()
        below_root = where.startswith("core/") and not where.startswith(ROOT_MODULES)
        words_allowed = where.startswith(WORDING_MODULES)
        source = path.read_text(encoding="utf-8")
        inspect_source(source, where, below_root=below_root, into=found, words_allowed=words_allowed)
        if where.startswith(APP):
            inspect_app_source(source, where, into=found)
        if not strict_checked(where, mypy):
            found.not_strict.append(where)
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
        "not_strict": found.not_strict,
        "longest_function": [f"{found.longest[1]} ({found.longest[0]} lines)"],
        "app_reexports": found.app_reexports,
        "app_forwarders": found.app_forwarders,
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
