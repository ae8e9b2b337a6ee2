"""AMap deep links for a planned route (docs/ARCHITECTURE.md, "Deep links").

Three kinds of link are built from the resolved points, in visiting order:

* Android ``amapuri://route/plan/?...`` and iOS ``iosamap://path?...`` (same parameters): the
  destination as ``did/dlat/dlon/dname``, the stops as via points ``vian/vialons/vialats/vianames``,
  the start as ``sid/slat/slon/sname`` only when a fixed origin is known (without it the app starts
  from "my location").
* Browser links to ``https://uri.amap.com/navigation``: that API takes only ONE via point (driving
  only), so the route is cut into consecutive chained segments.
* ``personal_map`` links can only be created by AMap's ``maps_schema_personal_map`` MCP tool: the
  ``amap-mcp`` provider's client (core/geo/amap_mcp.py) calls it when every point has an AMap POI id (the
  planner looks a geocoded point's id up by a text search after the figures, core/route/poi_ids.py
  ``with_poi_id``). Without that client, or when a point has no id, a personal-map request falls back to
  route_plan links with a warning (``auto`` picks the personal map only when it can be made). No link is
  ever made up.

Coordinates inside core are WGS-84; every link carries GCJ-02 (``dev=0`` / ``coordinate=gaode``),
rounded to 6 decimals. Parameters are percent-encoded item by item (UTF-8) and joined with literal
``,`` / ``|`` separators, as the AMap pages describe.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from urllib.parse import quote

import segno

from core.errors import InputError, ProviderError
from core.geo.coords import wgs84_to_gcj02
from core.models.route import DeepLinks, Notice, ResolvedPoint
from core.route.notices import notice

ANDROID_ROUTE_PLAN = "amapuri://route/plan/"
IOS_ROUTE_PLAN = "iosamap://path"
WEB_NAVIGATION = "https://uri.amap.com/navigation"

# The AMap app pages state no maximum; the web route API and the navigation SDK allow 16.
MAX_APP_VIAS = 16

_APP_MODE = {"driving": "0", "walking": "2", "cycling": "3"}  # t: 0 drive, 2 walk, 3 ride (app >= 7.8.8)
_WEB_MODE = {"driving": "car", "walking": "walk", "cycling": "ride"}  # ride: mobile only (app >= 8.0.0)
_AMAP_POI_ID = re.compile(r"^[A-Za-z0-9]+$")  # e.g. B000A60DA1; pack ids such as "sh-bund" never match


def amap_navigates_in(country: str) -> bool:
    """AMap's app and web navigation cover mainland China: a region elsewhere gets no links (a pack without a
    country is taken as the curated Chinese kind)."""
    return country in ("", "CN")


def _enc(value: object) -> str:
    """Percent-encode one item (UTF-8), leaving no separator or delimiter literal."""
    return quote(str(value), safe="")


def _coord(value: float) -> str:
    return f"{value:.6f}"


def _gcj(point: ResolvedPoint) -> tuple[str, str]:
    """``(lon, lat)`` of a WGS-84 point as GCJ-02 strings with 6 decimals."""
    lon, lat = wgs84_to_gcj02(point.lon, point.lat)
    return _coord(lon), _coord(lat)


# Full-width look-alikes for separators found inside a name of a list-valued parameter.
_FULLWIDTH = {"|": "\uff5c", ",": "\uff0c"}


def _name(point: ResolvedPoint, *, separator: str | None = None) -> str:
    """The name shown in AMap.

    Every item is percent-encoded, so a raw parser that splits before decoding is safe. A parser that
    decodes the whole value first would still see a ``|`` (``,``) inside a name as an extra separator
    and miscount the items, so inside list-valued parameters that character is replaced by its
    full-width look-alike (｜ ，), which reads the same.
    """
    name = (point.resolved_name or point.input_name or point.input_address or "").strip()
    if separator is not None:
        name = name.replace(separator, _FULLWIDTH[separator])
    return name


def _label(point: ResolvedPoint) -> str:
    return point.label or point.input_address


def _amap_poi_id(point: ResolvedPoint, provider: str) -> str | None:
    """The point's POI id if it is a real AMap id (resolved through the amap provider), else None."""
    if provider != "amap" or point.provider not in (None, "amap"):
        return None
    poi_id = (point.poi_id or "").strip()
    return poi_id if _AMAP_POI_ID.match(poi_id) else None


def _query(params: list[tuple[str, str]]) -> str:
    """Join already-encoded values; keys are plain ASCII."""
    return "&".join(f"{key}={value}" for key, value in params)


def _app_link(
    base: str,
    *,
    origin: ResolvedPoint | None,
    vias: list[ResolvedPoint],
    destination: ResolvedPoint,
    transport_mode: str,
    provider: str,
    source_application: str,
) -> str:
    params: list[tuple[str, str]] = [("sourceApplication", _enc(source_application))]
    if origin is not None:
        sid = _amap_poi_id(origin, provider)
        if sid:
            params.append(("sid", _enc(sid)))
        slon, slat = _gcj(origin)
        params += [("slat", slat), ("slon", slon), ("sname", _enc(_name(origin)))]
    did = _amap_poi_id(destination, provider)
    if did:
        params.append(("did", _enc(did)))
    dlon, dlat = _gcj(destination)
    params += [("dlat", dlat), ("dlon", dlon), ("dname", _enc(_name(destination)))]
    params += [("dev", "0"), ("t", _APP_MODE[transport_mode])]
    if vias:
        coords = [_gcj(p) for p in vias]
        params += [
            ("vian", str(len(vias))),
            ("vialons", "|".join(lon for lon, _ in coords)),
            ("vialats", "|".join(lat for _, lat in coords)),
            ("vianames", "|".join(_enc(_name(p, separator="|")) for p in vias)),
        ]
    return f"{base}?{_query(params)}"


def _web_point(point: ResolvedPoint) -> str:
    lon, lat = _gcj(point)
    return f"{lon},{lat},{_enc(_name(point, separator=','))}"


def _web_links(
    *,
    origin: ResolvedPoint | None,
    ordered_stops: list[ResolvedPoint],
    destination: ResolvedPoint,
    transport_mode: str,
    source_application: str,
) -> list[str]:
    # None stands for the device's current location (only the very first point can be None).
    points: list[ResolvedPoint | None] = [origin, *ordered_stops, destination]
    links: list[str] = []
    for start, end in web_part_spans(len(points), transport_mode):
        frm, to = points[start], points[end]
        via = points[start + 1] if end - start == 2 else None
        params: list[tuple[str, str]] = []
        if frm is not None:
            params.append(("from", _web_point(frm)))
        if via is not None:
            params.append(("via", _web_point(via)))
        assert to is not None
        params += [
            ("to", _web_point(to)),
            ("mode", _WEB_MODE[transport_mode]),
            ("src", _enc(source_application)),
            ("coordinate", "gaode"),
            ("callnative", "0"),
        ]
        links.append(f"{WEB_NAVIGATION}?{_query(params)}")
    return links


def web_part_spans(n_points: int, transport_mode: str) -> list[tuple[int, int]]:
    """Where each browser link starts and ends, as positions in ``[start, *stops, destination]`` (the start
    counted even when it is the device's location): consecutive parts, each with at most one via point when
    driving and none otherwise, as uri.amap.com allows."""
    step = 2 if transport_mode == "driving" else 1  # a via point is allowed for driving only
    spans: list[tuple[int, int]] = []
    start = 0
    while start < n_points - 1:
        end = min(start + step, n_points - 1)
        spans.append((start, end))
        start = end
    return spans


def build_deep_links(
    *,
    origin: ResolvedPoint | None,
    ordered_stops: list[ResolvedPoint],
    destination: ResolvedPoint,
    transport_mode: str,
    deep_link_mode: str,
    provider: str,
    source_application: str = "OmniTravelPlanner",
    personal_map_maker: Callable[[list[ResolvedPoint]], str] | None = None,
    navi_maker: Callable[[ResolvedPoint], str] | None = None,
) -> tuple[DeepLinks, list[Notice]]:
    """Route-plan links for ``origin -> ordered_stops -> destination`` and the notices they need (codes with their
    facts, core/route/notices.py).

    ``origin`` is None when the trip starts at the user's current location: the app links then omit
    the start (the app uses "my location") and the first web link has no ``from``.
    """
    _check_modes(transport_mode, deep_link_mode)
    stops = list(ordered_stops)
    warnings: list[Notice] = []
    personal_map: str | None = None
    if deep_link_mode in ("personal_map", "auto"):
        points = ([origin] if origin is not None else []) + stops + [destination]
        personal_map = _personal_map(
            points, asked=deep_link_mode == "personal_map", provider=provider, maker=personal_map_maker, into=warnings
        )
    app_vias, app_destination = _app_route(stops, destination, into=warnings)
    android, ios = (
        _app_link(
            base,
            origin=origin,
            vias=app_vias,
            destination=app_destination,
            transport_mode=transport_mode,
            provider=provider,
            source_application=source_application,
        )
        for base in (ANDROID_ROUTE_PLAN, IOS_ROUTE_PLAN)
    )

    web = _web_links(
        origin=origin,
        ordered_stops=stops,
        destination=destination,
        transport_mode=transport_mode,
        source_application=source_application,
    )
    if origin is None:
        warnings.append(notice("WEB_NO_START"))
    if len(web) > 1:  # uri.amap.com takes one via point when driving, none otherwise
        warnings.append(notice("WEB_SPLIT", n=len(web), vias=1 if transport_mode == "driving" else 0))

    if transport_mode == "cycling":
        warnings.append(notice("CYCLING_LINKS"))

    navigation: str | None = None
    if navi_maker is not None:
        try:
            navigation = navi_maker(destination)
        except ProviderError as exc:
            warnings.append(
                notice("NAVIGATION_FAILED", detail=f"The navigation link could not be made ({exc.message}).")
            )

    links = DeepLinks(
        personal_map=personal_map,
        android_route_plan=android,
        ios_route_plan=ios,
        web_navigation=web,
        navigation=navigation,
        mode_used="personal_map" if personal_map else "route_plan",
        coordinate_system="GCJ02",
    )
    return links, warnings


def _check_modes(transport_mode: str, deep_link_mode: str) -> None:
    if transport_mode not in _APP_MODE:
        raise InputError(
            f"deep links support transport_mode driving, walking or cycling, not {transport_mode!r}",
            field="transport_mode",
        )
    if deep_link_mode not in ("personal_map", "route_plan", "auto"):
        raise InputError(
            f"deep_link_mode must be personal_map, route_plan or auto, not {deep_link_mode!r}",
            field="deep_link_mode",
        )


def _personal_map(
    points: list[ResolvedPoint],
    *,
    asked: bool,
    provider: str,
    maker: Callable[[list[ResolvedPoint]], str] | None,
    into: list[Notice],
) -> str | None:
    """AMap's personal map of ``points`` when every point has its AMap place and the service is there (``asked``:
    the person asked for it; else "auto" tries it); what was done instead is said in ``into``."""
    missing = [_label(p) for p in points if _amap_poi_id(p, provider) is None]
    listed = ", ".join(missing)
    personal_map: str | None = None
    if missing and asked:
        into.append(
            notice(
                "PERSONAL_MAP_NO_IDS",
                detail=f"personal_map needs an AMap POI id for every point; missing for: {listed} — fell back to "
                "route_plan.",
                missing=len(missing),
                points=len(points),
            )
        )
    elif missing:
        into.append(
            notice(
                "AUTO_ROUTE_PLAN_NO_IDS", detail=f"no AMap POI id: {listed}", missing=len(missing), total=len(points)
            )
        )
    elif maker is None and asked:
        into.append(
            notice(
                "PERSONAL_MAP_NEEDS_MCP",
                detail="The personal-map service (AMap maps_schema_personal_map) needs the amap-mcp provider — "
                "fell back to route_plan.",
            )
        )
    elif maker is None:
        into.append(notice("AUTO_ROUTE_PLAN_NO_MCP"))
    else:
        try:
            personal_map = maker(points)
        except ProviderError as exc:
            into.append(notice("PERSONAL_MAP_FAILED", detail=f"The personal map could not be made ({exc.message})"))
        else:
            if not asked:  # auto: every point has its AMap place and the service is there
                into.append(notice("AUTO_PERSONAL_MAP", total=len(points)))
    if asked or personal_map:
        into.append(notice("PERSONAL_MAP_NOTE"))
    return personal_map


def _app_route(
    stops: list[ResolvedPoint], destination: ResolvedPoint, *, into: list[Notice]
) -> tuple[list[ResolvedPoint], ResolvedPoint]:
    """App links: at most MAX_APP_VIAS via points. A longer route gets a link for its first part only, ending at the
    stop after the last via, so following it never contradicts the plan (said in ``into``)."""
    if len(stops) <= MAX_APP_VIAS:
        return stops, destination
    end = stops[MAX_APP_VIAS]
    covered = MAX_APP_VIAS + 1
    into.append(
        notice(
            "APP_LINK_VIAS",
            vias=MAX_APP_VIAS,
            covered=covered,
            total=len(stops),
            omitted=len(stops) - covered,
            end=end.id,
        )
    )
    return stops[:MAX_APP_VIAS], end


@functools.lru_cache(maxsize=128)
def qr_svg_data_uri(link: str, *, scale: int = 4, border: int = 2) -> str:
    """A QR code of ``link`` as an SVG ``data:`` URI (for showing mobile-only links on a desktop). Cached by link
    and size: a long link takes segno a few hundred milliseconds (its mask search), writing and quoting the SVG
    about 30 ms more, and the page (on every run) and the HTML report ask for the same links."""
    return segno.make(link, error="m", micro=False).svg_data_uri(scale=scale, border=border, dark="#000", light="#fff")
