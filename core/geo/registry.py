"""Provider registry: a geocoder and a router chosen separately (docs/ARCHITECTURE.md, "Adding a provider").

A provider is named ``GEOCODER+ROUTER`` (``pack+valhalla``, ``nominatim+osrm``, ``amap+amap``) or by a short
name: ``offline`` (the pack's gazetteer, and its road network through embedded Valhalla when the pack has one,
else the straight-line estimate), and a service that is both a geocoder and a router by its own name: ``amap``
(AMap's REST APIs for places, travel and weather) and ``amap-mcp`` (AMap's MCP tools, REST filling the positions
and paths they omit, and the links only MCP makes).

The services are data: one ``Service`` row each in ``SERVICES`` (its name, roles, when it is configured, how it
is refused and how it is built). Geocoders: ``pack`` (the region pack), ``amap``, ``amap-mcp``, ``nominatim``.
Routers: ``estimate`` (straight line x circuity), ``valhalla`` (embedded over the pack's tiles, or the server at
``OMNI_VALHALLA_URL``), ``osrm``, ``amap``, ``amap-mcp``. A remote service is offered only when configured (its URL
or key is set), and it degrades to the pack with a warning when it fails. A service without its address is a
wrong choice of name (``InputError`` on ``provider``); a keyed one is still named without its key, so the faces can
say what is missing, and refused when built (``ProviderAuthError`` on its key's setting).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from core.config import Settings
from core.errors import InputError, ProviderAuthError
from core.geo.base import Geocoder, Router, WarningLog, WeatherService
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.models.region import RegionPack
from core.packs.loader import load_region

Role = Literal["geocoder", "router"]
GEOCODER: frozenset[Role] = frozenset({"geocoder"})
ROUTER: frozenset[Role] = frozenset({"router"})
BOTH: frozenset[Role] = GEOCODER | ROUTER
#: the short name of the region pack alone (its gazetteer; its roads when it has them, else the estimate)
OFFLINE = "offline"


class Build:
    """What one provider's services share while it is built: the settings, the pack, the offline fallback and the
    warning log; each service is built once (``amap-mcp`` holds the ``amap`` service built beside it)."""

    def __init__(self, *, settings: Settings, pack: RegionPack) -> None:
        self.settings = settings
        self.pack = pack
        self.offline = OfflineProvider(pack)
        self.warnings = WarningLog()
        self.built: dict[str, Any] = {}

    def service(self, name: str) -> Any:
        """The service of that name (a Geocoder, a Router or both, as its row says), built at the first ask."""
        if name not in self.built:
            self.built[name] = SERVICES[name].build(self)
        return self.built[name]

    def resilient(self, inner: Any, *, retries: int | None = None) -> Any:
        """A remote service behind retries and a breaker, falling back to the pack with a warning."""
        from core.geo.resilience import resilient

        return resilient(inner, self.settings, fallback=self.offline, warnings=self.warnings, retries=retries)


@dataclass(frozen=True, kw_only=True)
class Service:
    """One row of the registry. ``configured(settings, pack)``: it can work (``pack`` is None when asked without a
    region); ``refusal``: why it cannot (``{region}``: the pack's name); ``key_setting``: the setting of its key, set
    for a keyed service (offered and parsed without the key, refused when built); ``weather``: it is also the
    provider's weather service; ``on_disk``: its answers are kept in the disk cache (remote, metered)."""

    name: str
    roles: frozenset[Role]
    configured: Callable[[Settings, RegionPack | None], bool]
    build: Callable[[Build], Any]
    refusal: str = ""
    key_setting: str | None = None
    weather: bool = False
    on_disk: bool = False

    def refused(self, pack: RegionPack) -> str:
        return self.refusal.format(region=pack.name) if self.refusal else f"{self.name} is not configured"


def _always(settings: Settings, pack: RegionPack | None) -> bool:
    return True


def _amap_key(settings: Settings, pack: RegionPack | None) -> bool:
    key = settings.amap_key
    return bool(key and key.get_secret_value().strip())


def _valhalla_roads(settings: Settings, pack: RegionPack | None) -> bool:
    return bool(settings.valhalla_url) or (pack is not None and pack.tile_dir is not None)


def _amap(b: Build) -> Any:
    from core.geo.resilience import make_amap_provider

    return make_amap_provider(b.settings, fallback=b.offline, warnings=b.warnings)


def _amap_mcp(b: Build) -> Any:
    from core.geo.amap_mcp import AMapMcpProvider
    from core.geo.redis_limits import team_bucket, team_hold
    from core.geo.resilience import amap_daily

    settings = b.settings
    assert settings.amap_key is not None
    key = settings.amap_key.get_secret_value()  # as make_amap_provider names the bucket and the hold
    inner = AMapMcpProvider(
        key=key,
        url=settings.amap_mcp_url,
        timeout_s=settings.amap_mcp_timeout_s,
        rest=b.service("amap").inner,  # what MCP leaves out (positions, drawn paths) comes from REST
        # the tools call AMap's REST APIs under the key: one bucket and one hold for MCP and REST alike
        limiter=team_bucket("amap", key, rate=settings.amap_qps, redis_url=settings.redis_url),
        hold=team_hold("amap", key, redis_url=settings.redis_url),
        daily=amap_daily(settings, key),
        rate_limit_retries=settings.http_retries,
    )
    return b.resilient(inner, retries=0)


def _valhalla(b: Build) -> Any:
    from core.geo.doors import entrance_index
    from core.geo.valhalla import EmbeddedValhalla, HttpValhalla, ValhallaRouter

    settings, pack = b.settings, b.pack
    engine: Any
    if settings.valhalla_url:
        engine = HttpValhalla(base_url=settings.valhalla_url, timeout_s=settings.http_timeout_s)
        retries = settings.http_retries
    else:
        assert pack.tile_dir is not None  # parse_provider checked
        engine = EmbeddedValhalla(pack.tile_dir)
        retries = 0  # in-process: a failure is not transient
    router = ValhallaRouter(
        engine,
        snap_cutoff_m=settings.snap_cutoff_m,
        snap_options=None if settings.snap_ground_level else {},
        entrances=entrance_index(pack.places) if settings.snap_entrances else None,
    )
    return b.resilient(router, retries=retries)


def _osrm(b: Build) -> Any:
    from core.geo.osrm import OsrmRouter

    settings = b.settings
    assert settings.osrm_url
    inner = OsrmRouter(
        base_url=settings.osrm_url, timeout_s=settings.http_timeout_s, max_table_size=settings.osrm_max_table_size
    )
    return b.resilient(inner)


def _nominatim(b: Build) -> Any:
    from core.geo.nominatim import NominatimGeocoder
    from core.geo.redis_limits import team_bucket

    settings = b.settings
    assert settings.nominatim_url
    inner = NominatimGeocoder(
        base_url=settings.nominatim_url,
        timeout_s=settings.http_timeout_s,
        user_agent=settings.nominatim_user_agent,
        # its 1 request a second is the application's, across every process (shared in Redis when configured)
        limiter=team_bucket("nominatim", settings.nominatim_url, rate=1.0, redis_url=settings.redis_url),
    )
    return b.resilient(inner)


_NO_AMAP_KEY = "No AMap key is configured; set OMNI_AMAP_KEY to a Web服务 key or use the offline provider."

#: every map service, one row each; the order is the order they are listed in (geocoders, routers, pairs)
SERVICES: dict[str, Service] = {
    s.name: s
    for s in (
        Service(name="pack", roles=GEOCODER, configured=_always, build=lambda b: b.offline),
        Service(name="estimate", roles=ROUTER, configured=_always, build=lambda b: b.offline),
        Service(name="valhalla", roles=ROUTER, configured=_valhalla_roads, build=_valhalla,
                refusal="the region '{region}' has no road network; build one with `python -m core pack build` or set "
                "OMNI_VALHALLA_URL"),
        Service(name="osrm", roles=ROUTER, configured=lambda s, pack: bool(s.osrm_url), build=_osrm,
                refusal="OSRM is not configured: set OMNI_OSRM_URL", on_disk=True),
        Service(name="amap", roles=BOTH, configured=_amap_key, build=_amap, refusal=_NO_AMAP_KEY,
                key_setting="amap_key", weather=True, on_disk=True),
        Service(name="amap-mcp", roles=BOTH, configured=_amap_key, build=_amap_mcp, refusal=_NO_AMAP_KEY,
                key_setting="amap_key"),
        Service(name="nominatim", roles=GEOCODER, configured=lambda s, pack: bool(s.nominatim_url), build=_nominatim,
                refusal="Nominatim is not configured: set OMNI_NOMINATIM_URL", on_disk=True),
    )
}  # fmt: skip


def _named(role: Role) -> list[str]:
    return [name for name, s in SERVICES.items() if role in s.roles]


def short_names() -> list[str]:
    """``offline`` and every service that is both a geocoder and a router (named alone, never ``amap+amap``)."""
    return [OFFLINE, *(name for name, s in SERVICES.items() if s.roles == BOTH)]


def available_geocoders(*, settings: Settings) -> list[str]:
    return [g for g in _named("geocoder") if SERVICES[g].configured(settings, None)]


def available_routers(*, region: str | None = None, settings: Settings) -> list[str]:
    """Routers usable for ``region`` (``valhalla`` needs the pack's tiles or a server)."""
    pack = load_region(region or settings.region, settings.data_dir)
    return [r for r in _named("router") if SERVICES[r].configured(settings, pack)]


def available_providers(*, region: str | None = None, settings: Settings, configured_only: bool = False) -> list[str]:
    """The short names and every configured ``GEOCODER+ROUTER`` pair. ``amap`` stays listed without a key (the
    CLI and the API explain what is missing) unless ``configured_only``: a picker offers only what can work."""
    short = short_names()
    pairs = [
        f"{g}+{r}"
        for g in available_geocoders(settings=settings)
        for r in available_routers(region=region, settings=settings)
        if not (g == r and g in short)
    ]
    if configured_only:
        short = [n for n in short if n == OFFLINE or SERVICES[n].configured(settings, None)]
    return [*short, *pairs]


def parse_provider(name: str | None, *, pack: RegionPack, settings: Settings) -> tuple[str, str]:
    """(geocoder, router) for a provider name; an unknown or unconfigured one is an InputError on ``provider``
    (a keyed service is refused later, when built, for its key)."""
    spec = (name or settings.provider or OFFLINE).strip().lower()
    if spec == OFFLINE:
        return "pack", "valhalla" if pack.tile_dir is not None else "estimate"
    if spec in short_names():
        return spec, spec
    geocoder, plus, router = spec.partition("+")
    geocoders, routers = _named("geocoder"), _named("router")
    if not plus or geocoder not in geocoders or router not in routers:
        raise InputError(
            f"unknown provider '{name}'; choose offline, amap or GEOCODER+ROUTER with a geocoder from "
            f"{', '.join(geocoders)} and a router from {', '.join(routers)}",
            field="provider",
        )
    for service in (SERVICES[geocoder], SERVICES[router]):
        if service.key_setting is None and not service.configured(settings, pack):
            raise InputError(service.refused(pack), field="provider")
    return geocoder, router


def make_provider(name: str | None = None, *, region: str | None = None, settings: Settings) -> MapServices:
    """The services for a region (see the module docstring for the names)."""
    pack = load_region(region or settings.region, settings.data_dir)
    geocoder_name, router_name = parse_provider(name, pack=pack, settings=settings)
    for service in (SERVICES[geocoder_name], SERVICES[router_name]):
        if service.key_setting is not None and not service.configured(settings, pack):
            raise ProviderAuthError(service.refused(pack), field=service.key_setting)
    b = Build(settings=settings, pack=pack)
    geocoder: Geocoder = b.service(geocoder_name)
    router: Router = b.service(router_name)
    weather: WeatherService | None = next((b.built[n] for n in b.built if SERVICES[n].weather), None)
    return MapServices(
        geocoder=geocoder, router=router, weather=weather, region=pack, warnings=b.warnings, cache=_cache(settings)
    )


def _cache(settings: Settings) -> Any:
    from core.geo.cache import DiskResponseCache, ResponseCache, SharedResponseCache

    # services whose answers are worth keeping on disk and for the team: remote, metered or rate-limited
    remote = [n for n, s in SERVICES.items() if s.on_disk]
    if settings.cache_dir is None and not settings.redis_url:
        return None  # MapServices keeps its own in-memory cache
    inner = ResponseCache() if settings.cache_dir is None else DiskResponseCache(settings.cache_dir, persist=remote)
    if not settings.redis_url:
        return inner
    from core.geo.redis_limits import redis_link

    return SharedResponseCache(inner, redis_link(settings.redis_url), persist=remote)
