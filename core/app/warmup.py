"""Warm a serving process before its first plan (issue 23 §5): the first plan of a fresh process used to pay for
the ILS kernels (numba, ~0.8 s), the offline geocoder's index (pinyin tables and the pack's name forms, ~0.7 s)
and the region packs. A face starts :func:`start_warm_up` once when it builds its shared ``AppServices``; the
work runs on a daemon thread, so the page that triggered it is not held up, and a plan that arrives meanwhile
simply builds what it needs itself (every step is idempotent and thread-safe in its own module).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.app.context import AppServices

log = logging.getLogger(__name__)

Step = Callable[[AppServices, str], None]


def _packs_and_geocoder(services: AppServices, region: str) -> None:
    """The region's pack, its offline provider and that provider's geocoding index (built by its first look-up)."""
    provider = services.provider("offline", region)
    first = next(iter(provider.region.places), None)
    if first is not None:
        provider.for_request().geocode(first.name_zh)


def _route_kernels(services: AppServices, region: str) -> None:
    """The ILS kernels of the order search (compiled, or loaded from numba's disk cache); once per process."""
    from core.optimizer.ils import warm_up

    warm_up()


def _place_scope(services: AppServices, region: str) -> None:
    """The gazetteer every entry reads a request's places with (core/app/scope.py: GeoNames' cities, ~1 s to index)
    and the region pack's own words the check masks (core/packs/derived.py); once per process."""
    from core.app.scope import in_scope

    in_scope(services.context(region=region), "Helsinki")


def _words_and_packs(services: AppServices, region: str) -> None:
    """Every catalog of words in both languages (a page's or an answer's first sentence of a domain read its .po:
    ~0.05 s each) and every installed pack (the scope check of a trip's or an assistant's first request reads them
    all, ~0.3 s); once per process."""
    from core.i18n import LANGS, domains, messages
    from core.packs.loader import list_regions, load_region

    for lang in LANGS:
        for domain in domains():
            messages(lang, domain)
    data_dir = services.settings.data_dir
    for name in list_regions(data_dir):
        load_region(name, data_dir)


def _database(services: AppServices, region: str) -> None:
    """The settings' database, opened and migrated (alembic's import alone ~1 s: the first half-day plan, booking
    or assistant turn paid it); once per process. One that cannot be reached is the step's recorded failure."""
    from core.stores.db import open_engine

    open_engine(services.context().database)


def _halfday_planning(services: AppServices, region: str) -> None:
    """One half-day plan per language on the region's offline data, dropped (core.app.halfday.warm_up_planning): a
    process's first half-day card used to wait ~1 s longer than the next for the goal reader's patterns, the queue
    tables and the composers' first run (issue 32)."""
    from core.app.halfday import warm_up_planning

    warm_up_planning(services.context(provider="offline", region=region))


#: what is warmed, in order (per region for the per-region steps; the kernels and the gazetteer once)
STEPS: dict[str, Step] = {
    "packs_and_geocoder": _packs_and_geocoder,
    "route_kernels": _route_kernels,
    "place_scope": _place_scope,
    "words_and_packs": _words_and_packs,
    "database": _database,
    "halfday_planning": _halfday_planning,
}
ONCE_PER_PROCESS = {"route_kernels", "place_scope", "words_and_packs", "database"}


@dataclass
class WarmUp:
    """One process's warm-up: its thread, when it is done, and how long each step took (for logs and benches)."""

    regions: tuple[str, ...]
    done: threading.Event = field(default_factory=threading.Event)
    seconds: dict[str, float] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    thread: threading.Thread | None = None

    def wait(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)


#: a face's own warm-up step after the core's (e.g. importing the modules its pages import): (name, function)
FaceStep = tuple[str, Callable[[], None]]


def warm_up(
    services: AppServices,
    regions: Sequence[str],
    *,
    face_steps: Sequence[FaceStep] = (),
    into: WarmUp | None = None,
) -> WarmUp:
    """Run every step now, in this thread; a step that fails is logged and recorded, never raised (a plan that
    needs it will raise the real error to its own face)."""
    state = into or WarmUp(regions=tuple(regions))
    runs: list[tuple[str, Callable[[], None]]] = [
        (f"{name}:{region}", functools.partial(step, services, region))
        for name, step in STEPS.items()
        for region in (regions[:1] if name in ONCE_PER_PROCESS else regions)
    ]
    try:
        for label, run in [*runs, *face_steps]:
            t0 = time.perf_counter()
            try:
                run()
            except Exception as exc:  # any step (a whole half-day plan among them): recorded, never raised
                state.failed[label] = f"{type(exc).__name__}: {exc}"
                log.warning("warm-up step %s failed: %s", label, exc)
            state.seconds[label] = round(time.perf_counter() - t0, 3)
    finally:
        state.done.set()
    return state


def start_warm_up(
    services: AppServices, regions: Sequence[str] | None = None, *, face_steps: Sequence[FaceStep] = ()
) -> WarmUp:
    """Start the warm-up of ``services`` (the process's root) on a daemon thread, once (a second call returns the
    first one's ``WarmUp``).

    ``regions``: the packs to warm (default: the settings' region, the one the pages open on); ``face_steps``: the
    face's own, run after the core's."""

    def start() -> WarmUp:
        state = WarmUp(regions=tuple(regions or (services.settings.region,)))
        state.thread = threading.Thread(
            target=warm_up,
            args=(services, state.regions),
            kwargs={"face_steps": tuple(face_steps), "into": state},
            name="omni-warm-up",
            daemon=True,
        )
        state.thread.start()
        return state

    return services.once("warm_up", start)
