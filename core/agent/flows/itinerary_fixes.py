"""The smallest fixes of an itinerary's must-visit places as the agent's next steps: codes and facts, worded by the
faces (components/agent/words.py); the dropped places' lines are worded in core/words/agent.py."""

from __future__ import annotations

from core.models.agent import NextStep
from core.models.itinerary_result import ItineraryResult
from core.words.itinerary import PlaceName


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
