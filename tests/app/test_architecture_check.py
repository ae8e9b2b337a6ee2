"""The composition root's counts (scripts/check_architecture.py, run by make lint): what it finds, where it looks,
and that it fails when domain code fetches its settings, keeps a global, rides a context variable or calls the
catalogs outside the words layer and the faces, or when core/app re-exports a name from below it or forwards a call."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.paths import ROOT

_SPEC = importlib.util.spec_from_file_location("check_architecture", ROOT / "scripts" / "check_architecture.py")
assert _SPEC is not None and _SPEC.loader is not None
check = importlib.util.module_from_spec(_SPEC)
sys.modules["check_architecture"] = check  # its dataclasses look their module up
_SPEC.loader.exec_module(check)


def _found(source: str, *, below_root: bool = True) -> dict[str, int]:
    found = check.Findings()
    check.inspect_source(textwrap.dedent(source), "core/route/x.py", below_root=below_root, into=found)
    return found.figures()


@pytest.mark.parametrize(
    ("source", "key"),
    [
        ("from core.config import get_settings\ndef f():\n    return get_settings().region\n", "settings_reads"),
        ("from core import config\ndef f():\n    return config.get_settings()\n", "settings_reads"),
        ("from core.clock import clock_from_settings\nnow = clock_from_settings(s)()\n", "settings_reads"),
        ("from core.config import get_settings as current\nS = current()\n", "settings_reads"),
        ("X = None\ndef f():\n    global X\n    X = 1\n", "globals"),
        ("from contextvars import ContextVar\nV = ContextVar('v', default=None)\n", "context_vars"),
        ("import contextvars\nV = contextvars.ContextVar('v')\n", "context_vars"),
    ],
)
def test_each_form_is_counted(source, key):
    figures = _found(source)
    assert figures[key] == 1
    assert sum(figures[k] for k in ("settings_reads", "globals", "context_vars")) == 1


def test_the_root_may_read_the_settings_but_not_keep_globals():
    source = "from core.config import get_settings\ns = get_settings()\nX = 0\ndef f():\n    global X\n"
    assert _found(source, below_root=False)["settings_reads"] == 0
    assert _found(source, below_root=False)["globals"] == 1


def test_a_function_of_81_lines_is_long_and_one_of_80_is_not():
    body = "".join(f"    x{i} = {i}\n" for i in range(79))
    assert _found(f"def ok():\n{body}")["long_functions"] == 0  # 80 lines with its def
    figures = _found(f"def long():\n{body}    x = 0\n")
    assert figures["long_functions"] == 1 and figures["longest_function"] == 81


STRICT_EVERYWHERE = '[tool.mypy]\nfiles = ["core", "components", "pages", "app.py", "api.py"]\nstrict = true\n'


def _write(root: Path, relative: str, source: str) -> None:
    """``source`` at ``relative`` in a project that mypy checks strictly throughout."""
    if not (root / "pyproject.toml").exists():
        (root / "pyproject.toml").write_text(STRICT_EVERYWHERE)
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source), encoding="utf-8")


def test_the_project_is_within_every_ceiling(capsys):
    assert check.main([str(ROOT)]) == 0, capsys.readouterr().out
    scanned = {path.relative_to(ROOT).parts[0] for path in check.product_files(ROOT)}
    # it looked where the product is
    assert scanned == {"core", "components", "pages", "app.py", "api.py", "api_routes"}


def test_only_the_root_and_the_command_line_may_read_the_settings(tmp_path, capsys):
    read = "from core.config import get_settings\nS = get_settings()\n"
    for allowed in ("core/config.py", "core/clock.py", "core/app/agent.py", "core/cli/route.py", "components/x.py"):
        _write(tmp_path, allowed, read)
    assert check.main([str(tmp_path)]) == 0, capsys.readouterr().out
    _write(tmp_path, "core/stores/db.py", read)
    assert check.main([str(tmp_path)]) == 1
    assert "core/stores/db.py:2 get_settings()" in capsys.readouterr().out


def test_a_domain_that_reads_its_settings_fails_the_check_and_is_named(tmp_path, capsys):
    _write(tmp_path, "core/app/context.py", "from core.config import get_settings\nS = get_settings()\n")
    assert check.main([str(tmp_path)]) == 0  # the root reads them: allowed
    _write(tmp_path, "core/itinerary/plan.py", "from core.config import get_settings\nS = get_settings()\n")
    assert check.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "settings reads below the root: 1 (target 0, ceiling 0): OVER THE CEILING" in out
    assert "core/itinerary/plan.py:2 get_settings()" in out


def test_a_global_in_a_face_fails_the_check(tmp_path, capsys):
    _write(tmp_path, "components/state.py", "N = 0\ndef bump():\n    global N\n    N += 1\n")
    assert check.main([str(tmp_path)]) == 1
    assert "components/state.py:3 global N" in capsys.readouterr().out


def _project(tmp_path: Path, mypy: str) -> Path:
    """A project with one module in each face and core, and ``mypy`` as its [tool.mypy] section."""
    for where in ("core/route/plan.py", "core/__init__.py", "components/map.py", "pages/home.py", "app.py", "api.py"):
        (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / where).write_text("X = 1\n")
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(mypy))
    return tmp_path


def test_a_module_mypy_does_not_check_strictly_is_counted_by_name(tmp_path):
    root = _project(
        tmp_path,
        """
        [tool.mypy]
        files = ["core", "components", "app.py"]

        [[tool.mypy.overrides]]
        module = ["core", "core.*", "app"]
        strict = true
        """,
    )
    found = check.inspect(root)
    # components/ is checked but not strictly; pages/ and api.py are not checked at all
    assert sorted(found.not_strict) == ["api.py", "components/map.py", "pages/home.py"]
    lines, ok = check.report(found, list_all=False)
    assert not ok and "product modules outside mypy strict: 3 (target 0, ceiling 0): OVER THE CEILING" in lines


def test_strict_for_every_file_mypy_checks_counts_nothing(tmp_path):
    root = _project(
        tmp_path,
        """
        [tool.mypy]
        files = ["core", "components", "pages", "app.py", "api.py"]
        strict = true
        """,
    )
    assert check.inspect(root).not_strict == []


def test_the_project_itself_is_strict_everywhere():
    assert check.inspect(ROOT).not_strict == []


def _app_found(source: str) -> check.Findings:
    found = check.Findings()
    check.inspect_app_source(textwrap.dedent(source), "core/app/x.py", into=found)
    return found


def test_a_name_core_app_lists_but_imports_from_below_is_a_re_export():
    found = _app_found(
        """
        from core.app.context import RequestContext
        from core.route.compare import OrderComparison
        from core.packs import loader as packs
        import core.geo
        from core.route.planner import plan_route as _plan

        __all__ = ["OrderComparison", "RequestContext", "packs", "core", "plan", "Outcome"]

        class Outcome: ...

        def plan(ctx: RequestContext) -> None:
            _plan(ctx)
        """
    )
    assert sorted(found.app_reexports) == ["core/app/x.py OrderComparison", "core/app/x.py core", "core/app/x.py packs"]
    assert found.figures()["app_reexports"] == 3  # its own use cases, contracts and core/app's names are not


def test_a_function_that_only_hands_its_arguments_on_is_a_forwarder():
    found = _app_found(
        '''
        def read(path, *rows, lang="en", **more):
            """A docstring and a local import do not make it do something."""
            from core.lab.batch import read_batch

            return read_batch(path, *rows, lang=lang, **more)

        def words(code):
            return core.route.words.source_words(code)
        '''
    )
    assert found.app_forwarders == [
        "core/app/x.py:2 read -> read_batch",
        "core/app/x.py:8 words -> core.route.words.source_words",
    ]
    assert found.figures()["app_forwarders"] == 2


@pytest.mark.parametrize(
    "source",
    [
        "def plan(ctx, request):\n    return plan_route(request, provider=ctx.providers)\n",  # binds the context
        "def today(ctx):\n    return ctx.now().date()\n",  # a parameter's own method
        "def regions(data_dir=None):\n    return list_regions(data_dir or DEFAULT)\n",  # decides a default
        "def stops(n):\n    return words(n, 'en')\n",  # adds an argument
        "def memory(ctx):\n    store = open_store(ctx)\n    return store.get(ctx.user)\n",  # two statements
        "def actions():\n    return registry().describe()\n",  # composes two calls
        "def ping():\n    return None\n",  # returns no call
    ],
)
def test_a_use_case_that_binds_or_decides_is_no_forwarder(source):
    assert _app_found(source).app_forwarders == []


def test_a_new_re_export_or_forwarder_in_core_app_fails_the_check_and_is_named(tmp_path, capsys):
    _write(tmp_path, "core/app/route.py", "from core.route.compare import place_key\n__all__ = ['place_key']\n")
    assert check.main([str(tmp_path)]) == 0  # one of each is within today's ceilings
    reexports = "".join(f"from core.route.m{i} import n{i}\n" for i in range(check.CEILING_REEXPORTS + 1))
    names = ", ".join(f"'n{i}'" for i in range(check.CEILING_REEXPORTS + 1))
    _write(tmp_path, "core/app/route.py", f"{reexports}__all__ = [{names}]\n")
    assert check.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"names core/app re-exports from below it: {check.CEILING_REEXPORTS + 1} " in out
    assert "core/app/route.py n0" in out
    forwarders = "".join(f"def f{i}(x):\n    return g(x)\n" for i in range(check.CEILING_FORWARDERS + 1))
    _write(tmp_path, "core/app/route.py", forwarders)
    assert check.main([str(tmp_path)]) == 1
    assert "core/app/route.py:1 f0 -> g" in capsys.readouterr().out
    _write(tmp_path, "components/route.py", forwarders)  # a face's helpers are not the application layer's
    _write(tmp_path, "core/app/route.py", "")
    assert check.main([str(tmp_path)]) == 0


def _catalog_callers(source: str, *, words_allowed: bool = False) -> int:
    found = check.Findings()
    check.inspect_source(
        textwrap.dedent(source), "core/route/x.py", below_root=True, into=found, words_allowed=words_allowed
    )
    return found.figures()["catalog_callers"]


@pytest.mark.parametrize(
    "source",
    [
        "from core.i18n import t\ndef f(lang):\n    return t('route.role.origin', lang)\n",
        "from core.i18n import t as say\nX = say('route.role.origin', 'en')\n",
        "from core import i18n\nX = i18n.t('route.role.origin', 'zh')\n",
        "from core.i18n import lookup\nX = lookup('route.role.origin', 'en', {})\n",
        "from core.words import agent as words\nX = words.t('agent.booking.the_venue', 'en')\n",  # a re-export
    ],
)
def test_each_way_of_calling_the_catalogs_is_counted_once_per_module(source):
    assert _catalog_callers(source + source.splitlines()[-1] + "\n") == 1  # two calls, one module
    assert _catalog_callers(source, words_allowed=True) == 0


def test_importing_words_without_calling_the_catalogs_is_not_counted():
    assert (
        _catalog_callers(
            "from core.i18n import Lang, join_words, t\ndef f(xs, lang: Lang):\n    return join_words(xs, lang)\n"
        )
        == 0
    )


def test_a_domain_that_words_things_fails_the_check_and_the_words_layer_and_faces_may(tmp_path, capsys, monkeypatch):
    reached = check.Count("modules outside the words layer and the faces that call the catalogs", target=0, ceiling=0)
    monkeypatch.setitem(check.COUNTS, "catalog_callers", reached)  # as when the agent's words have moved too
    say = "from core.i18n import t\nX = t('route.role.origin', 'en')\n"
    for allowed in ("core/words/route.py", "core/cli/route.py", "components/x.py", "pages/y.py", "api.py", "app.py"):
        _write(tmp_path, allowed, say)
    assert check.main([str(tmp_path)]) == 0, capsys.readouterr().out
    _write(tmp_path, "core/itinerary/plan.py", "\n" + say)
    assert check.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "the catalogs: 1 (target 0, ceiling 0): OVER THE CEILING" in out
    assert "core/itinerary/plan.py:3 calls the catalogs 1 times" in out
