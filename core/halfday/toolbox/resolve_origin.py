"""Stage 4: the start place through the map services' geocoder (optional: unresolved, the plan starts at its first
stop). The mock: the pack's place of that name."""

from __future__ import annotations

from collections.abc import Callable

from core.config import HalfDayToolName
from core.halfday.tools import MOCK, ToolDeps, ToolSpec
from core.models.halfday.facts import OriginFacts, ToolFacts
from core.models.halfday.plans import OriginAnswer, OriginPoint, OriginQuery
from core.models.region import RegionPack

NAME = HalfDayToolName.RESOLVE_ORIGIN


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=4,
        input_model=OriginQuery,
        output_model=OriginAnswer,
        fn=_resolve(deps),
        mock=mock_origin(deps.provider.region),
        facts=origin_facts,
        calls_providers=True,
    )


def _resolve(deps: ToolDeps) -> Callable[[OriginQuery], OriginAnswer]:
    def resolve(query: OriginQuery) -> OriginAnswer:
        provider = deps.provider
        places = provider.geocode(query.text, city=provider.region.city or None)
        if not places:
            return OriginAnswer(origin=None)
        p = places[0]
        return OriginAnswer(origin=OriginPoint(name=p.name or query.text, lon=p.lon, lat=p.lat, source=str(p.source)))

    return resolve


def mock_origin(pack: RegionPack) -> Callable[[OriginQuery], OriginAnswer]:
    """The pack's place whose name is the start's (or contains it); none when no name matches."""

    def origin(query: OriginQuery) -> OriginAnswer:
        text = query.text.strip().lower()
        for place in pack.places:
            names = [n.lower() for n in (place.name_zh, place.name_en) if n]
            if any(text == n or text in n for n in names):
                name = place.name_zh or place.name_en
                return OriginAnswer(origin=OriginPoint(name=name, lon=place.lon, lat=place.lat, source=MOCK))
        return OriginAnswer(origin=None)

    return origin


def origin_facts(answer: OriginAnswer) -> ToolFacts:
    found = answer.origin
    return OriginFacts(found=found is not None, source=found.source if found is not None else None)
