"""Status that means what it says (issue 22 §4): a plan that still fails the critic after its repairs is answered
NEEDS_REVIEW, with the critic's findings as sentences in the answer (both languages); the API and the CLI carry the
same status; a plan the critic passes is OK."""

from __future__ import annotations

import pytest

from core.agent.telemetry import Telemetry
from core.app.agent import agent_deps
from core.geo.cache import ResponseCache
from core.geo.composite import MapServices
from core.geo.offline import OfflineProvider
from core.packs.loader import load_region
from tests.support.agent_packs import FIXED_NOW, make_settings

TRIP = "规划1天上海行程，去外滩、豫园和上海博物馆"


class _DownAfterPlanning:
    """The pack's offline router until the plan is optimised; then the map service is down, so the critic cannot
    re-ask the travel times it checks (a real outage between planning and checking)."""

    def __init__(self, inner: OfflineProvider) -> None:
        self.inner, self.name, self.down = inner, inner.name, False

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def matrix(self, points, *, mode):
        if self.down:
            raise ConnectionError("map service down")
        return self.inner.matrix(points, mode=mode)


class _OutageAfterOptimise(Telemetry):
    def __init__(self, router: _DownAfterPlanning) -> None:
        super().__init__(None)
        self.router = router

    def system2_step(self, *, step, action, ms, status, error_code=None):
        if action == "itinerary.optimize_day_vrptw":
            self.router.down = True
        return super().system2_step(step=step, action=action, ms=ms, status=status, error_code=error_code)


@pytest.fixture
def outage(tmp_path):
    settings = make_settings(tmp_path)
    offline = OfflineProvider(load_region(settings.region, settings.data_dir))
    router = _DownAfterPlanning(offline)
    # no cached matrices: the critic's re-ask reaches the router, as with a cache that has expired
    provider = MapServices(
        geocoder=offline,
        router=router,
        region=offline.region,
        cache=ResponseCache(ttl_s={"matrix": 0, "matrix_cell": 0}),
    )
    return settings, provider, router


def _ask(outage, lang):
    from core.agent import route_and_run

    settings, provider, router = outage
    router.down = False
    return route_and_run(
        {"message": TRIP, "user_id": "alice"},
        agent_deps(settings, provider, telemetry=_OutageAfterOptimise(router)),
        now=FIXED_NOW,
        lang=lang,
    )


@pytest.mark.parametrize(
    ("lang", "head", "finding"),
    [
        ("zh", "这份行程需要你确认", "有一段路程没有预留足够的时间。"),
        ("en", "Please review this plan before you rely on it", "A journey was not given enough time."),
    ],
)
def test_a_plan_the_critic_still_rejects_is_needs_review_with_its_findings_in_words(outage, lang, head, finding):
    r = _ask(outage, lang)
    assert r.result.status == "NEEDS_REVIEW", r.result.answer_text
    repairs = [e for e in r.explain.decision_log if e.reason_code == "REPAIR_AFTER_CRITIC"]
    assert len(repairs) == 2  # it tried to repair before saying so
    answer = r.result.answer_text
    assert head in answer and finding in answer
    assert "ROBUST_TIME_NOT_USED" not in answer  # the code stays in the next steps' facts
    assert [s.args["codes"] for s in r.result.next_steps if s.code == "critic"] == ["ROBUST_TIME_NOT_USED"]
    assert r.explain.status_flow[-1] == "done"


def test_a_plan_the_critic_passes_is_ok(tmp_path):
    from tests.support.agent_packs import agent_runner

    r = agent_runner(tmp_path)(TRIP)
    assert r.result.status == "OK"
    assert not [s for s in r.result.next_steps if s.code == "critic"]
    assert "Please review" not in r.result.answer_text and "需要你确认" not in r.result.answer_text


def test_the_api_and_the_cli_carry_the_same_status(outage):
    from api import app

    schema = app.openapi()["components"]["schemas"]["AgentResult"]["properties"]["status"]
    assert "NEEDS_REVIEW" in schema["enum"]  # the API's contract names it
    dumped = _ask(outage, "en").model_dump(mode="json")  # what the API returns and the CLI prints
    assert dumped["result"]["status"] == "NEEDS_REVIEW"
