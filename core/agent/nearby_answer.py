"""The answer to a nearby question (core/agent/nearby.py): the pack's places of the kind asked that fit the wishes,
nearest first, each with its facts and its straight-line distance from the anchor (between the pack's own
coordinates, and said so), or a sentence that the pack has none; never the anchor itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.agent.actions.names import ActionName
from core.agent.nearby import NearbyAsk, read_nearby
from core.agent.rag import place_document
from core.agent.state import AgentContext, log_decision
from core.i18n import Lang
from core.models.agent import AgentState, NextStep
from core.words import agent as words

#: where a distance of the answer comes from (the evidence says it with the figure)
DISTANCE_SOURCE = "straight line between the region pack's coordinates"
POLICY = "SYSTEM1_DIRECT"  # the fast path's policy (core.agent.fastpath)


def nearby_answer(
    state: AgentState,
    ctx: AgentContext,
    lang: Lang,
    *,
    anchors: list[str],
    describe: Callable[[dict[str, Any]], str],
    name_of: Callable[[str], str],
) -> list[str] | None:
    """The answer's sentences when the message asks for places near one of ``anchors`` (None: it does not); the
    places go into the result's candidates and evidence, the reading into the decision log."""
    pack = ctx.provider.region
    ask = read_nearby(state.user_input, pack, anchors=anchors)
    if ask is None:
        return None
    log_decision(state, action=ActionName.PLACES_SEARCH_KNOWLEDGE, reason_code="KB_NEARBY", policy_id=POLICY,
                 facts={"anchor": ask.anchor, "kind": ask.kind, "wishes": ask.wishes, "places": len(ask.places),
                        "other_kind": ask.other_kind,
                        "radius_m": ask.radius_m, "radius_source": ask.radius_source})  # fmt: skip
    return _sentences(ask, state, ctx, lang, describe=describe, name_of=name_of)


def _sentences(
    ask: NearbyAsk,
    state: AgentState,
    ctx: AgentContext,
    lang: Lang,
    *,
    describe: Callable[[dict[str, Any]], str],
    name_of: Callable[[str], str],
) -> list[str]:
    pack = ctx.provider.region
    anchor = name_of(ask.anchor)
    if not ask.places:
        state.result.next_steps.append(NextStep(code="ask_otherwise"))
        return [words.nearby_none(anchor, ask.kind, ask.radius_m / 1000, lang, source=ask.radius_source)]
    lines = []
    for place_id, metres in ask.places:
        place = pack.place_by_id(place_id)
        if place is None:
            continue
        doc = place_document(place, pack.name)
        hit = {**doc.facts, "doc_id": doc.doc_id, "source": doc.source, "score": 1.0, "name": name_of(place_id)}
        hit["distance_m"] = metres
        state.result.candidates.append(hit)
        state.result.evidence.append(
            {
                "type": "kb_fact",
                "doc_id": doc.doc_id,
                "name": hit["name"],
                "source": doc.source,
                "score": 1.0,
                "distance_m": metres,
                "distance_source": DISTANCE_SOURCE,
                "near": ask.anchor,
                "radius_m": ask.radius_m,
                "radius_source": ask.radius_source,
            }
        )
        lines.append(describe({**hit, "name": words.nearby_place(hit["name"], anchor, metres, lang)}))
    head = words.nearby_head(anchor, ask.kind, lang, km=ask.radius_m / 1000, source=ask.radius_source,
                             other_kind=ask.other_kind)  # fmt: skip
    return [head + words.join_words(lines, lang, sep="clauses")]
