"""The words of what a plan assumed (core/agent/assumed.py): one sentence naming each default taken."""

from __future__ import annotations

from datetime import date

from core.i18n import Lang, join_words, t
from core.words.agent import day_text


def assumed_sentence(defaults: list[str], *, day: date, party_size: int | None, lang: Lang) -> str | None:
    """ "Not said, so assumed: Sat 28 Nov 2026 (the next day), one person, no budget limit; tell me if any is
    otherwise." ``defaults`` are the fields taken as defaults (date, party_size, budget); None when there is none."""
    parts = []
    for name in defaults:
        if name == "date":
            parts.append(t("agent.assumed.date", lang, day=day_text(day, lang)))
        elif name == "party_size":
            parts.append(t("agent.assumed.party", lang, size=party_size or 1))
        else:
            parts.append(t("agent.assumed.budget", lang))
    if not parts:
        return None
    return t("agent.assumed.sentence", lang, assumed=join_words(parts, lang))
