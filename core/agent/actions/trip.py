"""Trip actions: trip.load_draft, trip.apply_user_edit, trip.persist_plan (+ trip.record_commitment).

The draft lives in the trip store (core/stores/trips.py). ``trip.persist_plan`` and
``trip.record_commitment`` are commits: they only run for a dry run the commit gate has already
consumed (checked again here, so no caller can reach them around the gate).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from core.agent.actions.names import ActionName
from core.agent.actions.spec import ActionError, ActionSpec
from core.agent.state import AgentContext
from core.geo.text import normalize
from core.models.agent import AgentState, TripEdit
from core.stores.trips import TripChanged, TripDraft, TripNode

if TYPE_CHECKING:
    from core.models.region import RegionPack

#: ``resolve(name) -> (place_id, canonical name) | None``: the place a name means, if one is found.
Resolver = Callable[[str], tuple[str, str] | None]

Outcome = Literal["APPLIED", "TARGET_NOT_IN_TRIP", "DAY_OUT_OF_RANGE", "ALREADY_PRESENT", "NO_TRIP", "NOTHING_TO_DO"]


class LoadDraftIn(BaseModel):
    trip_id: str


class LoadDraftOut(BaseModel):
    found: bool
    trip: dict[str, Any] | None = None


class ApplyEditIn(BaseModel):
    user_id: str
    trip_id: str | None = None
    edit: TripEdit
    region: str
    dry_run: bool = Field(default=False, description="Compute the outcome on a copy; write nothing")


class ApplyEditOut(BaseModel):
    outcome: Outcome
    trip: dict[str, Any] | None = None
    target: str | None = None
    matched: str | None = None
    created: bool = False
    resolved_place_id: str | None = None
    current_nodes: list[str] = Field(default_factory=list)


class PersistPlanIn(BaseModel):
    dry_run_id: str
    user_id: str
    trip_id: str | None = None
    title: str = "Planned trip"
    region: str
    days: int = Field(ge=1, le=30)
    nodes: list[TripNode]


class KeepPlanIn(BaseModel):
    user_id: str
    region: str
    days: int = Field(ge=1, le=30)
    start_date: str | None = None
    nodes: list[TripNode] = Field(min_length=1)


class PersistPlanOut(BaseModel):
    trip: dict[str, Any]
    created: bool


class CommitmentIn(BaseModel):
    dry_run_id: str
    user_id: str
    trip_id: str | None = None
    action: str
    detail: dict[str, Any] = Field(default_factory=dict)


class CommitmentOut(BaseModel):
    commitment_id: str
    status: str


def find_node(draft: TripDraft, target: str, *, pack: RegionPack | None = None) -> int | None:
    """Index of the draft node the user means: exact name/alias, containment, then a close fuzzy match."""
    key = normalize(target)
    if not key:
        return None
    best, best_score = None, 0.0
    for i, node in enumerate(draft.nodes):
        names = [node.name]
        if pack is not None and node.place_id:
            place = pack.place_by_id(node.place_id)
            if place is not None:
                names += [place.name_zh, place.name_en, *place.aliases]
        for name in names:
            n = normalize(name)
            if not n:
                continue
            if n == key:
                return i
            # the user's words inside a name ("外滩" for 外滩观景平台) point at it; a name inside longer words
            # ("外滩和火星基地") does not: an edit never lands on a guess
            score = 90.0 if (len(key) >= 2 and key in n) else fuzz.ratio(key, n)
            if score > best_score:
                best, best_score = i, score
    return best if best_score >= 85 else None


def apply_edit(
    draft: TripDraft,
    edit: TripEdit,
    *,
    pack: RegionPack | None = None,
    resolve: Resolver | None = None,
    identify: Resolver | None = None,
) -> tuple[TripDraft, ApplyEditOut]:
    """Apply one edit to a copy of the draft. ``resolve(name) -> (place_id, canonical name) | None`` finds the place
    an added name means; ``identify`` (the same, but only for a near-certain match) finds the place a delete, move or
    priority change is about."""
    new = draft.model_copy(deep=True)
    out = ApplyEditOut(outcome="APPLIED", target=edit.target)
    look_up = resolve if edit.op == "add" else (identify or resolve)
    wanted = edit.op in ("add", "delete", "move", "prioritize")
    hit = look_up(edit.target) if (look_up and edit.target and wanted) else None
    # the place the words resolve to decides first: 上海博物馆东馆 is another place than 上海博物馆
    by_id = next((i for i, n in enumerate(new.nodes) if hit and n.place_id == hit[0]), None)
    if edit.op in ("delete", "move", "prioritize"):
        idx = by_id if by_id is not None else find_node(new, edit.target or "", pack=pack)
        if idx is None:
            out.outcome = "TARGET_NOT_IN_TRIP"
            return draft, out
        out.matched = new.nodes[idx].name
        if edit.op == "delete":
            new.nodes.pop(idx)
        elif edit.op == "move":
            if edit.day is None or edit.day > new.days:
                if edit.day is not None and edit.day <= 30:
                    new.days = edit.day  # moving to a later day extends the trip
                else:
                    out.outcome = "DAY_OUT_OF_RANGE"
                    return draft, out
            new.nodes[idx].day = edit.day
        else:
            new.nodes[idx].priority = edit.priority or "must"
    elif edit.op == "add":
        name = edit.target or ""
        same_name = next((i for i, n in enumerate(new.nodes) if normalize(n.name) == normalize(name)), None)
        present = by_id if hit else same_name  # an unresolved name is a duplicate only when it is the same name
        if present is not None:
            out.outcome = "ALREADY_PRESENT"
            out.matched = new.nodes[present].name
            return draft, out
        node = TripNode(
            name=hit[1] if hit else name,
            place_id=hit[0] if hit else None,
            day=edit.day,
            priority=edit.priority or "should",
            resolved=hit is not None,
        )
        if edit.day and edit.day > new.days:
            new.days = edit.day
        new.nodes.append(node)
        out.matched = node.name
        out.resolved_place_id = node.place_id
    elif edit.op == "rename":
        if not edit.new_name:
            out.outcome = "NOTHING_TO_DO"
            return draft, out
        new.title = edit.new_name
        out.matched = edit.new_name
    elif edit.op == "swap_days":
        a, b = edit.day_a, edit.day_b
        if not a or not b or max(a, b) > new.days:
            out.outcome = "DAY_OUT_OF_RANGE"
            return draft, out
        for node in new.nodes:
            if node.day == a:
                node.day = b
            elif node.day == b:
                node.day = a
    elif edit.op == "clear":
        if not new.nodes:
            out.outcome = "NOTHING_TO_DO"
            return draft, out
        new.nodes = []
    return new, out


def _load_draft(inp: LoadDraftIn, state: AgentState, ctx: AgentContext) -> LoadDraftOut:
    draft = ctx.store.get_trip(inp.trip_id, user_id=ctx.request.user_id)
    if draft is None:
        return LoadDraftOut(found=False)  # another user's trip is as good as absent
    state.trip.days = draft.days
    state.trip.region = draft.region
    state.trip.start_date = draft.start_date
    state.draft.nodes = [n.model_dump() for n in draft.nodes]
    state.draft.hard_nodes = [n.name for n in draft.nodes if n.priority == "must"]
    state.draft.soft_nodes = [n.name for n in draft.nodes if n.priority != "must"]
    return LoadDraftOut(found=True, trip=draft.model_dump())


#: Search score above which a name identifies a place for a destructive edit (delete, move, priority).
IDENTIFY_MIN_SCORE = 90.0


def _resolver(ctx: AgentContext, min_score: float | None = None) -> Resolver:
    provider = ctx.provider
    min_score = ctx.settings.fuzzy_min_score if min_score is None else min_score

    def resolve(name: str) -> tuple[str, str] | None:
        if provider is None:
            return None
        hits = provider.geocode(name)
        if not hits:
            hits = [p for p in provider.search(name, limit=3) if (p.score or 0) >= min_score]
        if not hits or not hits[0].poi_id:
            return None
        return hits[0].poi_id, hits[0].name

    return resolve


#: Concurrent edits of one trip: a write that lost the optimistic race re-reads and re-applies this many times.
EDIT_RETRIES = 5


def _apply_user_edit(inp: ApplyEditIn, state: AgentState, ctx: AgentContext) -> ApplyEditOut:
    for attempt in range(EDIT_RETRIES + 1):
        try:
            return _apply_user_edit_once(inp, state, ctx)
        except TripChanged:
            if attempt == EDIT_RETRIES:
                raise ActionError(
                    "the trip kept changing while this edit was saved; try again", field="trip_id"
                ) from None
            time.sleep(0.01 * (attempt + 1) * random.random())  # let the other writer finish
    raise AssertionError("unreachable")


def _apply_user_edit_once(inp: ApplyEditIn, state: AgentState, ctx: AgentContext) -> ApplyEditOut:
    """Read the draft, apply the edit, write it (optimistically); TripChanged when another writer got there first."""
    store = ctx.store
    draft = store.get_trip(inp.trip_id, user_id=inp.user_id) if inp.trip_id else store.latest_trip(inp.user_id)
    created = False
    if draft is None:
        if inp.edit.op != "add" or inp.trip_id:
            return ApplyEditOut(outcome="NO_TRIP", target=inp.edit.target)
        if inp.dry_run:  # an unsaved draft: nothing is created in the store
            draft = TripDraft(trip_id="(dry-run)", user_id=inp.user_id, title="My trip", region=inp.region)
        else:
            draft = store.create_trip(user_id=inp.user_id, region=inp.region, title="My trip", now=ctx.now)
        created = True
    pack = ctx.provider.region
    new, out = apply_edit(
        draft, inp.edit, pack=pack, resolve=_resolver(ctx), identify=_resolver(ctx, IDENTIFY_MIN_SCORE)
    )
    if inp.dry_run:
        out.trip = new.model_dump()
        out.created = created
        out.current_nodes = new.node_names()
        return out
    if out.outcome == "APPLIED":
        new = store.save_trip(
            draft.model_copy(update={"nodes": new.nodes, "title": new.title, "days": new.days}),
            op=inp.edit.op,
            edit=inp.edit.model_dump(),
            now=ctx.now,
        )
        state.draft.edits.append(inp.edit.model_dump())
    out.trip = new.model_dump()
    out.created = created
    out.current_nodes = new.node_names()
    state.trip.trip_id = new.trip_id
    state.draft.nodes = [n.model_dump() for n in new.nodes]
    return out


def _require_consumed(ctx: AgentContext, dry_run_id: str, action: str) -> Any:
    rec = ctx.store.get_dry_run(dry_run_id)
    if rec is None or rec.used_at is None or rec.action != action or rec.user_id != ctx.request.user_id:
        raise ActionError(f"{action} runs only for a dry run confirmed through the commit gate", field="dry_run_id")
    return rec


def _persist_plan(inp: PersistPlanIn, state: AgentState, ctx: AgentContext) -> PersistPlanOut:
    _require_consumed(ctx, inp.dry_run_id, ActionName.TRIP_PERSIST_PLAN)
    store = ctx.store
    draft = store.get_trip(inp.trip_id, user_id=inp.user_id) if inp.trip_id else None
    if inp.trip_id and draft is None:  # absent or another user's: the same answer
        raise ActionError(f"no trip '{inp.trip_id}' was found", field="trip_id")
    if draft is None:
        draft = store.create_trip(user_id=inp.user_id, region=inp.region, title=inp.title, days=inp.days, now=ctx.now)
        created = True
    else:
        created = False
    saved = store.save_trip(
        draft.model_copy(update={"nodes": inp.nodes, "days": inp.days}),
        op="persist_plan",
        edit={"dry_run_id": inp.dry_run_id, "nodes": len(inp.nodes)},
        now=ctx.now,
    )
    state.trip.trip_id = saved.trip_id
    return PersistPlanOut(trip=saved.model_dump(), created=created)


def _keep_plan(inp: KeepPlanIn, state: AgentState, ctx: AgentContext) -> PersistPlanOut:
    """The plan just made as the user's newest draft: a new trip of their own (no other is touched), so no
    confirmation is asked; the next edit without a trip id edits it."""
    draft = ctx.store.create_trip(user_id=inp.user_id, region=inp.region, title="Planned trip", days=inp.days,
                                  start_date=inp.start_date, nodes=inp.nodes, now=ctx.now)  # fmt: skip
    state.trip.trip_id = draft.trip_id
    return PersistPlanOut(trip=draft.model_dump(), created=True)


def _record_commitment(inp: CommitmentIn, state: AgentState, ctx: AgentContext) -> CommitmentOut:
    _require_consumed(ctx, inp.dry_run_id, inp.action)
    cid = ctx.store.record_commitment(
        dry_run_id=inp.dry_run_id,
        user_id=inp.user_id,
        trip_id=inp.trip_id,
        action=inp.action,
        status="recorded_for_manual_completion",
        detail=inp.detail,
        now=ctx.now,
    )
    return CommitmentOut(commitment_id=cid, status="recorded_for_manual_completion")


def actions() -> list[ActionSpec]:
    return [
        ActionSpec(
            name=ActionName.TRIP_LOAD_DRAFT,
            description="Load the user's trip draft into the state",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=("trip.trip_id",),
            idempotent=True,
            cacheable=True,
            input_model=LoadDraftIn,
            output_model=LoadDraftOut,
            fn=_load_draft,
        ),
        ActionSpec(
            name=ActionName.TRIP_APPLY_USER_EDIT,
            description="Apply one explicit edit (add/delete/move/prioritize/rename/swap days)",
            kind="internal",
            cost="low",
            side_effect="writes_db",
            preconditions=(),
            idempotent=False,
            cacheable=False,
            input_model=ApplyEditIn,
            output_model=ApplyEditOut,
            fn=_apply_user_edit,
        ),
        ActionSpec(
            name=ActionName.TRIP_KEEP_PLAN,
            description="Keep the plan just made as the user's newest trip draft (a new trip of their own)",
            kind="internal",
            cost="low",
            side_effect="writes_db",
            preconditions=(),
            idempotent=False,
            cacheable=False,
            input_model=KeepPlanIn,
            output_model=PersistPlanOut,
            fn=_keep_plan,
        ),
        ActionSpec(
            name=ActionName.TRIP_PERSIST_PLAN,
            description="Write a confirmed plan into the trip store (commit)",
            kind="external",
            cost="med",
            side_effect="writes_db",
            preconditions=(),
            idempotent=False,
            cacheable=False,
            input_model=PersistPlanIn,
            output_model=PersistPlanOut,
            fn=_persist_plan,
        ),
        ActionSpec(
            name=ActionName.TRIP_RECORD_COMMITMENT,
            description="Record a confirmed booking/refund/bulk request (commit)",
            kind="external",
            cost="med",
            side_effect="writes_db",
            preconditions=(),
            idempotent=False,
            cacheable=False,
            input_model=CommitmentIn,
            output_model=CommitmentOut,
            fn=_record_commitment,
        ),
    ]
