"""One request, one context (docs/ARCHITECTURE.md, "Application layer").

A face (the dashboard, the HTTP API, the command line) builds a ``RequestContext`` for each thing a person asks and
hands it to a use case in ``core.app``. The context says who asks (the session, the API key's owner, a CLI
argument), in which language and time zone (what the face was given; the region pack's zone by default), on which
region pack and settings, with which clock, and through a *per-request view* of the providers: the shared
services, caches and breakers of the process, with this request's own warnings and call counts.

``AppServices`` is what a process shares between requests: the providers (one per name, region and data folder),
the reservation services (one per database and region) and the state that outlives a request (the half-day
planner's level-2 waits and its breakers). It holds nothing of any one request.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.app.request_limits import RequestLimits
from core.clock import Clock, clock_from_settings
from core.config import Settings, get_settings
from core.errors import DatabaseUnreachable, InputError, OmniError
from core.geo.composite import MapServices
from core.geo.pool import BuiltOnce, ProviderPool
from core.halfday.breaker import HalfDayBreakers
from core.halfday.stream_log import StreamLog, shared_stream_log
from core.halfday.waits import HalfDayWaits
from core.halfday.waits_redis import shared_waits
from core.i18n import DEFAULT_LANG, Lang, set_strict
from core.models.region import RegionPack
from core.packs.loader import list_regions, load_region
from core.stores.db import Database

if TYPE_CHECKING:
    from core.reservations.service import ReservationService

T = TypeVar("T")


def zone_or_none(name: str | None) -> ZoneInfo | None:
    """The zone called ``name`` (None: no name, or not a zone this machine knows)."""
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _zoned(clock: Clock, zone: ZoneInfo) -> Clock:
    """``clock`` whose moments always carry a zone: a face's moment without one (``--now 2027-01-05T10:00``) is the
    request's local time, so every service handed the clock compares aware moments."""

    def zoned() -> datetime:
        moment = clock()
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)

    return zoned


class AppServices:
    """What one process shares between requests: providers, reservation services, the half-day waits and breakers,
    built once each.

    Thread-safe; keeps no per-request or per-user state (a request's warnings and counts live on its view)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self._settings = settings
        set_strict(self.settings.i18n_strict)  # the process's policy for missing words
        self._providers = ProviderPool()
        self._reservations: BuiltOnce[tuple[str, str, str], ReservationService] = BuiltOnce()
        self._started: BuiltOnce[str, Any] = BuiltOnce()  # what ``once`` made
        # the level-2 waits of the half-day streams: shared by every worker on the team's Redis (any worker can
        # answer a stream another holds), else this process's own
        self.halfday_waits: HalfDayWaits = shared_waits(self.settings.redis_url)
        # what each half-day stream sent, for a client that reconnects (on any worker, with Redis)
        self.halfday_streams: StreamLog = shared_stream_log(self.settings.redis_url)
        # the half-day planner's breakers of its outside services (map, payment), per region: this process's own
        self.halfday_breakers = HalfDayBreakers()

    @property
    def settings(self) -> Settings:
        """The settings given, else the process's current ones (read again each time: a test may change them)."""
        return self._settings or get_settings()

    def request_limits(self) -> RequestLimits:
        """The API's per-key limit as the settings now say (one per limit and Redis, made on first use)."""
        s = self.settings
        return self.once(
            f"request_limits {s.api_user_limit} {s.redis_url}",
            lambda: RequestLimits(s.api_user_limit, redis_url=s.redis_url),
        )

    def once(self, name: str, build: Callable[[], T]) -> T:
        """``build()``'s result, made by the first caller for ``name`` and kept for the process (a warm-up)."""
        return cast(T, self._started.get(name, build))

    # ---- providers ------------------------------------------------------------------------------------
    def provider(self, name: str | None, region: str, *, settings: Settings | None = None) -> MapServices:
        """The shared provider ``name`` for ``region`` (built on first use; an OmniError if it cannot be)."""
        settings = settings or self.settings
        name = name or settings.provider
        return self._providers.shared(name, region, settings, key=(name, region, str(settings.data_dir)))

    def use_provider(self, name: str, region: str, provider: MapServices, *, settings: Settings | None = None) -> None:
        """Serve ``provider`` as ``name`` for ``region`` (one built elsewhere: a test's, an embedding app's)."""
        settings = settings or self.settings
        self._providers.put((name, region, str(settings.data_dir)), provider)

    def regions(self, *, settings: Settings | None = None) -> list[str]:
        return list(list_regions((settings or self.settings).data_dir))

    # ---- reservations ---------------------------------------------------------------------------------
    def reservations(self, region: str, *, settings: Settings | None = None) -> ReservationService:
        """The reservation service of ``region``'s venues on the configured database."""
        from core.reservations.service import ReservationService

        settings = settings or self.settings
        key = (settings.db_url, region, str(settings.data_dir))
        return self._reservations.get(
            key,
            lambda: ReservationService.from_settings(
                settings, load_region(region, settings.data_dir), clock=clock_from_settings(settings)
            ),
        )

    def reservations_for_item(
        self, item_id: str, *, prefer: str | None = None, settings: Settings | None = None
    ) -> ReservationService:
        """The service whose region pack has the bookable ``item_id`` (``prefer``'s first: the region in use).

        One resolver for every face: a booking made in another region than the one on screen is still found."""
        from core.reservations.catalog import item_for

        regions = self.regions(settings=settings)
        order = [prefer, *[r for r in regions if r != prefer]] if prefer in regions else regions
        for region in order:
            if region is None:
                continue
            try:
                service = self.reservations(region, settings=settings)
            except DatabaseUnreachable:  # the database, not the pack: the outage's one answer, never "not bookable"
                raise
            except (OmniError, OSError, ValueError):  # a broken pack owns nothing
                continue
            if item_for(service.pack, item_id) is not None:
                return service
        raise InputError(f"no region offers the bookable item {item_id!r}", field="item_id", code="NOT_BOOKABLE")

    # ---- contexts -------------------------------------------------------------------------------------
    def context(
        self,
        *,
        user: str | None = None,
        lang: Lang | None = None,
        timezone: str | None = None,
        region: str | None = None,
        provider: str | None = None,
        clock: Clock | None = None,
        settings: Settings | None = None,
        trace_id: str | None = None,
    ) -> RequestContext:
        """A new request's context: its language (the face's, read from its locale tag at the edge; else the default), its zone (the face's if this
        machine knows it, else the region pack's), its region and provider (else the settings'), its clock (else the
        settings': ``OMNI_NOW``'s fixed moment or the machine's). Its view of the
        providers is made on first use: a request that plans nothing (a booking, a list) never builds a provider, so
        a provider that cannot be built (an AMap choice without a key) fails only what needs it."""
        settings = settings or self.settings
        region_name = region or settings.region
        pack = load_region(region_name, settings.data_dir)
        zone = zone_or_none(timezone) or zone_or_none(pack.timezone) or ZoneInfo("UTC")
        return RequestContext(
            user=user,
            lang=lang or DEFAULT_LANG,
            lang_given=lang is not None,
            timezone=str(zone.key),
            region=pack,
            settings=settings,
            provider_name=provider or settings.provider,
            clock=_zoned(clock, zone) if clock is not None else clock_from_settings(settings),
            services=self,
            trace_id=trace_id or uuid.uuid4().hex[:16],
        )


@dataclass(frozen=True, kw_only=True)
class RequestContext:
    """Everything one request needs that is not its payload. Built by a face, read by ``core.app``."""

    user: str | None
    lang: Lang
    lang_given: bool  # the face said the language (False: an API call without a locale; text may decide)
    timezone: str
    region: RegionPack
    settings: Settings
    provider_name: str
    clock: Clock
    services: AppServices = field(repr=False)
    trace_id: str

    @cached_property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @cached_property
    def database(self) -> Database:
        """The request's database: its URL and limits, for the stores a use case opens."""
        return Database.from_settings(self.settings)

    @cached_property
    def providers(self) -> MapServices:
        """This request's view of the shared providers: its own warnings and call counts (made on first use; an
        OmniError when the provider cannot be built)."""
        return self.services.provider(self.provider_name, self.region.name, settings=self.settings).for_request()

    def now(self) -> datetime:
        """The clock's now, in the request's zone."""
        return self.clock().astimezone(self.zone)  # the context's clock always gives an aware moment (_zoned)

    def today(self) -> date:
        """The clock's date in the request's zone (late evening in UTC is already tomorrow in Shanghai)."""
        return self.now().date()

    def reservations_for_item(self, item_id: str) -> ReservationService:
        """The reservation service that has ``item_id``, on this request's clock."""
        service = self.services.reservations_for_item(item_id, prefer=self.region.name, settings=self.settings)
        return service.at(self.clock)

    def reservations(self) -> ReservationService:
        """The reservation service of the request's region, on this request's clock."""
        return self.services.reservations(self.region.name, settings=self.settings).at(self.clock)
