"""Tables of a route plan: candidate comparison, resolved points, legs, provider calls.

The ``*_frame`` builders are pure pandas (unit-testable); the ``render_*`` functions draw them.
"""

from __future__ import annotations

import pandas as pd

from core.models.route import CandidateRoute, RoutePlanResult

STRATEGY_LABELS = {
    "shortest_distance": "shortest distance",
    "fastest_time": "fastest time",
    "balanced": "balanced",
}
COMPARISON_COLUMNS = ["rank", "order", "km", "minutes", "Δ km", "Δ min", "Pareto", "best for", "source"]


def candidate_source(cand: CandidateRoute) -> str:
    sources = sorted({leg.source for leg in cand.legs})
    return ", ".join(sources) if sources else "—"


def comparison_frame(result: RoutePlanResult) -> pd.DataFrame:
    """One row per candidate, in rank order: rank, order, km, minutes, Δ vs best, Pareto, best for."""
    rows = []
    for i, cand in enumerate(result.candidates):
        rows.append(
            {
                "rank": cand.rank if cand.rank is not None else i + 1,
                "order": " → ".join(cand.full_order_labels),
                "km": round(cand.total_distance_m / 1000, 1),
                "minutes": round(cand.total_duration_s / 60, 1),
                "Δ km": round(cand.delta_distance_m / 1000, 1),
                "Δ min": round(cand.delta_duration_s / 60, 1),
                "Pareto": "✓" if cand.pareto_optimal else "",
                "best for": ", ".join(STRATEGY_LABELS.get(s, s) for s in cand.best_for),
                "source": candidate_source(cand),
                "_best": i == result.best_index,
            }
        )
    frame = pd.DataFrame(rows, columns=[*COMPARISON_COLUMNS, "_best"])
    return frame.sort_values("rank", kind="stable").reset_index(drop=True)


def _highlight_best(row: pd.Series, best_mask: pd.Series) -> list[str]:
    style = "background-color: rgba(214, 39, 40, 0.15); font-weight: 600" if best_mask.loc[row.name] else ""
    return [style] * len(row)


def render_comparison_table(result: RoutePlanResult, *, key: str = "comparison_table") -> pd.DataFrame:
    import streamlit as st

    frame = comparison_frame(result)
    best_mask = frame["_best"]
    shown = frame.drop(columns="_best")
    styled = shown.style.apply(_highlight_best, axis=1, best_mask=best_mask).format(
        {"km": "{:.1f}", "minutes": "{:.0f}", "Δ km": "{:+.1f}", "Δ min": "{:+.0f}"}
    )
    container = st.container(key=key)  # keyed container: .st-key-comparison_table in the page
    container.dataframe(
        styled,
        hide_index=True,
        width="stretch",
        column_config={
            "rank": st.column_config.NumberColumn("rank", width="small"),
            "order": st.column_config.TextColumn("order", width="large"),
        },
    )
    return shown


def resolved_points_frame(result: RoutePlanResult) -> pd.DataFrame:
    points = ([result.resolved_origin] if result.resolved_origin else []) + result.resolved_stops
    points.append(result.resolved_destination)
    rows = [
        {
            "role": p.role,
            "#": (p.index + 1) if p.role == "stop" and p.index is not None else None,
            "input": p.input_name or p.input_address,
            "input address": p.input_address,
            "resolved as": p.resolved_name,
            "district": p.district or "",
            "lon": round(p.lon, 6),
            "lat": round(p.lat, 6),
            "source": p.source,
            "match score": p.match_score,
            "confidence note": p.confidence_note or "",
            "poi id": p.poi_id or "",
        }
        for p in points
    ]
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["#"] = frame["#"].astype("Int64")
        frame["match score"] = frame["match score"].astype("Float64")
    return frame


def render_resolved_points(result: RoutePlanResult) -> None:
    import streamlit as st

    st.dataframe(
        resolved_points_frame(result),
        key="resolved_points_table",
        hide_index=True,
        width="stretch",
        column_config={
            "#": st.column_config.NumberColumn("#", format="%d"),
            "match score": st.column_config.NumberColumn("match score", format="%.0f"),
        },
    )


def legs_frame(cand: CandidateRoute) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "from": leg.from_label,
                "to": leg.to_label,
                "km": round(leg.distance_m / 1000, 2),
                "minutes": round(leg.duration_s / 60, 1),
                "source": leg.source,
            }
            for leg in cand.legs
        ]
    )


def render_legs(cand: CandidateRoute, *, key: str = "best_legs_table") -> None:
    import streamlit as st

    st.dataframe(legs_frame(cand), key=key, hide_index=True, width="stretch")


def provider_calls_frame(result: RoutePlanResult) -> pd.DataFrame:
    calls = result.provider_calls
    return pd.DataFrame(
        [
            {
                "provider": result.provider,
                "geocode": calls.geocode,
                "search": calls.search,
                "detail": calls.detail,
                "matrix": calls.matrix,
                "route": calls.route,
                "total": calls.total,
                "cache hits": calls.cache_hits,
            }
        ]
    )


def render_provider_calls(result: RoutePlanResult) -> None:
    import streamlit as st

    st.dataframe(provider_calls_frame(result), key="provider_calls_table", hide_index=True, width="stretch")


# --- result panels (text, links, downloads) ------------------------------------------------------


def best_route_text(result: RoutePlanResult) -> str:
    best = result.best_route
    return " → ".join(best.full_order_labels)


def render_best_route_card(result: RoutePlanResult) -> None:
    """The best route: its order, totals, ranking reason, the summary and the optimiser note."""
    import streamlit as st

    best = result.best_route
    with st.container(border=True, key="best_route_card"):
        st.markdown("#### :material/flag: Best route 最佳路线")
        st.markdown(f"**{best_route_text(result)}**")
        st.markdown(
            f"### {best.total_distance_m / 1000:.1f} km · {best.total_duration_s / 60:.0f} min"
            f" · {len(result.resolved_stops)} stops"
        )
        if best.ranking_reason:
            st.markdown(f"**Why:** {best.ranking_reason}")
        st.markdown(f"**Summary:** {result.summary}")
        if best.best_for:
            st.caption("Best for: " + ", ".join(STRATEGY_LABELS.get(s, s) for s in best.best_for))
        if (statement := strategy_statement(result)) is not None:
            st.caption(f":material/compare_arrows: {statement}")
        opt = result.optimizer
        if opt is not None:
            exact = "exact" if opt.exact else "heuristic (not proven optimal)"
            evaluated = f", {opt.orders_evaluated} orders evaluated" if opt.orders_evaluated is not None else ""
            st.caption(f"Optimiser: {opt.method} · {exact}{evaluated} — {opt.note}")
        st.caption(
            f"Strategy {result.route_strategy} · {result.transport_mode} · provider {result.provider}"
            f" · figures: {result.metric_source}"
            + (f" · geometry: {result.geometry_source}" if result.geometry_source else "")
        )


def strategy_statement(result: RoutePlanResult) -> str | None:
    """Why the strategies pick one order, when they do (None: they differ, the table shows how)."""
    if len({s for c in result.candidates for s in c.best_for}) < 2:
        return None
    if any(len(c.best_for) == 1 for c in result.candidates):
        return None
    if result.metric_source == "offline_estimate":
        return (
            "The strategies agree because every figure is an offline estimate: time is a fixed multiple of "
            "distance, so the shortest order is also the fastest. A region with a street network (Helsinki) or an "
            "online router can tell them apart. 所有数据均为离线估算(时间与距离成正比), 因此最短与最快路线相同。"
        )
    return "All strategies choose this order on these figures. 各策略在当前数据下选择同一路线。"


def render_warnings(result: RoutePlanResult) -> None:
    import streamlit as st

    for warning in result.warnings:
        st.warning(warning, icon=":material/warning:")


def _safe(link: str | None) -> str | None:
    from core.route.export import safe_href

    return safe_href(link) if link else None


def _outside_china(region: str | None) -> bool:
    from core.errors import OmniError
    from core.packs.loader import load_region
    from core.route.links import amap_navigates_in

    try:
        return bool(region) and not amap_navigates_in(load_region(str(region)).country)
    except (OmniError, ValueError, OSError):
        return False


def render_deep_links(result: RoutePlanResult) -> None:
    """Buttons for the AMap links; app links also as QR codes (scan with a phone)."""
    import streamlit as st

    from core.route.links import qr_svg_data_uri

    links = result.deep_links
    if links is None:
        st.caption(
            "No AMap links for this plan: AMap navigates in mainland China, and this region is elsewhere."
            if _outside_china(result.region)
            else "No deep links were requested."
        )
        return
    app_links = [
        ("AMap app · Android", _safe(links.android_route_plan), "link_android"),
        ("AMap app · iOS", _safe(links.ios_route_plan), "link_ios"),
        ("AMap personal map", _safe(links.personal_map), "link_personal_map"),
        ("AMap app · navigate to the end", _safe(links.navigation), "link_navigation"),
    ]
    web = [_safe(u) for u in links.web_navigation]
    web = [u for u in web if u]
    cols = st.columns(max(1, len([a for a in app_links if a[1]]) + len(web)))
    i = 0
    for label, url, key in app_links:
        if url:
            cols[i].link_button(label, url, key=key, width="stretch")
            i += 1
    for n, url in enumerate(web, start=1):
        label = "Open in browser (uri.amap.com)" if len(web) == 1 else f"Web part {n}/{len(web)}"
        cols[i].link_button(label, url, key=f"link_web_{n}", width="stretch")
        i += 1
    st.caption(
        f"Mode used: {links.mode_used or '—'} · coordinates {links.coordinate_system} (converted from WGS-84). "
        "App links open only where the AMap app is installed — scan a QR code with your phone."
    )
    qrs = [(label, url) for label, url, _ in app_links if url]
    if qrs:
        qcols = st.columns(len(qrs) + 1)
        for col, (label, url) in zip(qcols, qrs):
            col.image(qr_svg_data_uri(url), caption=label, width=160)


def render_downloads(result: RoutePlanResult) -> None:
    import streamlit as st

    from core.route.export import legs_to_csv, result_to_html, result_to_json

    stem = (result.task_name or "route-plan").replace(" ", "_")
    downloads = [
        ("JSON", result_to_json(result), f"{stem}.json", "application/json", "dl_json"),
        ("HTML page", result_to_html(result), f"{stem}.html", "text/html", "dl_html"),
        ("Legs CSV", legs_to_csv(result), f"{stem}-legs.csv", "text/csv", "dl_csv"),
    ]
    for col, (label, data, file_name, mime, key) in zip(st.columns(len(downloads)), downloads):
        col.download_button(
            label,
            data,
            file_name=file_name,
            mime=mime,
            key=key,
            on_click="ignore",
            icon=":material/download:",
            width="stretch",
        )


# --- reservations ----------------------------------------------------------------------------------


def render_reservations(result: RoutePlanResult, *, key_prefix: str = "rp_res", party_size: int = 2) -> None:
    """ "Reserve" on every stop of the best route (and the destination) that the region's venues take bookings
    for, by its pack POI id; the form opens at today's (else tomorrow's) earliest bookable slot."""
    from components import reservations

    service = reservations.service_for(result.region)
    order = result.best_route.stop_order or list(range(len(result.resolved_stops)))
    points = [result.resolved_stops[i] for i in order] + [result.resolved_destination]
    offers, seen = [], set()
    for n, point in enumerate(points, start=1):
        if not point.poi_id or point.poi_id in seen:
            continue
        seen.add(point.poi_id)
        where = "Destination 终点" if point.role == "destination" else f"Stop {n} 途经点"
        offer = reservations.offer_for(service, point.poi_id, key=point.poi_id, label=f"{where} · **{point.label}**")
        if offer is not None:
            offers.append(offer)
    reservations.render_offers(offers, key_prefix=key_prefix, party_size=party_size, region=result.region)
