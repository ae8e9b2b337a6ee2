"""What a plan took as given because the message did not say it (issue 31, s42 §1): the day (the next one), the
party (one person, or as said) and the budget (no limit). None of these blocks a plan, so none is asked; each is
said in the answer, with where it came from, so the person can correct it."""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel

from core.agent.features import normalize_message
from core.agent.lexicon import BUDGET
from core.phrases.dates import first_day
from core.phrases.party import find_party

Source = Literal["message", "default"]


class Assumed(BaseModel):
    """The plan's day, party and budget, each with its source: ``message`` (said) or ``default`` (assumed).
    ``party_size`` is None when the message names a party without counting it ("a family day")."""

    date: str
    date_source: Source
    party_size: int | None
    party_source: Source
    budget_source: Source

    def evidence(self) -> dict[str, Any]:
        return {"type": "assumptions", **self.model_dump()}

    @property
    def defaults(self) -> list[str]:
        """The fields taken as defaults, in the order the answer says them."""
        said = (("date", self.date_source), ("party_size", self.party_source), ("budget", self.budget_source))
        return [name for name, source in said if source == "default"]


#: a party said without its count: 一家人, family, with the kids (the plan does not depend on the count)
_PARTY_WORDS = (
    r"一家|全家|家人|亲子|带(孩子|小孩|老人|父母|爸妈|女儿|儿子)"
    r"|[和跟带陪]我?的?(老婆|老公|女朋友|男朋友|爱人|太太|先生|朋友|同事|爸妈|父母)"
    r"|\bfamily\b|\bkids?\b|\bchildren\b|\bour (son|daughter|parents)\b"
    r"|\bwith (my|our) (wife|husband|partner|girlfriend|boyfriend|friends?|parents|colleagues?|son|daughter|kids)\b"
)


def read_assumed(text: str, *, plan_date: date, today: date) -> Assumed:
    """What ``text`` says of the day, the party and the budget; what it does not say is the default."""
    t = normalize_message(text)
    party = find_party(t)
    party_said = party is not None or bool(re.search(_PARTY_WORDS, t, re.I))
    return Assumed(
        date=plan_date.isoformat(),
        date_source="message" if first_day(t, today=today) is not None else "default",
        party_size=party.size if party is not None else (None if party_said else 1),
        party_source="message" if party_said else "default",
        budget_source="message" if BUDGET.search(t) else "default",
    )
