"""Every entry point answers generated input with a structured result (bench.fuzz; the long run is
``python -m core bench fuzz --examples 20000``)."""

from __future__ import annotations

import pytest

from bench.fuzz import OUTCOMES, TARGETS, Sandbox, fuzz

pytestmark = pytest.mark.slow

EXAMPLES = {
    "cli plan": 60,
    "cli itinerary": 30,
    "cli route": 30,
    "cli run": 30,
    "api route_and_run": 60,
    "api metrics": 1,
    "api actions": 1,
}


@pytest.fixture(scope="module")
def box():
    with Sandbox() as sandbox:
        yield sandbox


@pytest.mark.parametrize("target", TARGETS)
def test_generated_input_never_breaks_an_entry_point(box, target):
    OUTCOMES.clear()
    findings: list[str] = []
    ran = fuzz(target, examples=EXAMPLES[target], box=box, findings=findings, seed=0)
    assert ran == EXAMPLES[target]
    assert findings == []
    # The generator must reach past validation: some requests are answered in full, some are refused.
    outcomes = dict(OUTCOMES)
    if target in ("cli plan", "cli itinerary"):
        assert outcomes.get(f"{target}: exit 0", 0) > 0, outcomes
        assert outcomes.get(f"{target}: exit 2", 0) > 0, outcomes
    if target == "api route_and_run":
        assert outcomes.get("api /agent/route_and_run: HTTP 200", 0) > 0, outcomes
        assert outcomes.get("api /agent/route_and_run: HTTP 422", 0) > 0, outcomes
