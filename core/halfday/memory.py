"""Stage 2's store: what the planner learns of a user from confirmed plans and explicit feedback, and the family
profile they gave. Kept in the shared database (``OMNI_DB_URL``, Alembic revision 0003) so it survives restarts
and is the same for the page, the CLI and the API. Inspectable (``get``) and resettable (``reset``).

Affinities are learned per pack tag and category: a confirmed plan adds a little to each tag of its places, a like
adds more, a dislike takes away; each is bounded to [-1, 1] so no single event dominates.
"""

from __future__ import annotations

import math

import sqlalchemy as sa

from core.memory.store import UserMemory
from core.models.halfday.plans import FamilyProfile, Memory, MemoryEvent
from core.models.region import RegionPlace
from core.models.rules import Rule
from core.reservations import store
from core.stores.db import EngineAtFirstUse, UtcDateTime

metadata = sa.MetaData()
memory_events = sa.Table(
    "halfday_memory_events",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.String(120)),
    sa.Column("kind", sa.String(20)),
    sa.Column("place_ids", sa.JSON),
    sa.Column("tags", sa.JSON),
    sa.Column("at", UtcDateTime()),
)
family_profiles = sa.Table(
    "halfday_family_profiles",
    metadata,
    sa.Column("user_id", sa.String(120), primary_key=True),
    sa.Column("profile", sa.JSON),
    sa.Column("updated_at", UtcDateTime()),
)

#: how much one event of each kind moves a tag's affinity (before the bound)
EVENT_WEIGHT = {"confirmed_plan": 0.25, "liked": 0.5, "disliked": -0.75}
MAX_VISITED = 50


class MemoryStore(EngineAtFirstUse):
    """The memory on an engine, or on a URL opened at first use (so a database that cannot be reached is met inside
    the planner's event stream, which ends with ``DATABASE_UNREACHABLE``, not before it starts)."""

    def get(self, user_id: str) -> Memory:
        with store.transaction(self.engine) as conn:
            rows = conn.execute(
                sa.select(memory_events).where(memory_events.c.user_id == user_id).order_by(memory_events.c.id.desc())
            ).all()
            fam = conn.execute(sa.select(family_profiles).where(family_profiles.c.user_id == user_id)).first()
        raw: dict[str, float] = {}
        visited: list[str] = []
        disliked: list[str] = []
        for r in rows:
            for tag in r.tags or []:
                raw[tag] = raw.get(tag, 0.0) + EVENT_WEIGHT.get(r.kind, 0.0)
            if r.kind == "confirmed_plan":
                visited.extend(p for p in r.place_ids or [] if p not in visited)
            elif r.kind == "disliked":
                disliked.extend(p for p in r.place_ids or [] if p not in disliked)
        prefs = {tag: round(math.tanh(v), 3) for tag, v in sorted(raw.items()) if abs(v) > 1e-9}
        family = FamilyProfile.model_validate(fam.profile) if fam is not None else FamilyProfile()
        # the rules the person stated to the agent or here (core/memory): the same ones, read by both
        rules = [Rule(code=r.code, facts=r.facts) for r in UserMemory(self.engine, clock=self.clock).rules(user_id)]
        return Memory(
            user_id=user_id,
            preferences=prefs,
            family=family,
            visited=visited[:MAX_VISITED],
            disliked=disliked,
            events=len(rows),
            rules=rules,
        )

    def feedback(self, user_id: str, place: RegionPlace, *, liked: bool) -> None:
        """Explicit feedback on one of the pack's places: its category and tags, liked or not."""
        self.record(
            user_id,
            MemoryEvent(
                kind="liked" if liked else "disliked",
                place_ids=[place.id],
                tags=[place.category, *place.tags],
                at=self.clock(),
            ),
        )

    def record(self, user_id: str, event: MemoryEvent) -> None:
        with store.transaction(self.engine) as conn:
            conn.execute(
                memory_events.insert().values(
                    user_id=user_id, kind=event.kind, place_ids=event.place_ids, tags=event.tags, at=event.at
                )
            )

    def set_family(self, user_id: str, family: FamilyProfile) -> None:
        now = self.clock()
        with store.transaction(self.engine) as conn:
            conn.execute(family_profiles.delete().where(family_profiles.c.user_id == user_id))
            conn.execute(
                family_profiles.insert().values(user_id=user_id, profile=family.model_dump(mode="json"), updated_at=now)
            )

    def reset(self, user_id: str) -> int:
        """Forget everything about the user (the stated rules and snippets too); returns how many events were
        forgotten."""
        with store.transaction(self.engine) as conn:
            n = conn.execute(memory_events.delete().where(memory_events.c.user_id == user_id)).rowcount
            conn.execute(family_profiles.delete().where(family_profiles.c.user_id == user_id))
        UserMemory(self.engine, clock=self.clock).forget_all(user_id)
        return int(n or 0)
