"""The half-day planner's contracts: the request and its plans (plans.py), the goal read from a sentence (goal.py),
the facts its stages report (facts.py) and the typed events of its stream (events.py). The planner (core/halfday)
makes them, the use cases (core/app/halfday.py) pass them on, and the faces render them."""
