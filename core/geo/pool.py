"""The map services of one process (docs/ARCHITECTURE.md, "The composition root"): one ``MapServices`` per key,
built on first use by one thread and shared by every request after it; a request plans on a view of it
(``MapServices.for_request``: its own warnings and call counts over the shared cache, breakers and clients).

The root of a process holds one pool: ``AppServices`` for the dashboard, the API and the CLI, the lab's worker
entry for a worker process."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from core.config import Settings
from core.geo.composite import MapServices

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def _build(name: str, region: str, settings: Settings) -> MapServices:
    from core.geo.registry import make_provider

    return make_provider(name, region=region, settings=settings)


class BuiltOnce(Generic[K, V]):
    """Values built on first use, one per key, each by one thread: a second caller for a key being built waits for
    that build instead of making its own (a provider holds clients and an engine, a reservation service an engine:
    a spare one would never be closed). Thread-safe."""

    def __init__(self) -> None:
        self._built: dict[K, V] = {}
        self._building: dict[K, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, key: K, build: Callable[[], V]) -> V:
        with self._lock:
            found = self._built.get(key)
            building = self._building.setdefault(key, threading.Lock())
        if found is not None:
            return found
        with building:
            with self._lock:
                found = self._built.get(key)
            if found is None:
                found = build()
                with self._lock:
                    self._built[key] = found
            return found

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._built[key] = value


class ProviderPool:
    """A process's map services, one per key (a provider name, a region, what of the settings shapes it)."""

    def __init__(self, build: Callable[[str, str, Settings], MapServices] = _build) -> None:
        self._build = build
        self._providers: BuiltOnce[Hashable, MapServices] = BuiltOnce()

    def shared(self, name: str, region: str, settings: Settings, *, key: Hashable) -> MapServices:
        """The pool's provider ``name`` for ``region`` under ``key``, built on first use from ``settings``."""
        return self._providers.get(key, lambda: self._build(name, region, settings))

    def view(self, name: str, region: str, settings: Settings, *, key: Hashable) -> MapServices:
        """A request's view of ``shared(...)``."""
        return self.shared(name, region, settings, key=key).for_request()

    def put(self, key: Hashable, provider: MapServices) -> None:
        """Serve ``provider`` under ``key`` (one built elsewhere: a test's, an embedding app's)."""
        self._providers.put(key, provider)
