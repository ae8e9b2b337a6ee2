"""The memory's tables (Alembic revision 0006) and the per-user operations on them: rules kept and forgotten,
episodes written and recalled by similarity. Every query names its user: one user never reads another's rows."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, Field

from core.memory.vectors import similarities
from core.models.rules import Rule, RuleCode
from core.stores.db import EngineAtFirstUse, UtcDateTime, transaction

metadata = sa.MetaData()
rules_table = sa.Table(
    "user_memory_rules",
    metadata,
    sa.Column("user_id", sa.String(120), primary_key=True),
    sa.Column("code", sa.String(40), primary_key=True),
    sa.Column("facts", sa.JSON),
    sa.Column("source", sa.String(20)),
    sa.Column("at", UtcDateTime()),
)
episodes_table = sa.Table(
    "user_memory_episodes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.String(120)),
    sa.Column("kind", sa.String(20)),
    sa.Column("text", sa.Text),
    sa.Column("facts", sa.JSON),
    sa.Column("at", UtcDateTime()),
)

EpisodeKind = Literal["turn", "plan"]
#: the newest snippets a recall compares (a person's history beyond this is older than any trip being planned)
RECALL_WINDOW = 500
#: below this cosine a snippet shares only common n-grams with the query: not recalled
MIN_SIMILARITY = 0.12
MAX_TEXT = 2000


class KeptRule(Rule):
    """A rule as kept: when and how it was learned."""

    source: Literal["said", "profile"] = "said"
    at: datetime


class Episode(BaseModel):
    id: int
    kind: EpisodeKind
    text: str
    facts: dict[str, Any] = Field(default_factory=dict, description="place ids of a plan, the turn's route")
    at: datetime
    similarity: float | None = Field(default=None, description="cosine to the query, when recalled")


class UserMemory(EngineAtFirstUse):
    """One database's memory of its users, opened at first use (an outage is met where the memory is read)."""

    # ---- rules --------------------------------------------------------------------------------------------
    def rules(self, user_id: str) -> list[KeptRule]:
        with transaction(self.engine) as conn:
            rows = conn.execute(
                sa.select(rules_table).where(rules_table.c.user_id == user_id).order_by(rules_table.c.code)
            ).all()
        return [KeptRule(code=r.code, facts=r.facts or {}, source=r.source, at=r.at) for r in rows]

    def remember(self, user_id: str, rules: list[Rule], *, source: Literal["said", "profile"] = "said") -> list[Rule]:
        """Keep ``rules`` (a rule said again replaces its facts); returns those that were new or changed."""
        now = self.clock()
        changed: list[Rule] = []
        with transaction(self.engine) as conn:
            for rule in rules:
                where = sa.and_(rules_table.c.user_id == user_id, rules_table.c.code == rule.code)
                old = conn.execute(sa.select(rules_table.c.facts).where(where)).first()
                if old is not None and (old.facts or {}) == rule.facts:
                    continue
                conn.execute(rules_table.delete().where(where))
                conn.execute(
                    rules_table.insert().values(
                        user_id=user_id, code=rule.code, facts=rule.facts, source=source, at=now
                    )
                )
                changed.append(rule)
        return changed

    def forget(self, user_id: str, codes: list[RuleCode]) -> list[RuleCode]:
        """Forget the rules ``codes``; returns those that were kept (and are now gone)."""
        gone: list[RuleCode] = []
        with transaction(self.engine) as conn:
            for code in codes:
                n = conn.execute(
                    rules_table.delete().where(rules_table.c.user_id == user_id, rules_table.c.code == code)
                ).rowcount
                if n:
                    gone.append(code)
        return gone

    def forget_all(self, user_id: str) -> tuple[int, int]:
        """Forget every rule and episode of the user: (rules, episodes) forgotten."""
        with transaction(self.engine) as conn:
            rules = conn.execute(rules_table.delete().where(rules_table.c.user_id == user_id)).rowcount
            episodes = conn.execute(episodes_table.delete().where(episodes_table.c.user_id == user_id)).rowcount
        return int(rules or 0), int(episodes or 0)

    # ---- episodes -----------------------------------------------------------------------------------------
    def write_episode(
        self, user_id: str, kind: EpisodeKind, text: str, *, facts: dict[str, Any] | None = None
    ) -> int | None:
        """Keep one snippet (empty text is not kept); its id."""
        text = text.strip()[:MAX_TEXT]
        if not text:
            return None
        with transaction(self.engine) as conn:
            result = conn.execute(
                episodes_table.insert().values(
                    user_id=user_id, kind=kind, text=text, facts=facts or {}, at=self.clock()
                )
            )
            key = result.inserted_primary_key
        return int(key[0]) if key else None

    def episodes(self, user_id: str, *, limit: int = RECALL_WINDOW) -> list[Episode]:
        """The user's newest snippets first."""
        with transaction(self.engine) as conn:
            rows = conn.execute(
                sa.select(episodes_table)
                .where(episodes_table.c.user_id == user_id)
                .order_by(episodes_table.c.id.desc())
                .limit(limit)
            ).all()
        return [Episode(id=r.id, kind=r.kind, text=r.text, facts=r.facts or {}, at=r.at) for r in rows]

    def forget_episode(self, user_id: str, episode_id: int) -> bool:
        with transaction(self.engine) as conn:
            n = conn.execute(
                episodes_table.delete().where(episodes_table.c.user_id == user_id, episodes_table.c.id == episode_id)
            ).rowcount
        return bool(n)

    def recall(self, user_id: str, query: str, *, k: int = 3, min_similarity: float = MIN_SIMILARITY) -> list[Episode]:
        """The user's ``k`` snippets most like ``query`` (cosine of hashed n-gram TF-IDF, core/memory/vectors.py),
        best first, none below ``min_similarity``."""
        kept = self.episodes(user_id)
        scores = similarities(query, [e.text for e in kept])
        ranked = sorted(zip(scores, kept, strict=True), key=lambda p: (-p[0], -p[1].id))
        return [e.model_copy(update={"similarity": round(s, 4)}) for s, e in ranked[:k] if s >= min_similarity]
