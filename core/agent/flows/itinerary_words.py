"""The agent's words for an itinerary's dropped places (issue 12 §1): one line per place with the itinerary's own
sentences (core/itinerary/words.py), so the agent and the page say the same thing and no code reaches a reply; and
the smallest fixes of must-visit places as next steps (codes and facts, worded by the faces)."""

from __future__ import annotations

from core.i18n import t
from core.itinerary.words import PlaceName, fix_sentence, reason_sentence
from core.models.agent import NextStep
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


def must_fix_steps(result: ItineraryResult, place_name: PlaceName) -> list[NextStep]:
    """The smallest fixes of the must-visit places that could not fit, as ``apply_fix`` steps: the place, the kind
    of fix, its day (1-based) and the fix's facts (a new end or start time, minutes, the stop to drop and its name
    in the reply's language, that stop's priority); components/agent/words.py says them with fix_sentence."""
    steps = []
    for item in result.dropped_items:
        fix = item.smallest_fix
        if fix is None or item.priority != "must":
            continue
        args: dict[str, str | int | float] = {"place_key": item.key, "kind": fix.kind, "day": (fix.day_index or 0) + 1}
        for name in ("new_end", "new_start", "drop_priority"):
            if isinstance(fix.facts.get(name), str):
                args[name] = fix.facts[name]
        if fix.minutes is not None:
            args["minutes"] = fix.minutes
        if fix.drop_key:
            args["drop_key"] = fix.drop_key
            args["drop_name"] = place_name(fix.drop_key)
        steps.append(NextStep(code="apply_fix", args=args))
    return steps
