"""Registries as data (issue 30), end to end: a provider added as one row of core.geo.registry.SERVICES, and a
half-day tool added as one tool module's ``tool`` (core/halfday/toolbox), are offered, refused, built and used by the
use cases exactly as the ones that ship, with nothing else touched (docs/ARCHITECTURE.md, "Adding a provider",
"Adding a half-day tool")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.app import halfday as halfday_app
from core.app.context import AppServices
from core.app.halfday import plan_half_day, worded
from core.app.route import plan_route
from core.config import HALFDAY_TOOLS, Settings
from core.errors import InputError
from core.geo import registry
from core.geo.offline import OfflineProvider
from core.geo.registry import GEOCODER, Service, available_providers, make_provider
from core.halfday.service import BUILTIN_TOOLS, HalfDayPlanner
from core.halfday.tools import SoFar, ToolDeps, ToolRegistry, ToolSpec
from core.models.halfday.events import ResultObservation, SkillCallEvent
from core.models.halfday.facts import OtherFacts
from core.models.halfday.plans import Candidates, HalfDayRequest, PlanSet
from core.models.route import RoutePlanRequest
from core.packs.loader import load_region
from tests.halfday.conftest import NOW, goal

URL = "http://copy.test"


class CopyGazetteer(OfflineProvider):
    """The pack's gazetteer under another name; it notes every look-up, so a test sees it answered."""

    name = "copy"
    asked: list[str] = []

    def geocode(self, address: str, *, city: str | None = None):  # type: ignore[no-untyped-def]
        CopyGazetteer.asked.append(address)
        return super().geocode(address, city=city)


#: the row a new geocoder adds (a test has no setting of its own: it is configured by the Nominatim address)
COPY = Service(
    name="copy",
    roles=GEOCODER,
    configured=lambda settings, pack: settings.nominatim_url == URL,
    build=lambda b: CopyGazetteer(b.pack),
    refusal="the copy is not configured: set OMNI_NOMINATIM_URL to " + URL,
)


@pytest.fixture
def copy_row(monkeypatch):
    monkeypatch.setitem(registry.SERVICES, COPY.name, COPY)
    CopyGazetteer.asked = []
    yield COPY


@pytest.fixture
def settings(tmp_path):
    return Settings(region="shanghai", cache_dir=None, nominatim_url=URL, db_url=f"sqlite:///{tmp_path / 'omni.db'}")


def test_a_provider_row_is_offered_refused_and_built_like_the_shipped_ones(copy_row, settings):
    offered = available_providers(region="shanghai", settings=settings)
    assert "copy+estimate" in offered and offered.index("copy+estimate") > offered.index("pack+estimate")
    bare = Settings(region="shanghai", cache_dir=None)
    assert not any(p.startswith("copy") for p in available_providers(region="shanghai", settings=bare))
    with pytest.raises(InputError) as refused:
        make_provider("copy+estimate", region="shanghai", settings=bare)
    assert refused.value.field == "provider" and refused.value.message == COPY.refusal
    with pytest.raises(InputError, match=r"a geocoder from pack, .*\bcopy and a router from estimate,"):
        make_provider("estimate+copy", region="shanghai", settings=settings)  # a geocoder is no router
    services = make_provider("copy+estimate", region="shanghai", settings=settings)
    assert isinstance(services.geocoder, CopyGazetteer) and services.name == "copy+offline"
    assert services.weather_service is None


def test_a_route_is_planned_on_the_added_provider_through_the_use_case(copy_row, settings):
    pack = load_region("shanghai")
    sights = [p for p in pack.places if p.category in ("landmark", "museum", "park")][:4]
    ctx = AppServices(settings).context(user="u", lang="en", region="shanghai", provider="copy+estimate")
    request = RoutePlanRequest.model_validate(
        {
            "origin_mode": "fixed",
            "origin_name": sights[0].name_zh,
            "destination_name": sights[1].name_zh,
            "stops": [{"name": p.name_zh} for p in sights[2:]],
        }
    )
    result = plan_route(ctx, request)
    assert result.provider == "copy+offline"
    assert {p.name_zh for p in sights} <= set(CopyGazetteer.asked)  # every place was looked up by the copy
    resolved = [result.resolved_origin, result.resolved_destination, *result.resolved_stops]
    assert [r.poi_id for r in resolved if r is not None] == [p.id for p in sights]  # the pack's own places
    assert sorted(result.best_route.stop_order) == [0, 1]


# ---- a half-day tool: one module's ``tool(deps)``, here written inline ------------------------------------------
def drop_first_candidate(deps: ToolDeps) -> ToolSpec:
    """An added tool at the end of stage 5: it reads the candidates and hands them back without the first one."""

    def drop(candidates: Candidates) -> Candidates:
        return candidates.model_copy(update={"items": candidates.items[1:]})

    return ToolSpec(
        name="drop_first_candidate",
        stage=5,
        input_model=Candidates,
        output_model=Candidates,
        fn=drop,
        reads=lambda known: known.candidates,
        folds=lambda known, out: replace(known, candidates=out),
    )


def count_plans(deps: ToolDeps) -> ToolSpec:
    """An added tool at the end of stage 6 that only looks: it reads the plans and changes nothing."""
    return ToolSpec(
        name="count_plans", stage=6, input_model=PlanSet, output_model=PlanSet, fn=lambda plans: plans, reads=_plans
    )


def _plans(known: SoFar) -> PlanSet:
    assert known.plans is not None
    return known.plans


def test_an_added_tool_runs_at_its_stage_and_what_it_folds_back_is_planned_on(copy_row, settings, monkeypatch):
    ctx = AppServices(settings).context(user="u", lang="en", region="shanghai", provider="copy+estimate")
    shipped_planner = halfday_app.planner(ctx)  # what the root hands a planner, and the two added tools beside them
    planner = HalfDayPlanner(
        provider=ctx.providers,
        settings=ctx.settings,
        memory=shipped_planner.memory,
        open_reservations=ctx.reservations,
        breakers=shipped_planner.breakers,
        llm=shipped_planner.open_llm,
        clock=ctx.clock,
        tools=(*BUILTIN_TOOLS, drop_first_candidate, count_plans),
    )
    planner.registry.replace("decompose_goal", lambda _inp: goal(preferences=["museum", "park"]))
    monkeypatch.setattr(halfday_app, "planner", lambda _ctx: planner)
    request = HalfDayRequest(goal="test goal", now=NOW, origin="人民广场")
    events = list(plan_half_day(ctx, request))

    assert "人民广场" in CopyGazetteer.asked  # stage 4's start place, through the added provider
    calls = [(e.data.tool, e.data.stage) for e in events if isinstance(e, SkillCallEvent)]
    assert ("drop_first_candidate", 5) in calls and ("count_plans", 6) in calls
    # each added tool runs after its stage's own tools, every time the stage runs (other added tools aside)
    shipped = [name for name, _ in calls if name in HALFDAY_TOOLS]
    before = {"drop_first_candidate": "search_places", "count_plans": "score_plans"}
    for i, (name, _) in enumerate(calls):
        if name in before:
            assert [n for n, _ in calls[:i] if n in HALFDAY_TOOLS][-1] == before[name]
    assert shipped.count("search_places") == [n for n, _ in calls].count("drop_first_candidate")
    searched = [e.data for e in events if isinstance(e.data, ResultObservation) and e.data.tool == "search_places"]
    dropped = searched[-1].facts.place_ids[0]  # what the last search found first, the added tool took away
    done = events[-1].data
    assert done.type == "plans", done
    assert all(s.place_id != dropped for p in done.result.plans for s in p.steps)
    assert [c["tool"] for c in done.result.tool_log].count("drop_first_candidate") == len(searched)
    added = [e.data for e in events if isinstance(e.data, ResultObservation) and e.data.tool == "count_plans"]
    assert added and all(o.facts == OtherFacts() for o in added)

    # the faces word it like any tool: its name (no words in the catalogs yet), its result
    from components.halfday.text import event_line

    lines = [event_line(worded(e, "en"), "en") for e in events]
    assert "drop first candidate" in "\n".join(line for line in lines if line)


def test_an_added_tool_must_say_what_it_reads_and_run_at_stage_5_or_6():
    spec = drop_first_candidate(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="runs at the end of stage 5 or 6, not 3"):
        ToolRegistry([replace(spec, stage=3)])
    with pytest.raises(ValueError, match="folds its answer into the plan reads from it too"):
        ToolRegistry([replace(spec, reads=None)])


def test_a_provider_is_named_in_words_by_keys_its_services_names_give(copy_row, settings):
    from pydantic import SecretStr

    from components.frame import provider_label
    from core.app.route import provider_words
    from core.i18n import t

    keyed = settings.model_copy(update={"amap_key": SecretStr("k" * 32)})
    for lang in ("zh", "en"):
        for name in available_providers(region="shanghai", settings=keyed):
            said = provider_words(name, lang)
            assert said == provider_label(name, lang)  # the dashboard and the report say the same
            places, _, travel = name.partition("+")
            if name == "copy+estimate":  # an added service without words in the catalogs shows its name
                assert said == t("common.provider.pair", lang, places="copy", travel=_travel_words("estimate", lang))
            else:  # the shipped ones have words: no part is shown as it is
                assert said != t("common.provider.pair", lang, places=places, travel=travel), said
    assert provider_words("amap", "en", short=True) != provider_words("amap", "en")


def _travel_words(name: str, lang: str) -> str:
    from core.i18n import t

    return t(f"common.travel.{name}", lang)


def test_the_shipped_tools_have_words_by_the_key_their_name_gives():
    from core import i18n
    from core.words.halfday import tool_key, tool_words

    unworded = [n for n in HALFDAY_TOOLS if not all(i18n.has(tool_key(n), lang) for lang in i18n.LANGS)]
    assert unworded == ["resolve_origin"]  # it never had words: its log line reads as its name, as it always did
    assert tool_words("resolve_origin", "zh") == "resolve origin"
    assert tool_words("score_plans", "zh") == i18n.t("halfday.stage.score_plans", "zh") != "score plans"
