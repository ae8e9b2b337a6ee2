"""The region packs a face shows (the sidebar's list, a pack's facts, its places) and the providers and map datum
that go with them: look-ups, no planning. A pack is read through ``core.packs.loader`` (cached there)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.config import Settings, get_settings
from core.i18n import Lang
from core.models.region import RegionPack

__all__ = [
    "available_providers",
    "district_name",
    "example_place",
    "gcj02_to_wgs84",
    "list_regions",
    "load_region",
    "region_facts",
    "wgs84_to_gcj02",
]


def list_regions(*, data_dir: Path | None = None) -> list[str]:
    """The names of the region packs in ``data_dir`` (default: the settings' data folder)."""
    from core.packs.loader import list_regions as _list_regions

    return list(_list_regions(data_dir or get_settings().data_dir))


def load_region(name: str, *, data_dir: Path | None = None) -> RegionPack:
    """The region pack ``name`` (an OmniError when there is none or it cannot be read)."""
    from core.packs.loader import load_region as _load_region

    return _load_region(name, data_dir or get_settings().data_dir)


def region_facts(name: str, *, data_dir: Path | None = None) -> dict[str, Any]:
    """Small facts about a region pack: display names, centre (lon, lat), city, places, roads, data date,
    coverage, attribution, time zone (what the sidebar and the pages show about it)."""
    pack = load_region(name, data_dir=data_dir)
    return {
        "name": pack.name,
        "display_name": dict(pack.display_name),
        "center": tuple(pack.center),
        "city": pack.city,
        "places": len(pack.places),
        "roads": pack.tile_dir is not None,
        "data_date": pack.data_date,
        "coverage": dict(pack.coverage),
        "attribution": pack.attribution,
        "timezone": pack.timezone,
    }


def available_providers(
    *, region: str | None = None, settings: Settings | None = None, configured_only: bool = False
) -> list[str]:
    """The provider names a face may offer for ``region`` (short names and the configured pairs; with
    ``configured_only`` no AMap choice without its key)."""
    from core.geo.registry import available_providers as _available

    return list(_available(region=region, settings=settings or get_settings(), configured_only=configured_only))


def wgs84_to_gcj02(lon: float, lat: float) -> tuple[float, float]:
    """A WGS-84 point in the GCJ-02 datum of Chinese map tiles (unchanged outside China)."""
    from core.geo.coords import wgs84_to_gcj02 as _to_gcj02

    return _to_gcj02(lon, lat)


def gcj02_to_wgs84(lon: float, lat: float) -> tuple[float, float]:
    """A GCJ-02 point back in WGS-84 (unchanged outside China)."""
    from core.geo.coords import gcj02_to_wgs84 as _to_wgs84

    return _to_wgs84(lon, lat)


def example_place(name: str, lang: Lang, *, data_dir: Path | None = None) -> tuple[str, str] | None:
    """``(name, address)`` of the region's own example place for a form's placeholders, in ``lang`` where the pack
    has it: its most important named place with an address that is not a bare address (pack order breaks ties).
    The address in English is the place's English name when the pack's address is in Chinese. None when the
    pack has no such place or cannot be read."""
    from core.errors import OmniError
    from core.i18n import has_cjk

    try:
        pack = load_region(name, data_dir=data_dir)
    except (OmniError, ValueError, OSError):
        return None
    named = [
        (i, p) for i, p in enumerate(pack.places) if p.category != "address" and p.address and (p.name_zh or p.name_en)
    ]
    if not named:
        return None
    _, place = min(named, key=lambda item: (-(item[1].importance or 0), item[0]))
    shown = (place.name_en or place.name_zh) if lang == "en" else (place.name_zh or place.name_en)
    address = place.address if lang != "en" or not has_cjk(place.address) else shown
    return shown, address


def district_name(region: str | None, district: str | None, lang: Lang, *, data_dir: Path | None = None) -> str:
    """A district as a place names it, in ``lang``: the pack's name for it (region.json ``district_names``); in
    English a Chinese name the pack cannot translate is left out ("") rather than shown in Chinese."""
    from core.errors import OmniError
    from core.i18n import has_cjk

    if not district:
        return ""
    names: dict[str, str] = {}
    if region:
        try:
            names = load_region(region, data_dir=data_dir).district_names.get(district, {})
        except (OmniError, ValueError, OSError):
            names = {}
    shown = names.get(lang) or district
    return "" if lang == "en" and has_cjk(shown) else shown
