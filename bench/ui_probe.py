"""Server-side timing for ``python -m core bench ui``: the planning calls of the pages, logged one JSON line each.

``install(log_path)`` wraps ``core.route.planner.plan_route``, ``core.itinerary.pipeline.plan_itinerary``,
``core.itinerary.edits.reoptimize`` and the edits made on the plan's orders (``core.itinerary.shaping.remove_in_place``,
``shape_plan``) in the process that serves the app (the pages import them by name on every
script run, so they pick up the wrapped functions). Each call appends ``{"call": NAME, "seconds": S, "wall": T}``
to the log (only the outermost of nested probed calls); the bench reads the lines a click produced, so the report
can split a click's time into planning and everything else. Nothing here imports Streamlit: the bench starts
the server as ``python -c "import bench.ui_probe as p; p.install(LOG); <streamlit's own entry point>"``.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: (module, function) pairs timed in the app's process
PROBED = (
    ("core.route.planner", "plan_route"),
    ("core.itinerary.pipeline", "plan_itinerary"),
    ("core.itinerary.edits", "reoptimize"),
    ("core.itinerary.shaping", "remove_in_place"),  # a removal: its day laid out again (issue 32)
    ("core.itinerary.shaping", "shape_plan"),
)

_LOCK = threading.Lock()
_DEPTH = threading.local()  # a probed call inside another (reoptimize → plan_itinerary) is not logged twice


def _timed(name: str, func: Callable[..., Any], log: Path) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        depth = getattr(_DEPTH, "n", 0)
        _DEPTH.n = depth + 1
        t0 = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            _DEPTH.n = depth
            if depth == 0:
                line = json.dumps({"call": name, "seconds": round(time.perf_counter() - t0, 4), "wall": time.time()})
                with _LOCK, log.open("a", encoding="utf-8") as out:
                    out.write(line + "\n")

    wrapper.__bench_probe__ = True  # type: ignore[attr-defined]
    return wrapper


def install(log_path: str | Path) -> None:
    """Wrap the probed functions once; the log file is created empty."""
    import importlib

    log = Path(log_path)
    log.write_text("", encoding="utf-8")
    for module_name, attr in PROBED:
        module = importlib.import_module(module_name)
        func = getattr(module, attr)
        if not getattr(func, "__bench_probe__", False):
            setattr(module, attr, _timed(attr, func, log))


def read_calls(log_path: str | Path, *, since: int = 0) -> tuple[list[dict[str, Any]], int]:
    """The calls logged from line ``since`` on, and the next line number."""
    path = Path(log_path)
    if not path.is_file():
        return [], since
    lines = path.read_text(encoding="utf-8").splitlines()
    calls = []
    for raw in lines[since:]:
        try:
            calls.append(json.loads(raw))
        except ValueError:
            continue
    return calls, len(lines)
