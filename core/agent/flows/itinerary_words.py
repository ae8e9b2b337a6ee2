"""The agent's words for an itinerary's dropped places (issue 12 §1): one line per place with the itinerary's own
sentences (core/itinerary/words.py), so the agent and the page say the same thing and no code reaches a reply."""

from __future__ import annotations

from core.i18n import t
from core.itinerary.words import PlaceName, fix_sentence, reason_sentence
from core.models.itinerary_result import ItineraryResult


def dropped_lines(result: ItineraryResult, place_name: PlaceName, lang: str) -> list[str]:
    """One line per dropped place: its name, why it is not on the plan and, when one was found, the smallest fix."""
    lines = []
    for item in result.dropped_items:
        name = place_name(item.key) or item.name
        reason = reason_sentence(item, result, lang)
        fix = fix_sentence(item.smallest_fix, place_name, lang)
        if fix:
            lines.append(t("agent.plan.dropped_item_fix", lang, name=name, reason=reason, fix=fix))
        else:
            lines.append(t("agent.plan.dropped_item", lang, name=name, reason=reason))
    return lines


def must_fixes(result: ItineraryResult, place_name: PlaceName, lang: str) -> list[str]:
    """The smallest fixes of the must-visit places that could not fit, in ``lang``."""
    return [
        fix_sentence(item.smallest_fix, place_name, lang)
        for item in result.dropped_items
        if item.smallest_fix is not None and item.priority == "must"
    ]
