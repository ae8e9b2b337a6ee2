"""Provider registry: build a provider by name (routingpy-style alias registry)."""

from __future__ import annotations

from core.config import Settings, get_settings
from core.errors import InputError
from core.geo.cache import CachedProvider
from core.geo.offline import OfflineProvider
from core.packs.loader import load_region

_PROVIDERS = ("offline", "amap")


def available_providers() -> list[str]:
    return list(_PROVIDERS)


def make_provider(name: str | None = None, *, region: str | None = None, settings: Settings | None = None):
    """A cached, counting provider. ``amap`` degrades to the offline estimate with warnings."""
    settings = settings or get_settings()
    name = (name or settings.provider).lower()
    pack = load_region(region or settings.region, settings.data_dir)
    offline = OfflineProvider(pack)
    if name == "offline":
        return CachedProvider(offline)
    if name == "amap":
        from core.geo.resilience import make_amap_provider

        return CachedProvider(make_amap_provider(settings, fallback=offline))
    raise InputError(f"unknown provider '{name}'; choose one of: {', '.join(_PROVIDERS)}", field="provider")
