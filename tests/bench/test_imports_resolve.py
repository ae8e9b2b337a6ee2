"""Every ``from core… / bench… / components… import name`` in bench/ and tests/ names something that module has,
the imports inside functions included: mypy does not read these folders, and a lazy import breaks only when its case
runs (the half-day events moved to core/models/halfday/events.py while a bench case and a test still imported them from
models.py)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from core.config import PROJECT_ROOT

FOLDERS = ("bench", "tests")
#: the project's own packages whose names are checked
PACKAGES = ("core", "bench", "components")


def _imports(path: Path) -> list[tuple[int, str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        (node.lineno, node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] in PACKAGES
        for alias in node.names
        if alias.name != "*"
    ]


def _resolves(module: str, name: str) -> bool:
    found = importlib.import_module(module)
    if hasattr(found, name):
        return True
    try:  # a submodule: ``from core.geo import amap``
        importlib.import_module(f"{module}.{name}")
    except ImportError:
        return False
    return True


def test_every_project_name_imported_by_the_benches_and_tests_exists() -> None:
    missing = [
        f"{path.relative_to(PROJECT_ROOT)}:{line}: {name} from {module}"
        for folder in FOLDERS
        for path in sorted((PROJECT_ROOT / folder).rglob("*.py"))
        for line, module, name in _imports(path)
        if not _resolves(module, name)
    ]
    assert missing == []
