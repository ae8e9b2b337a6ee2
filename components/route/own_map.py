"""The person's own order on the route map (issue 32, X8 "keep my order"; components/route/map.py draws it): a layer
of its own, a dotted purple line through the stops in the person's order, above the candidates and under the pins,
and its line in the legend with its figures, where they come from and how far they are from the best order.

The planner has road geometry for the best order only: the person's order is drawn as straight lines between its
stops, and the legend says so; its figures are the plan's own (the matrix the best order was ranked on).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import folium

from components.folium_typed import polyline
from components.route_words import order_names
from core.app.route import source_words
from core.i18n import Lang, join_words, t
from core.models.route import RoutePlanResult

OWN_COLOUR = "#7b2ff7"  # purple: apart from the best route's red and the candidates' colours
OWN_WEIGHT = 4
OWN_DASH = "2 7"  # dotted: the candidates are dashed, the best route solid


@dataclass(frozen=True)
class OwnLine:
    """What the map draws for the person's order: its whole line ([lat, lon] through its stops), its figures,
    their sources in words, the difference to the best order, and its places in order (for the tooltip)."""

    line: list[list[float]]
    km: float
    minutes: float
    delta_km: float
    delta_min: float
    same_as_best: bool
    sources: str
    estimate: bool
    order: str


def own_line(result: RoutePlanResult, line: list[list[float]], *, lang: Lang) -> OwnLine | None:
    """The person's order as the map draws it (``line``: its points' [lat, lon] in its order, as the map places
    them), None when the result has none."""
    own, diff = result.own_route, result.own_difference
    if own is None or diff is None:
        return None
    sources = join_words(dict.fromkeys(source_words(leg.source, lang) for leg in own.legs), lang)
    return OwnLine(
        line=line,
        km=own.total_distance_m / 1000,
        minutes=own.total_duration_s / 60,
        delta_km=diff.delta_distance_m / 1000,
        delta_min=diff.delta_duration_s / 60,
        same_as_best=diff.same_as_best,
        sources=sources,
        estimate=any(leg.straight_line_estimate for leg in own.legs),
        order=" → ".join(n.shown for n in order_names(result, own, lang)),
    )


def own_layer(own: OwnLine, *, lang: Lang) -> folium.FeatureGroup:
    """The person's order as a layer of its own (shown or hidden in the layer control)."""
    label = t("route.map.own", lang)
    group = folium.FeatureGroup(name=f'<span style="color:{OWN_COLOUR}">┈</span> ' + html.escape(label), show=True)
    polyline(
        own.line,
        color=OWN_COLOUR,
        weight=OWN_WEIGHT,
        opacity=0.95,
        dash_array=OWN_DASH,
        tooltip=html.escape(t("route.map.own_tooltip", lang, order=own.order)),
    ).add_to(group)
    return group


def own_legend_row(own: OwnLine, *, lang: Lang) -> str:
    """The legend's line for the person's order (escaped): its figures and their source, the difference to the best
    order, and how it is drawn."""
    figures = t("route.map.figures", lang, km=f"{own.km:.1f}", minutes=f"{own.minutes:.0f}")
    if own.same_as_best:
        against = t("route.map.own_same", lang)
    else:
        against = t("route.map.own_delta", lang, km=f"{own.delta_km:+.1f}", minutes=f"{own.delta_min:+.0f}")
    source = t("route.map.own_source_estimate" if own.estimate else "route.map.own_source", lang, source=own.sources)
    swatch = f'<span class="swatch" style="border-top: 4px dotted {OWN_COLOUR}"></span>'
    return (
        f'<span class="own">{swatch}<b>{html.escape(t("route.map.own", lang))}</b> ({html.escape(figures)})'
        f" · {html.escape(against)}<br><small>{html.escape(source)} {html.escape(t('route.map.own_drawn', lang))}"
        "</small></span>"
    )
