"""AMap deep links: app route-plan links, chained web links, personal-map fallback, QR codes."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

import coordTransform
import pytest

from core.errors import InputError
from core.models.route import ResolvedPoint
from core.route.links import MAX_APP_VIAS, build_deep_links, qr_svg_data_uri
from core.route.notices import english, point_names

# WGS-84 coordinates (Shanghai)
PEOPLES_SQUARE = (121.4737, 31.2304)
BUND = (121.4903, 31.2400)
PEARL = (121.4998, 31.2397)
YU_GARDEN = (121.4921, 31.2272)


def point(role, name, lonlat, *, poi_id=None, provider=None, index=None) -> ResolvedPoint:
    lon, lat = lonlat
    return ResolvedPoint(
        role=role,
        input_name=name,
        input_address=name,
        resolved_name=name,
        city="上海市",
        location=f"{lon:.6f},{lat:.6f}",
        lon=lon,
        lat=lat,
        poi_id=poi_id,
        source="geo",
        provider=provider,
        index=index,
    )


def origin(**kw) -> ResolvedPoint:
    return point("origin", "人民广场", PEOPLES_SQUARE, **kw)


def stops_basic(**kw) -> list[ResolvedPoint]:
    return [
        point("stop", "外滩", BUND, index=0, **kw),
        point("stop", "东方明珠 | Pearl & Tower", PEARL, index=1, **kw),
    ]


def destination(**kw) -> ResolvedPoint:
    return point("destination", "豫园", YU_GARDEN, **kw)


def gcj(lonlat) -> tuple[str, str]:
    lon, lat = coordTransform.wgs84_to_gcj02(*lonlat)
    return f"{lon:.6f}", f"{lat:.6f}"


def raw_params(link: str) -> dict[str, str]:
    """Query parameters still percent-encoded, split on the literal ``&`` and the first ``=``."""
    query = urlsplit(link).query
    pairs = [item.split("=", 1) for item in query.split("&")]
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"duplicate parameters in {link}"
    return dict(pairs)


def codes(notices) -> list[str]:
    return [n.code for n in notices]


def build(**overrides):
    kwargs = dict(
        origin=None,
        ordered_stops=stops_basic(),
        destination=destination(),
        transport_mode="driving",
        deep_link_mode="route_plan",
        provider="offline",
    )
    kwargs.update(overrides)
    return build_deep_links(**kwargs)


# --------------------------------------------------------------------------------------------- app links


def test_known_gcj_value_for_peoples_square():
    assert gcj(PEOPLES_SQUARE) == ("121.478223", "31.228458")


@pytest.mark.parametrize(
    "attr, prefix", [("android_route_plan", "amapuri://route/plan/?"), ("ios_route_plan", "iosamap://path?")]
)
def test_app_link_parameters_without_origin(attr, prefix):
    links, _ = build()
    link = getattr(links, attr)
    assert link.startswith(prefix)
    p = raw_params(link)
    assert unquote(p["sourceApplication"]) == "OmniTravelPlanner"
    assert (p["dlon"], p["dlat"]) == gcj(YU_GARDEN)
    assert unquote(p["dname"]) == "豫园"
    assert p["dev"] == "0"
    assert p["t"] == "0"
    # origin None: the app uses "my location"
    for key in ("slat", "slon", "sname", "sid"):
        assert key not in p
    # offline pack ids are never AMap ids
    assert "did" not in p
    lons, lats, names = p["vialons"].split("|"), p["vialats"].split("|"), p["vianames"].split("|")
    assert int(p["vian"]) == 2 == len(lons) == len(lats) == len(names)
    assert [unquote(n) for n in names] == ["外滩", "东方明珠 ｜ Pearl & Tower"]
    assert (lons[0], lats[0]) == gcj(BUND)
    assert (lons[1], lats[1]) == gcj(PEARL)
    assert links.coordinate_system == "GCJ02"
    assert links.mode_used == "route_plan"


def test_app_link_names_are_encoded_item_by_item():
    links, _ = build()
    p = raw_params(links.android_route_plan)
    # "&" and non-ASCII never appear raw, so they cannot break the query
    assert "&" not in p["vianames"] and "%26" in p["vianames"]
    assert p["dname"] == "%E8%B1%AB%E5%9B%AD"
    assert p["vianames"].count("|") == 1  # separators stay literal, one between two names


def test_app_link_with_fixed_origin():
    links, _ = build(origin=origin())
    p = raw_params(links.android_route_plan)
    assert (p["slon"], p["slat"]) == ("121.478223", "31.228458")
    assert unquote(p["sname"]) == "人民广场"
    assert "sid" not in p
    assert raw_params(links.ios_route_plan)["slat"] == "31.228458"


def test_start_and_destination_names_round_trip_exactly():
    dest = point("destination", "Café A|B, C&D 豫园", YU_GARDEN)
    links, _ = build(origin=point("origin", "我的家 & office", PEOPLES_SQUARE), destination=dest)
    p = raw_params(links.android_route_plan)
    assert unquote(p["dname"]) == "Café A|B, C&D 豫园"
    assert unquote(p["sname"]) == "我的家 & office"


def test_walking_uses_t2():
    links, _ = build(transport_mode="walking")
    assert raw_params(links.android_route_plan)["t"] == "2"
    assert raw_params(links.ios_route_plan)["t"] == "2"


def test_amap_poi_ids_are_sent_only_for_the_amap_provider():
    kw = dict(
        origin=origin(poi_id="B00155L3CU", provider="amap"),
        ordered_stops=stops_basic(poi_id="B00155FOZW", provider="amap"),
        destination=destination(poi_id="B00156JZEJ", provider="amap"),
    )
    links, _ = build(provider="amap", **kw)
    p = raw_params(links.android_route_plan)
    assert p["sid"] == "B00155L3CU" and p["did"] == "B00156JZEJ"

    offline = dict(origin=origin(poi_id="sh-peoples-square"), destination=destination(poi_id="sh-yu-garden"))
    links, _ = build(provider="offline", **offline)
    p = raw_params(links.android_route_plan)
    assert "sid" not in p and "did" not in p
    assert "sh-yu-garden" not in links.android_route_plan

    # even with provider amap, a pack-style id is not an AMap id
    links, _ = build(provider="amap", destination=destination(poi_id="sh-yu-garden"))
    assert "did" not in raw_params(links.android_route_plan)


def test_more_than_16_stops_cover_the_first_part_and_warn():
    many = [point("stop", f"站点{i + 1}", (121.40 + 0.005 * i, 31.20 + 0.002 * i), index=i) for i in range(20)]
    links, warnings = build(ordered_stops=many)
    p = raw_params(links.android_route_plan)
    assert int(p["vian"]) == MAX_APP_VIAS == 16
    assert len(p["vialons"].split("|")) == len(p["vialats"].split("|")) == len(p["vianames"].split("|")) == 16
    # the link ends at stop 17, a prefix of the planned route
    assert unquote(p["dname"]) == "站点17"
    [vias] = [n for n in warnings if n.code == "APP_LINK_VIAS"]
    # the link's end is named by its point's id (stop 17 is stops.16); the sentence names it
    assert vias.params == {"vias": 16, "covered": 17, "total": 20, "omitted": 3, "end": "stops.16"}
    assert english([vias], names=point_names(many)) == [
        "The AMap app links take at most 16 via points, so they cover only the first 17 of 20 stops and end at 站点17; "
        "the web links cover the whole route."
    ]
    # the web links together visit every stop and the destination
    assert sum(link.count("站点") for link in links.web_navigation) == 0  # names are percent-encoded
    visited = []
    for link in links.web_navigation:
        q = raw_params(link)
        visited += [unquote(q[k].split(",", 2)[2]) for k in ("via", "to") if k in q]
    assert visited == [f"站点{i + 1}" for i in range(20)] + ["豫园"]


def test_16_stops_need_no_warning_about_vias():
    stops = [point("stop", f"S{i}", (121.40 + 0.005 * i, 31.20), index=i) for i in range(16)]
    links, warnings = build(ordered_stops=stops, origin=origin())
    assert raw_params(links.android_route_plan)["vian"] == "16"
    assert unquote(raw_params(links.android_route_plan)["dname"]) == "豫园"
    assert "APP_LINK_VIAS" not in codes(warnings)


# --------------------------------------------------------------------------------------------- web links


def _stops(n):
    return [point("stop", f"P{i}", (121.45 + 0.01 * i, 31.22 + 0.003 * i), index=i) for i in range(n)]


@pytest.mark.parametrize(
    "n_stops, mode, with_origin, expected",
    [
        (1, "driving", True, 1),
        (2, "driving", True, 2),
        (5, "driving", True, 3),
        (1, "driving", False, 1),
        (2, "driving", False, 2),
        (5, "driving", False, 3),
        (1, "walking", True, 2),
        (2, "walking", True, 3),
        (5, "walking", True, 6),
        (5, "walking", False, 6),
    ],
)
def test_web_segment_counts(n_stops, mode, with_origin, expected):
    start = origin() if with_origin else None
    links, warnings = build(ordered_stops=_stops(n_stops), transport_mode=mode, origin=start)
    assert len(links.web_navigation) == expected
    split = [n for n in warnings if n.code == "WEB_SPLIT"]
    if expected > 1:
        assert len(split) == 1 and split[0].params["n"] == expected
        assert f"split into {expected} consecutive web links" in english(split)[0]
    else:
        assert split == []


@pytest.mark.parametrize("mode", ["driving", "walking"])
def test_web_links_are_chained_and_cover_the_route(mode):
    links, _ = build(ordered_stops=_stops(5), transport_mode=mode, origin=origin())
    web = [raw_params(link) for link in links.web_navigation]
    for link in links.web_navigation:
        assert link.startswith("https://uri.amap.com/navigation?")
    for q in web:
        assert q["mode"] == ("car" if mode == "driving" else "walk")
        assert q["coordinate"] == "gaode" and q["callnative"] == "0" and q["src"] == "OmniTravelPlanner"
        assert ("via" in q) == (mode == "driving")
    for prev, nxt in zip(web, web[1:]):
        assert prev["to"] == nxt["from"]
    lon, lat, name = web[0]["from"].split(",", 2)
    assert (lon, lat) == ("121.478223", "31.228458") and unquote(name) == "人民广场"
    last_lon, last_lat, last_name = web[-1]["to"].split(",", 2)
    assert (last_lon, last_lat) == gcj(YU_GARDEN) and unquote(last_name) == "豫园"
    sequence = [web[0]["from"]] + [q[k] for q in web for k in ("via", "to") if k in q]
    assert [unquote(s.split(",", 2)[2]) for s in sequence] == ["人民广场", "P0", "P1", "P2", "P3", "P4", "豫园"]


def test_web_link_without_origin_omits_from_and_warns():
    links, warnings = build(ordered_stops=_stops(3))
    first = raw_params(links.web_navigation[0])
    assert "from" not in first
    assert unquote(first["via"].split(",", 2)[2]) == "P0"
    assert all("from" in raw_params(link) for link in links.web_navigation[1:])
    assert codes(warnings) == ["WEB_NO_START", "WEB_SPLIT"]
    assert "current location" in english(warnings)[0]


def test_web_link_with_origin_has_no_location_warning():
    _, warnings = build(origin=origin(), ordered_stops=_stops(1))
    assert warnings == []


def test_web_names_with_commas_do_not_add_fields():
    stops = [point("stop", "Bund, 外滩 & more", BUND, index=0)]
    links, _ = build(origin=origin(), ordered_stops=stops)
    via = raw_params(links.web_navigation[0])["via"]
    assert via.count(",") == 2
    lon, lat, name = via.split(",")
    assert (lon, lat) == gcj(BUND)
    assert unquote(name) == "Bund， 外滩 & more"


# --------------------------------------------------------------------------------------------- modes


def test_personal_map_with_offline_provider_falls_back_naming_points():
    links, warnings = build(deep_link_mode="personal_map", origin=origin(poi_id="sh-peoples-square"))
    assert links.personal_map is None
    assert links.mode_used == "route_plan"
    assert links.android_route_plan and links.ios_route_plan
    fallback = [n for n in warnings if n.code == "PERSONAL_MAP_NO_IDS"]
    assert len(fallback) == 1 and fallback[0].params == {"missing": 4, "points": 4}
    assert "missing for: 人民广场, 外滩, 东方明珠 | Pearl & Tower, 豫园" in fallback[0].detail
    assert "route plan links are given instead" in english(fallback)[0]
    assert codes(warnings)[1] == "PERSONAL_MAP_NOTE" and "does not navigate" in english(warnings)[1]


def test_personal_map_with_amap_provider_and_one_missing_id():
    stops = [
        point("stop", "外滩", BUND, poi_id="B00155FOZW", provider="amap", index=0),
        point("stop", "东方明珠", PEARL, poi_id=None, provider="amap", index=1),
    ]
    links, warnings = build(
        deep_link_mode="personal_map",
        provider="amap",
        ordered_stops=stops,
        destination=destination(poi_id="B00156JZEJ", provider="amap"),
    )
    assert links.personal_map is None and links.mode_used == "route_plan"
    fallback = [n for n in warnings if n.code == "PERSONAL_MAP_NO_IDS"]
    assert len(fallback) == 1 and "missing for: 东方明珠 —" in fallback[0].detail


def test_personal_map_with_all_amap_ids_reports_the_missing_service():
    links, warnings = build(
        deep_link_mode="personal_map",
        provider="amap",
        origin=origin(poi_id="B00155L3CU", provider="amap"),
        ordered_stops=stops_basic(poi_id="B00155FOZW", provider="amap"),
        destination=destination(poi_id="B00156JZEJ", provider="amap"),
    )
    assert links.personal_map is None and links.mode_used == "route_plan"
    assert codes(warnings)[:2] == ["PERSONAL_MAP_NEEDS_MCP", "PERSONAL_MAP_NOTE"]
    assert "needs the AMap MCP provider" in english(warnings)[0]


def test_personal_map_and_navigation_come_from_the_mcp_makers_when_given():
    from core.errors import ProviderUnavailable

    made: list[list[str]] = []

    def maker(points):
        made.append([p.poi_id for p in points])
        return "amapuri://workInAmap/createWithToken?polymericId=mcp_0f1e2d3c4b5a69788796a5b4c3d2e1f0&from=MCP"

    ids = dict(
        deep_link_mode="personal_map",
        provider="amap",
        origin=origin(poi_id="B00155L3CU", provider="amap"),
        ordered_stops=stops_basic(poi_id="B00155FOZW", provider="amap"),
        destination=destination(poi_id="B00156JZEJ", provider="amap"),
    )
    links, warnings = build(**ids, personal_map_maker=maker, navi_maker=lambda d: f"amapuri://navi?lon={d.lon}")
    assert links.mode_used == "personal_map" and links.personal_map.endswith("&from=MCP")
    assert made[0][0] == "B00155L3CU" and made[0][-1] == "B00156JZEJ"  # start, stops in order, destination
    assert links.navigation.startswith("amapuri://navi?lon=")
    assert links.android_route_plan  # the ordered route links are still there

    def broken(points):
        raise ProviderUnavailable("AMap MCP maps_schema_personal_map did not answer")

    links, warnings = build(**ids, personal_map_maker=broken)
    assert links.personal_map is None and links.mode_used == "route_plan"
    assert codes(warnings)[:2] == ["PERSONAL_MAP_FAILED", "PERSONAL_MAP_NOTE"]
    assert "did not answer" in warnings[0].detail


@pytest.mark.parametrize("mode", ["auto", "route_plan"])
def test_auto_and_route_plan_use_route_plan_without_personal_map_warnings(mode):
    links, warnings = build(deep_link_mode=mode, origin=origin())
    assert links.mode_used == "route_plan"
    assert links.personal_map is None
    assert not any(code.startswith("PERSONAL_MAP") for code in codes(warnings))


def test_invalid_modes_are_rejected():
    with pytest.raises(InputError):
        build(transport_mode="bicycling")
    with pytest.raises(InputError):
        build(deep_link_mode="teleport")


# --------------------------------------------------------------------------------------------- QR


def test_qr_svg_data_uri_decodes_to_svg():
    links, _ = build()
    uri = qr_svg_data_uri(links.android_route_plan)
    assert uri.startswith("data:image/svg+xml")
    payload = unquote(uri.split(",", 1)[1])
    assert payload.lstrip().startswith("<svg") and payload.rstrip().endswith("</svg>")
    assert qr_svg_data_uri(links.android_route_plan) == uri  # deterministic


# --------------------------------------------------------------------------------------------- auto (issue 20 §4)


def _all_amap_ids() -> dict:
    return dict(
        provider="amap",
        origin=origin(poi_id="B00155L3CU", provider="amap"),
        ordered_stops=stops_basic(poi_id="B00155FOZW", provider="amap"),
        destination=destination(poi_id="B00156JZEJ", provider="amap"),
    )


def test_auto_chooses_the_personal_map_when_every_point_is_an_amap_place_and_the_service_is_there():
    token = "amapuri://workInAmap/createWithToken?polymericId=mcp_0f1e2d3c4b5a69788796a5b4c3d2e1f0&from=MCP"
    links, notices = build(deep_link_mode="auto", **_all_amap_ids(), personal_map_maker=lambda points: token)
    assert links.mode_used == "personal_map" and links.personal_map == token
    assert links.android_route_plan  # the ordered route links stay beside it
    chosen = [n for n in notices if n.code == "AUTO_PERSONAL_MAP"]
    assert len(chosen) == 1 and chosen[0].severity == "info" and chosen[0].params["total"] == 4
    assert "PERSONAL_MAP_NOTE" in codes(notices)
    assert english(chosen)[0].startswith("A personal map was chosen: all 4 points are AMap places")


def test_auto_says_why_it_chose_route_plan_links():
    without_service, notices = build(deep_link_mode="auto", **_all_amap_ids())
    assert without_service.mode_used == "route_plan" and codes(notices)[0] == "AUTO_ROUTE_PLAN_NO_MCP"
    assert "not set up" in english(notices)[0]
    ids = {**_all_amap_ids(), "origin": origin()}  # the start typed as an address: no AMap id
    without_ids, notices = build(deep_link_mode="auto", **ids, personal_map_maker=lambda points: "never")
    assert without_ids.mode_used == "route_plan" and without_ids.personal_map is None
    reason = [n for n in notices if n.code == "AUTO_ROUTE_PLAN_NO_IDS"]
    assert reason[0].params == {"missing": 1, "total": 4} and reason[0].severity == "info"
    assert not any(n.severity == "warning" for n in notices if n.code.startswith(("AUTO_", "PERSONAL_MAP")))
