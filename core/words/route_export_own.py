"""The person's own order ("keep my order", issue 32 X8) in the route exports (core/words/route_export.py): its rows
in the CSV of legs and its section in the HTML report, with its figures, where each comes from (a straight-line
estimate named as such) and what it costs against the best order, in total and leg by leg. The JSON carries
``own_route`` and ``own_difference`` as they are."""

from __future__ import annotations

from core.i18n import Lang, t
from core.models.region import RegionPack
from core.models.route import RoutePlanResult
from core.words.report_html import e, h2, km, minutes, safe_href, signed
from core.words.route import candidate_names, source_words


def _pairs(names: list[str], legs: int) -> list[tuple[str, str]]:
    return list(zip(names, names[1:])) if len(names) == legs + 1 else [("", "")] * legs


def own_csv_rows(result: RoutePlanResult, lang: Lang, pack: RegionPack | None) -> list[list[object]]:
    """The person's order's legs as CSV rows (the columns of ``route_export.CSV_COLUMNS``): no rank, never the best,
    ``chosen_by`` "person"; none when the result has no own order."""
    own = result.own_route
    if own is None:
        return []
    names = _pairs(candidate_names(result, own, lang, pack), len(own.legs))
    return [
        [
            "",
            "false",
            n,
            start,
            end,
            leg.origin_location,
            leg.destination_location,
            leg.distance_m,
            leg.duration_s,
            leg.source,
            "true" if leg.straight_line_estimate else "false",
            source_words(leg.source, lang),
            own.chosen_by,
        ]
        for n, (leg, (start, end)) in enumerate(zip(own.legs, names), start=1)
    ]


def _against(metres: int, seconds: int, lang: Lang) -> str:
    return t("route.export.own_delta", lang, km=signed(metres / 1000, ".2f"), minutes=signed(seconds / 60, ".1f"))


def section_own(result: RoutePlanResult, lang: Lang, pack: RegionPack | None) -> str:
    """The HTML section of the person's order ("" when the result has none): the order, its totals and their
    difference to the best, then each leg with its figures, their source, and the difference to the best order's
    leg at the same position (or that the best order travels it too)."""
    own, diff = result.own_route, result.own_difference
    if own is None or diff is None:
        return ""
    names = candidate_names(result, own, lang, pack)
    items = []
    for leg, (start, end), beside in zip(own.legs, _pairs(names, len(own.legs)), diff.legs, strict=True):
        figures = t(
            "route.export.leg", lang, start=start, end=end, km=km(leg.distance_m), minutes=minutes(leg.duration_s)
        )
        versus = (
            t("route.export.own_shared", lang)
            if beside.shared
            else _against(beside.delta_distance_m, beside.delta_duration_s, lang)
        )
        items.append(
            f'<li>{e(figures)} <span class="src">({e(source_words(leg.source, lang))})</span> · {e(versus)}</li>'
        )
    total = t("route.export.total", lang, km=km(own.total_distance_m), minutes=minutes(own.total_duration_s))
    against = (
        t("route.export.own_same", lang)
        if diff.same_as_best
        else _against(diff.delta_distance_m, diff.delta_duration_s, lang)
    )
    apart = "" if diff.measured_alike else f'<p class="src">{e(t("route.own.measured_apart", lang))}</p>'
    return (
        f'<section id="own-order">{h2("route.export.heading.own", lang)}'
        f"<p><strong>{e(' → '.join(names))}</strong></p>"
        f"<p>{e(total)} · {e(against)}</p>{apart}"
        f'<ol class="legs">{"".join(items)}</ol>{_own_links(result, lang)}</section>'
    )


def _own_links(result: RoutePlanResult, lang: Lang) -> str:
    """The person's order's AMap links (route-plan links, as the best order's are made), "" when there are none."""
    links = result.own_deep_links
    if links is None:
        return ""
    web = links.web_navigation
    labelled = [
        (links.android_route_plan, t("route.links.android", lang)),
        (links.ios_route_plan, t("route.links.ios", lang)),
        *(
            (
                link,
                t("route.links.web", lang) if len(web) == 1 else t("route.links.web_part", lang, n=i, total=len(web)),
            )
            for i, link in enumerate(web, start=1)
        ),
    ]
    buttons = [
        f'<a class="button" href="{e(href)}">{e(label)}</a>' for link, label in labelled if (href := safe_href(link))
    ]
    if not buttons:
        return ""
    return f'<p class="src">{e(t("route.export.own_links", lang))}</p><div class="links">{"".join(buttons)}</div>'
