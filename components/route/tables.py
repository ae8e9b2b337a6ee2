"""Tables of a route plan: candidate comparison, resolved points, legs, provider calls.

The ``*_frame`` builders are pure pandas (unit-testable); the ``render_*`` functions draw them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from components.debug_view import render_raw
from components.route.numbering import stop_numbers
from components.route_words import (
    ROLE_LABELS,
    STRATEGY_WORDS,
    TRANSPORT_WORDS,
    found_name,
    notice_names,
    notice_words,
    order_names,
    order_text,
    point_name,
    summary_words,
    why_words,
)
from core.app import route as route_app
from core.app.regions import district_name
from core.app.route import source_words, stops_words
from core.i18n import Lang, t
from core.models.route import CandidateRoute, Notice, RoutePlanResult
from core.words.route import found_by_words, strategies_sentence, summary_paragraph

if TYPE_CHECKING:
    from streamlit.elements.lib.column_types import ColumnConfig

COMPARISON_COLUMNS = ["rank", "order", "km", "minutes", "Δ km", "Δ min", "Pareto", "best for", "source", "measured"]
#: how a candidate's legs were measured (core.models.route.CandidateMeasure) → catalog key
MEASURE_WORDS = {
    "matrix": "route.measure.matrix",
    "directions": "route.measure.directions",
    "partly_directions": "route.measure.partly_directions",
}
#: the headers of every table (column id → catalog key); the frames keep the ids, the page shows the words
HEADERS = {
    "rank": "route.col.rank",
    "order": "route.col.order",
    "km": "route.col.km",
    "minutes": "route.col.minutes",
    "Δ km": "route.col.delta_km",
    "Δ min": "route.col.delta_min",
    "Pareto": "route.col.pareto",
    "best for": "route.col.best_for",
    "source": "route.col.source",
    "measured": "route.col.measured",
    "role": "route.col.role",
    "#": "route.col.number",
    "input": "route.col.input",
    "resolved as": "route.col.resolved_as",
    "other name": "route.col.other_name",
    "district": "route.col.district",
    "found by": "route.col.found_by",
    "lon": "route.col.lon",
    "lat": "route.col.lat",
    "match score": "route.col.match_score",
    "confidence note": "route.col.confidence_note",
    "poi id": "route.col.poi_id",
    "from": "route.col.from",
    "to": "route.col.to",
    "provider": "route.col.provider",
    "geocode": "route.col.geocode",
    "search": "route.col.search",
    "detail": "route.col.detail",
    "matrix": "route.col.matrix",
    "route": "route.col.route",
    "total": "route.col.total",
    "cache hits": "route.col.cache_hits",
}
#: the resolved points' columns shown in the main view; the rest (codes, ids, coordinates) are in its details
POINT_COLUMNS = ["role", "#", "input", "resolved as", "other name", "district", "found by"]
POINT_DETAIL_COLUMNS = ["role", "#", "resolved as", "source", "match score", "confidence note", "poi id", "lon", "lat"]


def lazy_expander(label: str, *, key: str, render: Callable[[], None]) -> None:
    """A collapsed expander whose content is drawn only once it is opened: opening it reruns this fragment alone
    (Streamlit's expander state, ``on_change="rerun"``), so a result's details cost nothing until asked for."""
    import streamlit as st

    @st.fragment
    def section() -> None:
        box = st.expander(label, expanded=False, key=key, on_change="rerun")
        if box.open:
            with box:
                render()

    section()


def header(column: str, lang: Lang) -> str:
    return t(HEADERS[column], lang) if column in HEADERS else column


def headers_config(columns: Sequence[str], lang: Lang, **overrides: ColumnConfig) -> dict[str, ColumnConfig]:
    """``column_config`` naming each column in ``lang`` (``overrides``: a column's own config)."""
    import streamlit as st

    config = {c: st.column_config.Column(header(c, lang)) for c in columns}
    config.update(overrides)
    return config


def strategies_words(codes: list[str], lang: Lang) -> str:
    return t("route.list_separator", lang).join(t(STRATEGY_WORDS[c], lang) for c in codes if c in STRATEGY_WORDS)


def candidate_source(cand: CandidateRoute, lang: Lang = "en") -> str:
    sources = sorted({leg.source for leg in cand.legs})
    return source_words(", ".join(sources), lang) if sources else "—"


def comparison_frame(result: RoutePlanResult, *, lang: Lang = "en") -> pd.DataFrame:
    """One row per candidate, in rank order: rank, order (names in ``lang``), km, minutes, Δ vs best, Pareto,
    best for."""
    rows = []
    for i, cand in enumerate(result.candidates):
        rows.append(
            {
                "rank": cand.rank if cand.rank is not None else i + 1,
                "order": order_text(result, cand, lang),
                "km": round(cand.total_distance_m / 1000, 1),
                "minutes": round(cand.total_duration_s / 60, 1),
                "Δ km": round(cand.delta_distance_m / 1000, 1),
                "Δ min": round(cand.delta_duration_s / 60, 1),
                "Pareto": "✓" if cand.pareto_optimal else "",
                "best for": strategies_words(list(cand.best_for), lang),
                "source": candidate_source(cand, lang),
                "measured": t(MEASURE_WORDS[cand.measured_by], lang),
                "_best": i == result.best_index,
            }
        )
    frame = pd.DataFrame(rows, columns=[*COMPARISON_COLUMNS, "_best"])
    return frame.sort_values("rank", kind="stable").reset_index(drop=True)


#: the comparison table's marker column (not part of the frame: the frame's ``_best`` says which row is the best)
BEST_MARK = "★"


def _text_width_px(text: str) -> int:
    """About how wide ``text`` is drawn in the table's 14 px font: CJK and other wide characters a full em, the
    rest about half of one (a slight overestimate, so the text is not cut)."""
    wide = sum(1 for ch in text if ord(ch) >= 0x2E80)
    return round(14.5 * wide + 7.6 * (len(text) - wide))


#: the comparison table's widget: selecting a row highlights that candidate on the map
COMPARISON_ROWS_KEY = "comparison_table_rows"


def selected_rank(result: RoutePlanResult, selection: object) -> int | None:
    """The rank of the candidate whose row is selected in the comparison table (``selection``: the table's state,
    ``st.session_state[COMPARISON_ROWS_KEY]``); None when no row is, or the row is not one of this result's."""
    rows = getattr(getattr(selection, "selection", None), "rows", None)
    if rows is None and isinstance(selection, dict):
        rows = (selection.get("selection") or {}).get("rows")
    if not rows:
        return None
    ranks = comparison_frame(result)["rank"].tolist()  # the table's rows, in the same order
    row = rows[0]
    return int(ranks[row]) if isinstance(row, int) and 0 <= row < len(ranks) else None


#: the candidate table's columns a person reads first (a browser test checks they are on screen and not cut)
CANDIDATE_KEY_COLUMNS = ["rank", "km", "minutes", "order"]
ORDER_MAX_PX = 520  # beside the mark, rank, km and minutes in a 1,400-px window
WRAPPING_ROW_PX = 68  # Streamlit wraps a cell's text only in rows taller than 4 rem: three lines of 14-px text
CELL_PADDING_PX = 24  # a cell's text starts and ends this far (both sides together) inside its column
LINE_PX = 20  # one wrapped line of the table's 14-px text
ROW_PADDING_PX = 8  # above the first line and below the last one


def wrapped_lines(text: str, width_px: int) -> int:
    """How many lines ``text`` takes in a cell whose text is ``width_px`` wide, wrapped at spaces as the table wraps
    it (a word wider than the cell is broken, so it counts its own share of lines)."""
    space = _text_width_px(" ")
    lines, used = 1, 0
    for word in text.split(" "):
        w = _text_width_px(word)
        if used and used + space + w > width_px:
            lines, used = lines + 1, 0
        if w > width_px:  # broken inside the word, from the start of a line: its full lines, then the rest
            extra = -(-w // width_px) - 1
            lines, used = lines + extra, w - extra * width_px
        else:
            used += (space if used else 0) + w
    return lines


def order_row_height(orders: Sequence[str], column_px: int) -> int | None:
    """The candidate table's row height (px) that shows each of ``orders`` whole in a column ``column_px`` wide:
    None (the table's own, one line) when every order fits on one line, else as many lines as the longest needs,
    and never less than Streamlit's height for wrapping."""
    text_px = column_px - CELL_PADDING_PX
    lines = max((wrapped_lines(order, text_px) for order in orders), default=1)
    return None if lines <= 1 else max(WRAPPING_ROW_PX, ROW_PADDING_PX + LINE_PX * lines)


def whole_order_line(result: RoutePlanResult, rank: int | None, *, lang: Lang) -> str:
    """The order of the candidate of ``rank`` (the best one when None, or when no candidate has that rank) in full,
    in words: under the table, where text wraps like any sentence, so the order is whole at any width."""
    frame = comparison_frame(result, lang=lang)
    chosen = frame[frame["rank"] == rank] if rank is not None else frame.iloc[0:0]
    row = (chosen if len(chosen) else frame[frame["_best"]]).iloc[0]
    name = t("route.map.best", lang) if row["_best"] else t("route.map.candidate", lang, rank=int(row["rank"]))
    return t("route.table.order_whole", lang, candidate=name, order=row["order"])


def render_comparison_table(result: RoutePlanResult, *, lang: Lang, key: str = "comparison_table") -> pd.DataFrame:
    """The candidates in rank order, the best one marked ★ in a first, pinned column. Formats and headers are
    column settings: no pandas Styler, whose per-cell display values cost about 30 ms per plan. Rank, distance,
    time and the order (as wide as its longest order) come first; the other figures follow (the table scrolls
    sideways, the mark and rank pinned)."""
    import streamlit as st

    frame = comparison_frame(result, lang=lang)
    shown = frame.drop(columns="_best")
    # matrix or directions is worth a column only when some candidates were re-measured on directions
    columns = [
        c for c in COMPARISON_COLUMNS if c != "measured" or any(x.measured_by != "matrix" for x in result.candidates)
    ]
    shown = shown[columns]
    # the mark, the rank, distance, time and the order first (the order, as wide as its longest, in sight at
    # 1,400 px); the differences and notes after it, reached by scrolling sideways
    key_first = ["best", *(c for c in CANDIDATE_KEY_COLUMNS if c in columns)]
    table = shown.assign(best=frame["_best"].map({True: BEST_MARK, False: ""}))[
        key_first + [c for c in columns if c not in key_first]
    ]
    orders = [str(order) for order in shown["order"]]
    order_px = min(
        max(_text_width_px(text) for text in [*orders, header("order", lang)]) + CELL_PADDING_PX, ORDER_MAX_PX
    )
    # a long order (English names) wraps onto as many lines as it needs, in taller rows: never cut, never off-screen
    container = st.container(key=key)  # keyed container: .st-key-comparison_table in the page
    container.caption(t("route.table.select_hint", lang))
    container.dataframe(
        table,
        key=COMPARISON_ROWS_KEY,
        on_select="rerun",  # the map above is drawn again with the selected candidate highlighted
        selection_mode="single-row",
        hide_index=True,
        row_height=order_row_height(orders, order_px),
        width="stretch",
        column_config=headers_config(
            columns,
            lang,
            measured=st.column_config.TextColumn(header("measured", lang), help=t("route.col.measured_help", lang)),
            best=st.column_config.TextColumn(
                t("route.col.best", lang), help=t("route.col.best_help", lang), width=40, pinned=True
            ),
            rank=st.column_config.NumberColumn(header("rank", lang), width="small", pinned=True),
            order=st.column_config.TextColumn(header("order", lang), width=order_px),
            km=st.column_config.NumberColumn(header("km", lang), format="%.1f"),
            minutes=st.column_config.NumberColumn(header("minutes", lang), format="%.0f"),
            **{
                "Δ km": st.column_config.NumberColumn(header("Δ km", lang), format="%+.1f"),
                "Δ min": st.column_config.NumberColumn(header("Δ min", lang), format="%+.0f"),
            },
            Pareto=st.column_config.TextColumn(header("Pareto", lang), help=t("route.col.pareto_help", lang)),
        ),
    )
    chosen = selected_rank(result, st.session_state.get(COMPARISON_ROWS_KEY))
    container.container(key=f"{key}_order_whole").caption(whole_order_line(result, chosen, lang=lang))
    return shown


def resolved_points_frame(result: RoutePlanResult, *, lang: Lang = "en") -> pd.DataFrame:
    """Every point, in the best route's visiting order and numbered as on the map's pins (numbering.py): what was
    typed, the place it was found as (its name in ``lang``, the other language's name beside it), how it was found;
    and, for the details, its source code, score, note, id and coordinates."""
    numbers = stop_numbers(result)
    stops = sorted(
        result.resolved_stops,
        key=lambda p: numbers.get(p.index, len(numbers) + 1) if p.index is not None else len(numbers) + 1,
    )
    points = ([result.resolved_origin] if result.resolved_origin else []) + stops
    points.append(result.resolved_destination)
    rows = []
    for p in points:
        name = found_name(p, lang, result.region)
        rows.append(
            {
                "role": t(ROLE_LABELS[p.role], lang),
                # the stop's number on the map (visiting order); the start and the destination rows say their role
                "#": str(numbers[p.index]) if p.role == "stop" and p.index in numbers else "",
                "input": p.input_name or p.input_address,
                "input address": p.input_address,
                "resolved as": name.shown,
                "other name": name.other,
                "district": district_name(result.region, p.district, lang),
                "found by": found_by_words(p, lang),
                "lon": round(p.lon, 6),
                "lat": round(p.lat, 6),
                "source": p.source,
                "match score": p.match_score,
                "confidence note": p.confidence_note or "",
                "poi id": p.poi_id or "",
            }
        )
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["match score"] = frame["match score"].astype("Float64")
    return frame


def render_resolved_points(result: RoutePlanResult, *, lang: Lang) -> None:
    import streamlit as st

    frame = resolved_points_frame(result, lang=lang)
    st.dataframe(
        frame[POINT_COLUMNS],
        key="resolved_points_table",
        hide_index=True,
        width="stretch",
        column_config=headers_config(
            POINT_COLUMNS,
            lang,
            **{
                "#": st.column_config.TextColumn(header("#", lang)),  # "" on the start and destination rows
                "other name": st.column_config.TextColumn(
                    t("route.col.other_name_zh" if lang == "en" else "route.col.other_name_en", lang)
                ),
            },
        ),
    )

    def details() -> None:
        st.dataframe(
            frame[POINT_DETAIL_COLUMNS],
            key="resolved_points_details_table",
            hide_index=True,
            width="stretch",
            column_config=headers_config(
                POINT_DETAIL_COLUMNS,
                lang,
                **{
                    "#": st.column_config.TextColumn(header("#", lang)),  # "" on the start and destination rows
                    "match score": st.column_config.NumberColumn(header("match score", lang), format="%.0f"),
                },
            ),
        )

    lazy_expander(t("common.details", lang), key="resolved_points_details", render=details)


def legs_frame(cand: CandidateRoute, result: RoutePlanResult | None = None, *, lang: Lang = "en") -> pd.DataFrame:
    """The legs of a candidate: from, to (names in ``lang`` when the result is given), km, minutes, source."""
    # leg i joins the candidate's points i and i + 1 (its labels only where the points do not say)
    names = [n.shown for n in order_names(result, cand, lang)] if result is not None else []
    if len(names) != len(cand.legs) + 1:
        names = [leg.from_label for leg in cand.legs] + [cand.legs[-1].to_label if cand.legs else ""]
    return pd.DataFrame(
        [
            {
                "from": names[i],
                "to": names[i + 1],
                "km": round(leg.distance_m / 1000, 2),
                "minutes": round(leg.duration_s / 60, 1),
                "source": source_words(leg.source, lang),
            }
            for i, leg in enumerate(cand.legs)
        ],
        columns=["from", "to", "km", "minutes", "source"],
    )


def render_legs(result: RoutePlanResult, *, lang: Lang, key: str = "best_legs_table") -> None:
    import streamlit as st

    frame = legs_frame(result.best_route, result, lang=lang)
    st.dataframe(frame, key=key, hide_index=True, width="stretch", column_config=headers_config(list(frame), lang))


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


def render_provider_calls(result: RoutePlanResult, *, lang: Lang) -> None:
    import streamlit as st

    frame = provider_calls_frame(result)
    st.dataframe(
        frame,
        key="provider_calls_table",
        hide_index=True,
        width="stretch",
        column_config=headers_config(list(frame), lang),
    )


# --- result panels (text, links, downloads) ------------------------------------------------------


def best_route_text(result: RoutePlanResult, *, lang: Lang = "en") -> str:
    return order_text(result, result.best_route, lang)


def render_best_route_card(result: RoutePlanResult, *, lang: Lang) -> None:
    """The best route in words: its order, totals, why it won, the summary; the core's own reasoning and the
    optimiser in a collapsed "Details"."""
    import streamlit as st

    best = result.best_route
    with st.container(border=True, key="best_route_card"):
        st.markdown("#### :material/flag: " + t("route.best.title", lang))
        st.markdown(f"**{best_route_text(result, lang=lang)}**")
        st.markdown(
            "### "
            + t(
                "route.best.totals",
                lang,
                km=f"{best.total_distance_m / 1000:.1f}",
                minutes=f"{best.total_duration_s / 60:.0f}",
                stops=stops_words(len(result.resolved_stops), lang),
            )
        )
        st.markdown(t("route.best.why", lang, why=why_words(result, lang)))
        st.markdown(t("route.best.summary", lang, summary=summary_words(result, lang)))
        if best.best_for:
            st.caption(t("route.best.best_for", lang, strategies=strategies_words(list(best.best_for), lang)))
        if (statement := strategies_sentence(result, lang)) is not None:
            st.caption(f":material/compare_arrows: {statement}")
        st.caption(
            t(
                "route.best.figures",
                lang,
                strategy=t(STRATEGY_WORDS[result.route_strategy], lang),
                transport=t(TRANSPORT_WORDS[result.transport_mode], lang),
                source=source_words(result.metric_source, lang),
            )
        )
        with st.expander(t("common.details", lang), expanded=False, key="best_route_details"):
            render_best_route_details(result, lang=lang)
    render_raw(raw_lines(result), key="best_route_raw", lang=lang)


def render_best_route_details(result: RoutePlanResult, *, lang: Lang) -> None:
    """For analysts, in words in either language: how the order was searched and what the figures are. The codes
    and the core's own sentences are in the raw expander (``raw_lines``)."""
    import streamlit as st

    from components.frame import provider_label

    opt = result.optimizer
    if opt is not None:
        st.caption(t("route.details.optimizer", lang, search=route_app.search_words(opt, lang)))
    geometry = "route.details.geometry_roads" if result.has_road_geometry else "route.details.geometry_straight"
    st.caption(
        t(
            "route.details.words",
            lang,
            strategy=t(STRATEGY_WORDS[result.route_strategy], lang),
            transport=t(TRANSPORT_WORDS[result.transport_mode], lang),
            provider=provider_label(result.provider, lang),
            source=route_app.source_words(result.metric_source, lang),
            geometry=t(geometry, lang),
        )
    )


def raw_lines(result: RoutePlanResult) -> list[str]:
    """The result's raw form for debugging: its codes and the core's own (English) reasoning and summary."""
    codes = (
        f"route_strategy={result.route_strategy} transport_mode={result.transport_mode} provider={result.provider} "
        f"metric_source={result.metric_source} geometry_source={result.geometry_source or '-'}"
    )
    return [codes, result.best_route.ranking_reason or "", summary_paragraph(result, lang="en")]


def warned_notices(result: RoutePlanResult, lang: Lang) -> list[Notice]:
    """The notices the warnings list says: not those said elsewhere on the page (the strategies' agreement on
    estimates beside the best order, by strategies_sentence; why there are no links, in the links panel)."""
    said = {"LINKS_OUTSIDE_AMAP"} | ({"STRATEGIES_AGREE_ON_ESTIMATES"} if strategies_sentence(result, lang) else set())
    return [n for n in result.notices if n.code not in said]


def render_warnings(result: RoutePlanResult, *, lang: Lang) -> None:
    """The plan's notices in words, by code (an information icon on those that only inform); the codes and the
    core's own notes are in a collapsed raw-data expander below them."""
    import streamlit as st

    names = notice_names(result, lang)
    for notice in warned_notices(result, lang):
        text, _ = notice_words(notice, lang, names)
        st.warning(text, icon=":material/info:" if notice.severity == "info" else ":material/warning:")
    # each notice's code and the core's (English) note: raw data, for debugging
    raw = [f"{n.code}: {n.detail}" if n.detail else n.code for n in result.notices]
    render_raw(raw, key="route_warnings_raw", lang=lang)


_EXPORTS_CACHE = "route_exports_cache"


def render_downloads(result: RoutePlanResult, *, lang: Lang) -> None:
    import streamlit as st

    from components.frame import region_today

    destination = point_name(result.resolved_destination, lang, result.region).shown
    # named after the trip and the day; each file is made when its button is pressed (route_app.exports)
    made = route_app.exports(result, on=region_today(result.region), destination_name=destination, lang=lang)
    cached = st.session_state.get(_EXPORTS_CACHE)
    if cached is not None and cached[0] is result and cached[1] == (lang, made.stem):
        downloads = cached[2]
    else:  # kept once per result, language and day: a rerun for another widget does not redo them
        downloads = [
            (t(f"route.download.{f.kind}", lang), f.make, f.file_name, f.mime, f"dl_{f.kind}") for f in made.files
        ]
        st.session_state[_EXPORTS_CACHE] = (result, (lang, made.stem), downloads)
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


def render_reservations(
    result: RoutePlanResult, *, lang: Lang, key_prefix: str = "rp_res", party_size: int = 2
) -> None:
    """ "Reserve" on every stop of the best route (and the destination) that the region's venues take bookings
    for, by its pack POI id; the form opens at today's (else tomorrow's) earliest bookable slot."""
    from components import reservations

    service = reservations.service_for(result.region)
    points = [p for ref, p in result.visiting() if ref.role != "origin" and p is not None]
    offers, seen = [], set()
    for n, point in enumerate(points, start=1):
        if not point.poi_id or point.poi_id in seen:
            continue
        seen.add(point.poi_id)
        where = t("route.role.destination", lang) if point.role == "destination" else t("route.who.stop_n", lang, n=n)
        name = point_name(point, lang, result.region).shown
        offer = reservations.offer_for(service, point.poi_id, key=point.poi_id, label=f"{where} · **{name}**")
        if offer is not None:
            offers.append(offer)
    reservations.render_offers(offers, key_prefix=key_prefix, party_size=party_size, region=result.region)
