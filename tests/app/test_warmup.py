"""The serving process's warm-up (core/app/warmup.py): in the background, once per process, never raising."""

from __future__ import annotations

import threading

import pytest

from core.app import AppServices, warmup
from core.config import get_settings


def test_start_does_not_wait_for_the_steps_and_runs_them_once(monkeypatch):
    release = threading.Event()
    calls: list[str] = []

    def slow_step(services: AppServices, region: str) -> None:
        calls.append(region)
        assert release.wait(10), "the test never released the step"

    monkeypatch.setattr(warmup, "STEPS", {"slow": slow_step})
    services = AppServices()
    first = warmup.start_warm_up(services, ["shanghai"])
    # the caller is back while the step is still held: a page that builds the services is not held up
    assert not first.done.is_set()
    second = warmup.start_warm_up(services, ["shanghai"])
    assert second is first  # once per process: no second thread
    release.set()
    assert first.wait(10)
    assert calls == ["shanghai"]
    assert set(first.seconds) == {"slow:shanghai"}
    assert first.thread is not None and first.thread.daemon


@pytest.mark.parametrize("error", [OSError("pack folder gone"), RuntimeError("pack folder gone")])
def test_a_failing_step_is_recorded_and_the_rest_still_run(monkeypatch, error):
    """Any error (a step plans whole half days: a solver's or a database's error too) is recorded, not raised."""
    ran: list[str] = []

    def broken(services: AppServices, region: str) -> None:
        raise error

    monkeypatch.setattr(warmup, "STEPS", {"broken": broken, "next": lambda s, r: ran.append(r)})
    state = warmup.warm_up(AppServices(), ["shanghai", "helsinki"])
    assert state.done.is_set()
    said = f"{type(error).__name__}: pack folder gone"
    assert state.failed == {"broken:shanghai": said, "broken:helsinki": said}
    assert ran == ["shanghai", "helsinki"]


def test_the_real_steps_build_the_geocoder_index_the_kernels_and_the_gazetteer():
    from core.geo import offline
    from core.optimizer import ils
    from core.packs import coverage

    region = get_settings().region
    services = AppServices()
    state = warmup.warm_up(services, [region])
    assert state.failed == {}
    pack = services.provider("offline", region).region
    assert id(pack) in offline._INDEXES  # the first plan's geocode finds the index built
    assert ils._WARMED.is_set() or ils._kernels() is None  # compiled, unless numba is missing here
    assert coverage._gazetteer.cache_info().currsize == 1  # the scope check's gazetteer, indexed once
    assert id(pack) in coverage._pack_masks._held  # and the region's own words it masks, built for that pack
    assert set(state.seconds) == {
        f"packs_and_geocoder:{region}",
        f"route_kernels:{region}",
        f"place_scope:{region}",
        f"words_and_packs:{region}",
        f"database:{region}",
        f"halfday_planning:{region}",
    }


def test_the_half_day_warm_up_plans_each_language_by_the_rules_and_stores_nothing():
    from core.app import halfday

    services = AppServices()
    ctx = services.context(provider="offline", region=get_settings().region)
    before = halfday.memory_store(ctx).get("anonymous")
    assert halfday.warm_up_planning(ctx) == ["plans", "plans"]  # a plan in Chinese and one in English
    assert [g[:2] for g in halfday.WARM_UP_GOALS] == ["明天", "to"]
    assert halfday.memory_store(ctx).get("anonymous") == before  # nothing learned, nothing kept


def test_the_warm_up_reads_every_catalog_in_both_languages_and_every_installed_pack():
    from core import i18n
    from core.packs.loader import list_regions, load_region

    settings = get_settings()
    state = warmup.warm_up(AppServices(), [settings.region])
    assert state.failed == {}
    # after it, a request's first sentence of any domain and its scope check read nothing from disk: all hits
    catalogs, packs = i18n._cached_catalog.cache_info(), load_region.cache_info()
    domains = i18n.domains()
    assert len(domains) >= 9 and set(i18n.LANGS) == {"zh", "en"}
    for lang in i18n.LANGS:
        for domain in domains:
            i18n.messages(lang, domain)
    regions = list_regions(settings.data_dir)
    for name in regions:
        load_region(name, settings.data_dir)
    after_catalogs, after_packs = i18n._cached_catalog.cache_info(), load_region.cache_info()
    assert after_catalogs.misses == catalogs.misses
    assert after_catalogs.hits == catalogs.hits + 2 * len(domains)
    assert len(regions) >= 2 and after_packs.misses == packs.misses
    assert after_packs.hits == packs.hits + len(regions)


def test_face_steps_run_after_the_core_steps_and_their_failures_are_recorded(monkeypatch):
    order: list[str] = []
    monkeypatch.setattr(warmup, "STEPS", {"core": lambda s, r: order.append(f"core:{r}")})

    def missing_module() -> None:
        raise ImportError("No module named 'nowhere'")

    state = warmup.warm_up(
        AppServices(),
        ["shanghai"],
        face_steps=[("imports", lambda: order.append("imports")), ("broken", missing_module)],
    )
    assert order == ["core:shanghai", "imports"]
    assert state.failed == {"broken": "ImportError: No module named 'nowhere'"}
    assert set(state.seconds) == {"core:shanghai", "imports", "broken"}


def test_the_warm_up_opens_and_migrates_the_settings_database(tmp_path):
    import sqlalchemy as sa

    from core.config import Settings
    from core.stores.db import Database, engine_for

    url = f"sqlite:///{tmp_path / 'warm.db'}"
    services = AppServices(settings=Settings(db_url=url))
    state = warmup.warm_up(services, [services.settings.region])
    assert state.failed == {}
    assert (tmp_path / "warm.db").is_file()  # created and migrated before any request
    hits = engine_for.cache_info().hits
    engine = engine_for(Database.from_settings(services.settings))
    assert engine_for.cache_info().hits == hits + 1  # the first request finds the engine opened
    assert {"agent_conversations", "agent_conversation_turns"} <= set(sa.inspect(engine).get_table_names())
