"""Exports of a ``RoutePlanResult``: JSON, a CSV of legs and a self-contained HTML page.

The HTML page is a presentation layer only (docs/ARCHITECTURE.md, "Route planner"): it is rendered from the
``RoutePlanResult`` alone, loads nothing from the network (inline CSS, inline SVG, QR codes as
``data:`` images, no scripts) and escapes every piece of text that came from a user or a provider.
Output is deterministic (no timestamps). It is worded in the reader's language (``lang``, zh or en): headings,
table headers, the summary and the notices, which are worded from their codes and facts (core/route/notices.py);
places are named in the reader's language where the region pack has the name, else by their local name.
"""

from __future__ import annotations

import csv
import io
import math
import re
import unicodedata
from datetime import date

from core.i18n import Lang, has_cjk, join_words, t
from core.models.common import strip_invisible
from core.models.region import RegionPack
from core.models.route import CandidateRoute, ResolvedPoint, RoutePlanResult
from core.route.links import qr_svg_data_uri
from core.words.report_html import e as _e
from core.words.report_html import h2 as _h2
from core.words.report_html import km as _km
from core.words.report_html import minutes as _min
from core.words.report_html import safe_href
from core.words.report_html import signed as _signed
from core.words.report_html import th as _th
from core.words.route import (
    DEFAULT_TASK_NAME,
    LINK_MODE_KEYS,
    ROLE_KEYS,
    SOURCE_KEYS,
    STRATEGY_KEYS,
    TRANSPORT_KEYS,
    candidate_names,
    delta_words,
    district_words,
    found_by_words,
    found_place_name,
    notice_lines,
    place_name,
    provider_words,
    region_names,
    report_title,
    search_words,
    source_words,
    summary_line,
    summary_paragraph,
    why_words,
    word,
)
from core.words.route_export_own import own_csv_rows, section_own

_CSV_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

CSV_COLUMNS = (
    "candidate_rank",
    "is_best",
    "leg",
    "from",
    "to",
    "origin_location",
    "destination_location",
    "distance_m",
    "duration_s",
    "source",
    "straight_line_estimate",
    "figures",
    "chosen_by",
)


#: the task name a request gets when it names none (core/models/route.py): not a name of the trip
_STEM_FALLBACK = "route-plan"
_STEM_MAX = 60
_NOT_WORD = re.compile(r"[^\w]+")

# ---------------------------------------------------------------------------------------------
# File names


def slug(text: str, *, max_length: int = _STEM_MAX) -> str:
    """``text`` as a safe piece of a file name: letters and digits of any script (Chinese stays), lower case,
    every other run of characters (spaces, ``/ \\ : * ? " < > |``, dots, controls) one ``-``; empty if none."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return _NOT_WORD.sub("-", text).replace("_", "-").strip("-")[:max_length].strip("-")


def trip_name(result: RoutePlanResult, *, destination_name: str | None = None) -> str:
    """The trip's name: its task name when the request gave one, else the destination's name
    (``destination_name`` as the reader sees it, else the resolved name)."""
    if result.task_name and result.task_name != DEFAULT_TASK_NAME:
        return result.task_name
    d = result.resolved_destination
    return destination_name or d.resolved_name or d.label or d.input_address


def export_stem(result: RoutePlanResult, *, on: date, destination_name: str | None = None) -> str:
    """The file name (no extension) of the exports of ``result``: the trip's name slugged, then ``on`` (the
    day of the export, given by the caller so the output stays deterministic), e.g. ``bund-walk-2026-05-01``."""
    name = slug(trip_name(result, destination_name=destination_name)) or _STEM_FALLBACK
    return f"{name}-{on.isoformat()}"


# ---------------------------------------------------------------------------------------------
# JSON and CSV


def result_to_json(
    result: RoutePlanResult, *, indent: int = 2, lang: Lang | None = None, pack: RegionPack | None = None
) -> str:
    """The result as JSON; Chinese stays readable (no ``\\u`` escapes). Round-trips via model_validate_json.
    With ``lang``, its ``warnings`` and ``summary`` are the reader's sentences in that language (places named as
    ``pack`` names them); the codes and facts stay in ``notices``."""
    if lang is not None:
        result = in_reader_words(result, lang=lang, pack=pack)
    return result.model_dump_json(indent=indent)


def in_reader_words(result: RoutePlanResult, *, lang: Lang, pack: RegionPack | None) -> RoutePlanResult:
    """The result with its ``warnings``, ``summary`` and the optimiser's ``note`` as the reader's sentences in
    ``lang`` (places named as ``pack`` names them); the codes and facts stay in ``notices``."""
    worded = result.model_copy(update={"warnings": notice_lines(result, lang=lang, pack=pack)})
    return with_sentences(worded, lang=lang, pack=pack)


def with_sentences(result: RoutePlanResult, *, lang: Lang, pack: RegionPack | None = None) -> RoutePlanResult:
    """The result with its ``summary`` and the optimiser's ``note`` worded in ``lang`` (the core leaves them empty:
    issue 31; places named as ``pack`` names them); its warnings as they are."""
    opt = result.optimizer
    update: dict[str, object] = {"summary": summary_paragraph(result, lang=lang, pack=pack)}
    if opt is not None:
        update["optimizer"] = opt.model_copy(update={"note": search_words(opt, lang)})
    return result.model_copy(update=update)


def _best_index(result: RoutePlanResult) -> int | None:
    return result.best_index if 0 <= result.best_index < len(result.candidates) else None


def _csv_text(value: str) -> str:
    """Neutralise spreadsheet formulas in free text (a stop named ``=HYPERLINK(...)``) and drop bidi overrides and
    other invisible characters (a result stored before they were cleaned at the boundary still carries them)."""
    value = strip_invisible(value)
    return "'" + value if value.startswith(_CSV_FORMULA_PREFIXES) else value


def _leg_names(
    result: RoutePlanResult, candidate: CandidateRoute, lang: Lang, pack: RegionPack | None
) -> list[tuple[str, str]]:
    """Each leg's (from, to) in ``lang`` (legs[i] joins points[i] and points[i + 1]); the legs' own labels when a
    candidate's points do not match its legs (an older result)."""
    names = candidate_names(result, candidate, lang, pack)
    if len(names) != len(candidate.legs) + 1:
        return [(leg.from_label, leg.to_label) for leg in candidate.legs]
    return list(zip(names, names[1:]))


def legs_to_csv(result: RoutePlanResult, *, lang: Lang = "en", pack: RegionPack | None = None) -> str:
    """One row per leg of every candidate (in candidate order), with a header row.

    ``is_best`` marks the legs of the best route; the person's own order ("keep my order") follows with
    ``chosen_by`` "person" and no rank (the candidates' rows: "planner"); ``straight_line_estimate`` and ``figures`` (its source in words
    in ``lang``) say whether the leg's minutes and metres are a straight-line estimate. Places are named in ``lang``
    (``pack``'s names, else as typed). Free-text labels that would start a spreadsheet
    formula get a leading apostrophe. Encode as ``utf-8-sig`` when Excel must detect UTF-8.
    """
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    best = _best_index(result)
    for i, candidate in enumerate(result.candidates):
        rank = candidate.rank if candidate.rank is not None else i + 1
        for n, (leg, (from_name, to_name)) in enumerate(
            zip(candidate.legs, _leg_names(result, candidate, lang, pack)), start=1
        ):
            writer.writerow(
                [
                    rank,
                    "true" if i == best else "false",
                    n,
                    _csv_text(from_name),
                    _csv_text(to_name),
                    leg.origin_location,
                    leg.destination_location,
                    leg.distance_m,
                    leg.duration_s,
                    leg.source,
                    "true" if leg.straight_line_estimate else "false",
                    source_words(leg.source, lang),
                    candidate.chosen_by,
                ]
            )
    for row in own_csv_rows(result, lang, pack):  # the person's order: its names made safe as the candidates'
        writer.writerow([*row[:3], _csv_text(str(row[3])), _csv_text(str(row[4])), *row[5:]])
    return out.getvalue()


def legs_to_csv_bytes(result: RoutePlanResult, *, lang: Lang = "en", pack: RegionPack | None = None) -> bytes:
    """``legs_to_csv`` as UTF-8 with a byte order mark, so Excel reads the Chinese names right."""
    return legs_to_csv(result, lang=lang, pack=pack).encode("utf-8-sig")


# ---------------------------------------------------------------------------------------------
# HTML helpers


def _stop_visit_numbers(result: RoutePlanResult) -> list[int]:
    """Indices into resolved_stops in the best route's visiting order (its points; a stop they miss, in an
    inconsistent stored result, after them)."""
    order = [p.index for p in result.best_route.points if p.index is not None]
    return order + [i for i in range(len(result.resolved_stops)) if i not in order]


_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "PingFang SC", "Hiragino Sans GB",
       "Microsoft YaHei", "Noto Sans CJK SC", "Source Han Sans SC", sans-serif;
       margin: 0 auto; max-width: 1100px; padding: 24px; color: #1f2933; background: #fff; line-height: 1.5; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; border-bottom: 2px solid #e4e7eb; padding-bottom: .2rem; }
.meta { color: #52606d; font-size: .9rem; }
.meta span { display: inline-block; margin-right: 1.2rem; }
.summary { background: #f0f4f8; border-left: 4px solid #2f80ed; padding: .8rem 1rem; white-space: pre-wrap; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { border: 1px solid #d9e2ec; padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { background: #f5f7fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.best td { background: #effcf6; font-weight: 600; }
ol.legs li { margin: .2rem 0; }
.src { color: #52606d; font-size: .85rem; }
.links { display: flex; flex-wrap: wrap; gap: .6rem; margin: .5rem 0; }
a.button { display: inline-block; padding: .5rem .9rem; border-radius: 6px; background: #2f80ed; color: #fff;
           text-decoration: none; font-weight: 600; }
a.button.web { background: #27ae60; }
.qrs { display: flex; flex-wrap: wrap; gap: 1.5rem; margin-top: .8rem; }
figure { margin: 0; text-align: center; }
figure img { width: 180px; height: 180px; image-rendering: pixelated; border: 1px solid #d9e2ec; }
figcaption { font-size: .85rem; color: #52606d; }
ul.warnings li { color: #8a4b08; margin: .2rem 0; }
svg.sketch { width: 100%; max-width: 760px; height: auto; border: 1px solid #d9e2ec; background: #fbfcfd; }
.muted { color: #7b8794; }
code { word-break: break-all; font-size: .8rem; }
@media print { a.button { color: #000; background: none; border: 1px solid #000; } }
"""

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def _point_rows(result: RoutePlanResult) -> list[tuple[str, ResolvedPoint]]:
    visit = {idx: n for n, idx in enumerate(_stop_visit_numbers(result), start=1)}
    rows: list[tuple[str, ResolvedPoint]] = []
    if result.resolved_origin is not None:
        rows.append(("S", result.resolved_origin))
    # in visiting order, so the # column reads S, 1, 2, 3 ..., D (one numbering, the best route's)
    for i in _stop_visit_numbers(result):
        rows.append((str(visit[i]), result.resolved_stops[i]))
    rows.append(("D", result.resolved_destination))
    return rows


def _input_text(point: ResolvedPoint) -> str:
    if point.input_name and point.input_name != point.input_address:
        return f"{point.input_name} — {point.input_address}"
    return point.input_address


_POINT_COLUMNS = [
    "route.col.number",
    "route.col.role",
    "route.col.input",
    "route.col.resolved_as",
    "route.export.col.city_district",
    "route.export.col.lonlat",
    "route.col.poi_id",
    "route.col.found_by",
    "route.col.confidence_note",
]
_CANDIDATE_COLUMNS = [
    "route.col.rank",
    "route.col.order",
    "route.col.km",
    "route.col.minutes",
    "route.col.delta_km",
    "route.col.delta_min",
    "route.col.pareto",
    "route.col.best_for",
    "route.export.col.reason",
]


def _section_points(result: RoutePlanResult, lang: Lang, pack: RegionPack | None) -> str:
    rows = []
    for mark, p in _point_rows(result):
        note = (p.confidence_note or "") if lang == "en" else ""  # the core's note is English
        if p.match_score is not None:
            note = (note + " " if note else "") + (
                f"(match score {p.match_score:.0f})" if lang == "en" else f"({p.match_score:.0f})"
            )
        district = " / ".join(
            x for x in (p.city, district_words(pack, p.district, lang)) if x and (lang != "en" or not has_cjk(x))
        )
        rows.append(
            "<tr>"
            f"<td>{_e(mark)}</td><td>{_e(word(ROLE_KEYS, p.role, lang))}</td><td>{_e(_input_text(p))}</td>"
            f"<td>{_e(found_place_name(p, pack, lang))}</td>"
            f'<td>{_e(district)}</td><td class="num">{_e(f"{p.lon:.6f}, {p.lat:.6f}")}</td>'
            f"<td>{_e(p.poi_id or '—')}</td><td>{_e(found_by_words(p, lang))}"
            f"{_e(' · ' + provider_words(p.provider, lang) if p.provider else '')}</td>"
            f"<td>{_e(note)}</td>"
            "</tr>"
        )
    live = result.live_origin
    if result.resolved_origin is None and live is not None:
        rows.insert(
            0,
            "<tr>"
            f"<td>S</td><td>{_e(t('route.role.origin', lang))}</td><td>{_e(t('route.export.live_input', lang))}</td>"
            f"<td>{_e(t('route.export.live_name', lang))}</td><td></td>"
            f'<td class="num">{_e(f"{live.lon:.6f}, {live.lat:.6f}")}</td><td>—</td><td>{_e(source_words(live.source, lang))}</td>'
            "<td></td></tr>",
        )
    return (
        f'<section id="points">{_h2("route.export.heading.points", lang)}'
        f"<table><thead><tr>{_th(_POINT_COLUMNS, lang)}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f'<p class="src">{_e(t("route.export.points_legend", lang))}</p></section>'
    )


def _candidate_reason(result: RoutePlanResult, index: int, d_km: float, d_min: float, lang: Lang) -> str:
    """The reason column in ``lang``: why the best won, and for the others how they differ from it."""
    if index == _best_index(result):
        return why_words(result, lang)
    return join_words((delta_words(-d_km, "km", lang), delta_words(-d_min, "min", lang)), lang)


def _section_candidates(result: RoutePlanResult, lang: Lang, pack: RegionPack | None) -> str:
    best = _best_index(result)
    best_route = result.best_route
    rows = []
    for i, c in enumerate(result.candidates):
        rank = c.rank if c.rank is not None else i + 1
        d_km = (c.total_distance_m - best_route.total_distance_m) / 1000
        d_min = (c.total_duration_s - best_route.total_duration_s) / 60
        cls = ' class="best"' if i == best else ""
        rows.append(
            f"<tr{cls}>"
            f'<td class="num">{_e(rank)}{" ★" if i == best else ""}</td>'
            f"<td>{_e(' → '.join(candidate_names(result, c, lang, pack)))}</td>"
            f'<td class="num">{_e(_km(c.total_distance_m))}</td>'
            f'<td class="num">{_e(_min(c.total_duration_s))}</td>'
            f'<td class="num">{_e(_signed(d_km, ".2f"))}</td>'
            f'<td class="num">{_e(_signed(d_min, ".1f"))}</td>'
            f"<td>{'✓' if c.pareto_optimal else '—'}</td>"
            f"<td>{_e(join_words((word(STRATEGY_KEYS, b, lang) for b in c.best_for), lang))}</td>"
            f"<td>{_e(_candidate_reason(result, i, d_km, d_min, lang))}</td>"
            "</tr>"
        )
    return (
        f'<section id="candidates">{_h2("route.export.heading.candidates", lang)}'
        f'<table id="candidate-table"><thead><tr>{_th(_CANDIDATE_COLUMNS, lang)}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></section>"
    )


def _section_best(result: RoutePlanResult, lang: Lang, pack: RegionPack | None) -> str:
    b = result.best_route
    legs = "".join(
        f"<li>{_e(t('route.export.leg', lang, start=start, end=end, km=_km(leg.distance_m), minutes=_min(leg.duration_s)))}"
        f' <span class="src">({_e(source_words(leg.source, lang))})</span></li>'
        for leg, (start, end) in zip(b.legs, _leg_names(result, b, lang, pack))
    )
    why = why_words(result, lang)
    reason = f"<p>{_e(why)}</p>" if why else ""
    return (
        f'<section id="best">{_h2("route.export.heading.best", lang)}'
        f"<p><strong>{_e(' → '.join(candidate_names(result, b, lang, pack)))}</strong></p>"
        f"<p>{_e(t('route.export.total', lang, km=_km(b.total_distance_m), minutes=_min(b.total_duration_s)))} "
        f'<span class="src">({_e(word(STRATEGY_KEYS, result.route_strategy, lang))}, '
        f"{_e(word(TRANSPORT_KEYS, result.transport_mode, lang))})</span></p>"
        f'{reason}<ol class="legs">{legs}</ol></section>'
    )


def _section_links(result: RoutePlanResult, lang: Lang) -> str:
    links = result.deep_links
    if links is None:
        return (
            f'<section id="links">{_h2("route.export.heading.links", lang)}'
            f'<p class="muted">{_e(t("route.export.no_links", lang))}</p></section>'
        )
    buttons: list[str] = []
    qrs: list[str] = []
    dropped = 0

    def add(link: str | None, label: str, *, mobile: bool, css: str = "button") -> None:
        nonlocal dropped
        if not link:
            return
        href = safe_href(link)
        if href is None:
            dropped += 1
            return
        web = href.lower().startswith(("http://", "https://"))
        target = ' target="_blank" rel="noopener noreferrer"' if web else ""
        buttons.append(f'<a class="{css}" href="{_e(href)}"{target}>{_e(label)}</a>')
        if mobile:
            qrs.append(
                f'<figure><img alt="{_e(t("route.export.qr", lang, label=label))}" src="{_e(qr_svg_data_uri(href))}">'
                f"<figcaption>{_e(label)}</figcaption></figure>"
            )

    add(links.personal_map, t("route.links.personal_map", lang), mobile=True)
    add(links.android_route_plan, t("route.links.android", lang), mobile=True)
    add(links.ios_route_plan, t("route.links.ios", lang), mobile=True)
    n_web = len(links.web_navigation)
    for i, link in enumerate(links.web_navigation, start=1):
        label = t("route.links.web", lang) if n_web == 1 else t("route.links.web_part", lang, n=i, total=n_web)
        add(link, label, mobile=False, css="button web")

    parts = [
        f'<section id="links">{_h2("route.export.heading.links", lang)}',
        f'<p class="src">{_e(t("route.export.links_mode", lang, mode=word(LINK_MODE_KEYS, links.mode_used, lang) or "—"))}'
        f" · {_e(t('route.links.note', lang))}</p>",
    ]
    none = f'<p class="muted">{_e(t("route.export.no_usable_links", lang))}</p>'
    parts.append(f'<div class="links">{"".join(buttons)}</div>' if buttons else none)
    if dropped:
        parts.append(f'<p class="muted">{_e(t("route.export.dropped_links", lang, n=dropped))}</p>')
    if qrs:
        parts.append(f'<div class="qrs">{"".join(qrs)}</div>')
    parts.append("</section>")
    return "".join(parts)


def _section_warnings(result: RoutePlanResult, lang: Lang, pack: RegionPack | None) -> str:
    heading = _h2("route.export.heading.warnings", lang)
    lines = notice_lines(result, lang=lang, pack=pack)
    if not lines:
        return (
            f'<section id="warnings">{heading}<p class="muted">{_e(t("route.export.no_warnings", lang))}</p></section>'
        )
    items = "".join(f"<li>{_e(w)}</li>" for w in lines)
    return f'<section id="warnings">{heading}<ul class="warnings">{items}</ul></section>'


def _finite(lon: float, lat: float) -> bool:
    return math.isfinite(lon) and math.isfinite(lat)


def _section_sketch(
    result: RoutePlanResult, lang: Lang, pack: RegionPack | None, *, width: int = 760, height: int = 460, pad: int = 36
) -> str:
    """Equirectangular sketch of the points and the best route (no tiles, WGS-84 lon/lat)."""
    # (mark, label, lon, lat)
    marks: list[tuple[str, str, float, float]] = []
    live = result.live_origin
    if result.resolved_origin is not None:
        o = result.resolved_origin
        marks.append(("S", place_name(o, pack, lang), o.lon, o.lat))
    elif live is not None:
        marks.append(("S", t("route.export.live_name", lang), live.lon, live.lat))
    order = _stop_visit_numbers(result)
    for n, i in enumerate(order, start=1):
        p = result.resolved_stops[i]
        marks.append((str(n), place_name(p, pack, lang), p.lon, p.lat))
    d = result.resolved_destination
    marks.append(("D", place_name(d, pack, lang), d.lon, d.lat))
    marks = [m for m in marks if _finite(m[2], m[3])]

    geometry = [
        (float(pt[0]), float(pt[1]))
        for leg in result.best_geometry
        for pt in leg
        if len(pt) >= 2 and _finite(float(pt[0]), float(pt[1]))
    ]
    route = geometry or [(lon, lat) for _, _, lon, lat in marks]
    everything = [(lon, lat) for _, _, lon, lat in marks] + route
    if not everything:
        return ""

    lons = [x for x, _ in everything]
    lats = [y for _, y in everything]
    mean_lat = math.radians((min(lats) + max(lats)) / 2)
    kx = max(math.cos(mean_lat), 0.01)  # shrink longitude so distances look right at this latitude
    span_x = (max(lons) - min(lons)) * kx
    span_y = max(lats) - min(lats)
    scale = min(
        (width - 2 * pad) / span_x if span_x > 0 else math.inf,
        (height - 2 * pad) / span_y if span_y > 0 else math.inf,
    )
    if not math.isfinite(scale):
        scale = 1.0
    cx = (min(lons) + max(lons)) / 2
    cy = (min(lats) + max(lats)) / 2

    def xy(lon: float, lat: float) -> tuple[float, float]:
        return width / 2 + (lon - cx) * kx * scale, height / 2 - (lat - cy) * scale

    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(lon, lat) for lon, lat in route))
    shapes = [
        f'<polyline points="{path}" fill="none" stroke="#2f80ed" stroke-width="3" stroke-linejoin="round" '
        'stroke-linecap="round" opacity="0.85"/>'
    ]
    colours = {"S": "#27ae60", "D": "#c0392b"}
    # Draw in reverse so the start sits on top when a round trip ends where it began.
    for mark, label, lon, lat in reversed(marks):
        x, y = xy(lon, lat)
        fill = colours.get(mark, "#2f80ed")
        shapes.append(
            f"<g><title>{_e(mark + ' · ' + label)}</title>"
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="11" fill="{fill}" stroke="#fff" stroke-width="2"/>'
            f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="11" font-weight="700" '
            f'fill="#fff" font-family="sans-serif">{_e(mark)}</text></g>'
        )
    if geometry and result.has_road_geometry:
        line = t("route.export.line_roads", lang, source=word(SOURCE_KEYS, result.geometry_source, lang) or "—")
    else:
        line = t("route.export.line_straight", lang)
    return (
        f'<section id="sketch">{_h2("route.export.heading.sketch", lang)}'
        f'<svg class="sketch" role="img" aria-label="{_e(t("route.export.heading.sketch", lang))}" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">{"".join(shapes)}</svg>'
        f'<p class="src">{_e(t("route.export.sketch_note", lang, line=line))}</p></section>'
    )


def _section_header(result: RoutePlanResult, lang: Lang, pack: RegionPack | None) -> str:
    source = word(SOURCE_KEYS, result.metric_source, lang)
    region = region_names(pack, lang).get(result.region or "", result.region or "—")
    origin = "route.export.origin_live" if result.origin_mode == "current_location" else "route.export.origin_fixed"
    meta = [
        _e(t("route.export.meta.provider", lang, value=provider_words(result.provider, lang))),
        _e(t("route.export.meta.source", lang, value=source)),
        _e(t("route.export.meta.region", lang, value=region)),
        _e(t("route.export.meta.strategy", lang, value=word(STRATEGY_KEYS, result.route_strategy, lang))),
        _e(t("route.export.meta.mode", lang, value=word(TRANSPORT_KEYS, result.transport_mode, lang))),
        _e(t(origin, lang)),
    ]
    if result.round_trip:
        meta.append(_e(t("route.export.round_trip", lang)))
    if not result.success:
        meta.append(f"<strong>{_e(t('route.export.failed', lang))}</strong>")
    opt = ""
    if result.optimizer is not None:
        line = t("route.details.optimizer", lang, search=search_words(result.optimizer, lang))
        opt = f'<p class="src">{_e(line)}</p>'
    return (
        f"<header><h1>{_e(report_title(result, lang, pack=pack))}</h1>"
        f'<p class="meta">{"".join(f"<span>{m}</span>" for m in meta)}</p></header>'
        f'<section id="summary">{_h2("route.export.heading.summary", lang)}'
        f'<div class="summary">{_e(summary_line(result, lang=lang))}</div>{opt}</section>'
    )


def result_to_html(result: RoutePlanResult, *, lang: Lang = "en", pack: RegionPack | None) -> str:
    """A single self-contained HTML page rendered only from ``result`` (no network, no scripts), worded in
    ``lang`` (zh or en; English by default, as the CLI and the API speak). ``pack``: the result's region pack, for
    its places', districts' and region's names in ``lang`` (None: the names the result carries)."""
    lang = "zh" if lang == "zh" else "en"
    body = "".join(
        [
            _section_header(result, lang, pack),
            _section_points(result, lang, pack),
            _section_candidates(result, lang, pack),
            _section_best(result, lang, pack),
            section_own(result, lang, pack),
            _section_links(result, lang),
            _section_warnings(result, lang, pack),
            _section_sketch(result, lang, pack),
        ]
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(_CSP)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(report_title(result, lang, pack=pack))}</title>\n<style>{_CSS}</style>\n</head>\n"
        f"<body>\n{body}\n"
        f'<footer class="src"><p>{_e(t("route.export.footer", lang))}</p></footer>\n'
        "</body>\n</html>\n"
    )
