"""Provider registry: MapServices by name (routingpy-style aliases; docs/ARCHITECTURE.md, "Adding a provider")."""

from __future__ import annotations

from core.config import Settings, get_settings
from core.errors import InputError
from core.geo.base import WarningLog
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.packs.loader import load_region

_PROVIDERS = ("offline", "amap")


def available_providers() -> list[str]:
    return list(_PROVIDERS)


def make_provider(
    name: str | None = None, *, region: str | None = None, settings: Settings | None = None
) -> MapServices:
    """The services for a region: ``offline`` (the pack's gazetteer and estimate) or ``amap`` (AMap for places,
    travel and weather, degrading to the offline estimate with warnings)."""
    settings = settings or get_settings()
    name = (name or settings.provider).lower()
    pack = load_region(region or settings.region, settings.data_dir)
    offline = OfflineProvider(pack)
    if name == "offline":
        return MapServices(geocoder=offline, router=offline, region=pack)
    if name == "amap":
        from core.geo.resilience import make_amap_provider

        warnings = WarningLog()
        amap = make_amap_provider(settings, fallback=offline, warnings=warnings)
        return MapServices(geocoder=amap, router=amap, weather=amap, region=pack, warnings=warnings)
    raise InputError(f"unknown provider '{name}'; choose one of: {', '.join(_PROVIDERS)}", field="provider")
