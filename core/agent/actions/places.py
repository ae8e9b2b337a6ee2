"""Place actions: places.resolve_entities, places.get_poi_facts, places.search_knowledge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from core.agent.actions.names import ActionName
from core.agent.actions.spec import ActionSpec
from core.agent.features import normalize_message
from core.agent.rag import knowledge_base
from core.agent.state import AgentContext
from core.geo.base import Geocoder, Place
from core.models.agent import AgentState

if TYPE_CHECKING:
    from core.models.region import RegionPlace


class ResolveIn(BaseModel):
    names: list[str] = Field(max_length=100)


class ResolvedEntity(BaseModel):
    query: str
    place_id: str | None = Field(default=None, description="the POI id, when the provider gave one")
    name: str
    lon: float
    lat: float
    score: float | None = None
    matched_on: str | None = None
    source: str | None = Field(default=None, description="who answered: the provider, or the pack's gazetteer")


class ResolveOut(BaseModel):
    resolved: list[ResolvedEntity] = Field(default_factory=list)
    unresolved: list[str] = Field(default_factory=list)


class FactsIn(BaseModel):
    place_ids: list[str] = Field(max_length=200)


class FactsOut(BaseModel):
    pois: list[dict[str, Any]]
    missing: list[str] = Field(default_factory=list)


class KnowledgeIn(BaseModel):
    query: str = Field(min_length=1, max_length=500)
    k: int = Field(default=5, ge=1, le=20)


class KnowledgeOut(BaseModel):
    covered: bool
    terms: list[str]
    missing_terms: list[str]
    hits: list[dict[str, Any]]


def _names_match(place: Place, name: str, min_score: float) -> bool:
    """A search hit stands for ``name`` when the provider scored it at least ``min_score``; a provider that does not
    score its results (AMap) ranks them instead, and then the hit's own name must contain the name asked, or the
    name asked contain it (an unscored result is not a zero score)."""
    if place.score is not None:
        return place.score >= min_score
    asked, found = normalize_message(name).casefold(), normalize_message(place.name).casefold()
    return bool(asked and found) and (asked in found or found in asked)


def resolve_name(provider: Geocoder, name: str, *, min_score: float) -> ResolvedEntity | None:
    """The place ``name`` names: the geocoder's match for it (a geocode is an answer for the name itself, with or
    without a POI id: AMap's geocodes carry none), else the best search hit that stands for it."""
    hits = provider.geocode(name)
    if not hits:
        hits = [p for p in provider.search(name, limit=3) if _names_match(p, name, min_score)]
    if not hits:
        return None
    h = hits[0]
    return ResolvedEntity(
        query=name,
        place_id=h.poi_id,
        name=h.name if h.poi_id else name,  # a geocode without a POI is named by its address: keep the name asked
        lon=h.lon,
        lat=h.lat,
        score=h.score,
        matched_on=h.matched_on,
        source=h.source,
    )


def _resolve(inp: ResolveIn, state: AgentState, ctx: AgentContext) -> ResolveOut:
    out = ResolveOut()
    for name in inp.names:
        hit = resolve_name(ctx.provider, name, min_score=ctx.settings.fuzzy_min_score)
        if hit is None:
            out.unresolved.append(name)
        else:
            out.resolved.append(hit)
    return out


def poi_facts(place: RegionPlace) -> dict[str, Any]:
    return {
        "place_id": place.id,
        "name": place.name_zh,
        "name_en": place.name_en,
        "category": place.category,
        "district": place.district,
        "address": place.address,
        "lon": place.lon,
        "lat": place.lat,
        "opening_hours": place.opening_hours,
        "price_per_person": place.price_per_person,
        "rating": place.rating,
        "visit_minutes": place.visit_minutes,
        "needs_reservation": place.needs_reservation,
        "tags": list(place.tags),
    }


def _facts(inp: FactsIn, state: AgentState, ctx: AgentContext) -> FactsOut:
    pack = ctx.provider.region
    pois, missing = [], []
    for pid in inp.place_ids:
        place = pack.place_by_id(pid)
        if place is None:
            missing.append(pid)
        else:
            pois.append(poi_facts(place))
    known = {p["place_id"] for p in state.memory.semantic_facts.pois}
    state.memory.semantic_facts.pois.extend(p for p in pois if p["place_id"] not in known)
    return FactsOut(pois=pois, missing=missing)


def _knowledge(inp: KnowledgeIn, state: AgentState, ctx: AgentContext) -> KnowledgeOut:
    kb = knowledge_base(ctx.provider.region, kb_dir=ctx.settings.kb_dir)
    r = kb.search(inp.query, k=inp.k)
    hits = [
        {
            **h.doc.facts,
            "doc_id": h.doc.doc_id,
            "score": round(h.score, 3),
            "coverage": round(h.coverage, 3),
            "source": h.doc.source,
        }
        for h in r.hits
    ]
    return KnowledgeOut(covered=r.covered, terms=r.terms, missing_terms=r.missing_terms, hits=hits)


def actions() -> list[ActionSpec]:
    return [
        ActionSpec(
            name=ActionName.PLACES_RESOLVE_ENTITIES,
            description="Resolve place names to the region pack's places",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=(),
            idempotent=True,
            cacheable=True,
            input_model=ResolveIn,
            output_model=ResolveOut,
            fn=_resolve,
        ),
        ActionSpec(
            name=ActionName.PLACES_GET_POI_FACTS,
            description="Hours, prices, tags and visit times of places (semantic memory)",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=(),
            idempotent=True,
            cacheable=True,
            input_model=FactsIn,
            output_model=FactsOut,
            fn=_facts,
        ),
        ActionSpec(
            name=ActionName.PLACES_SEARCH_KNOWLEDGE,
            description="BM25 retrieval over the region's knowledge base",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=(),
            idempotent=True,
            cacheable=True,
            input_model=KnowledgeIn,
            output_model=KnowledgeOut,
            fn=_knowledge,
        ),
    ]
