"""Plans explain themselves in every face (issue 22 §4, seed 004 §2.3): each plan carries its intro and each step
its reason as a code with facts; the API's SSE ``done``, its JSON answer and the CLI give them in words, in the
request's language (``lang``, Accept-Language), from the catalogs the page reads. And no plan holds one place twice
(a chain's branches included: Helsinki has seven Espresso Houses)."""

from __future__ import annotations

import json
from datetime import date, time

import pytest

from core.models.halfday.events import HALF_DAY_EVENT, DonePlans
from core.words.halfday import intro_sentence, reason_sentence
from tests.conftest import auth
from tests.halfday.conftest import NOW
from tests.halfday.test_api_and_cli import GOAL, api, read_sse  # noqa: F401 - the api fixture

#: the words each language's sentences are built from (catalog words a person reads, never a code)
SATURDAY = {"zh": "11月28日", "en": "28 Nov"}
WHEN = {"zh": "时间:", "en": "When:"}
WHY = {"zh": "理由:", "en": "why:"}
ESTIMATE = {"zh": "直线估算", "en": "straight-line estimate"}


def _check_words(done: dict, lang: str) -> None:
    result, words = done["result"], done["words"]
    assert words["lang"] == lang
    # offline: no weather service, and the answer says so in the language asked (issue 31)
    assert result["profile"]["weather"]["status"] == "no_service"
    assert words["weather"] == {"zh": "未查询天气：当前地图服务没有天气预报，行程不作任何天气判断。",
                                "en": "The weather was not checked: this map service has no weather forecast, so the plan "
                                "makes no weather claims."}[lang]  # fmt: skip
    assert [p["plan_id"] for p in words["plans"]] == [p["plan_id"] for p in result["plans"]]
    for plan, worded in zip(result["plans"], words["plans"], strict=True):
        intro = plan["intro"]
        assert intro["code"] in ("wishes", "kinds", "plain")
        assert intro["facts"]["date"] == "2026-11-28" and intro["facts"]["stops"] == len(plan["steps"])
        assert intro["facts"]["adults"] == 2 and intro["facts"]["children_ages"] == [5]
        sentence = worded["intro"]
        assert SATURDAY[lang] in sentence and WHEN[lang] in sentence, sentence
        name = "name_en" if lang == "en" else "name_zh"
        assert all(step[name] in sentence for step in plan["steps"]), sentence
        assert [s["place_id"] for s in worded["steps"]] == [s["place_id"] for s in plan["steps"]]
        for step, said in zip(plan["steps"], worded["steps"], strict=True):
            reason = step["reason"]
            assert reason["code"] in ("matches", "suits", "named", "meal", "fits")
            assert reason["facts"]["category"] == step["category"]
            assert said["reason"].startswith(WHY[lang]) and "_" not in said["reason"], said
            if reason["facts"]["open_until"]:
                assert reason["facts"]["open_until"][:5] in said["reason"]
            # a leg from a straight-line estimate says so, as a field and in the sentence
            estimated = step["travel"] is not None and step["travel"]["source"] == "offline_estimate"
            assert said["straight_line_estimate"] is estimated
            if estimated and reason["facts"]["distance_m"] is not None:
                assert ESTIMATE[lang] in said["reason"], said
    text = json.dumps(words, ensure_ascii=False)
    assert "None" not in text and "matches_" not in text and "category:" not in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_sse_done_carries_the_intro_and_step_reasons_in_the_accept_language(api, lang):  # noqa: F811
    body = {"goal": GOAL, "now": NOW.isoformat()}
    headers = {**auth("alice"), "Accept-Language": {"zh": "zh-CN", "en": "en-GB,en;q=0.9"}[lang]}
    with api.stream("POST", "/halfday/plan", json=body, headers=headers) as response:
        raw = read_sse(response)
    done = json.loads(raw[-1]["data"])["data"]
    assert done["type"] == "plans"
    _check_words(done, lang)
    typed = HALF_DAY_EVENT.validate_json(raw[-1]["data"])  # the words are part of the typed event
    assert isinstance(typed.data, DonePlans) and typed.data.words is not None
    # the page words the same plan the same way (one catalog, one function)
    plan = typed.data.result.plans[0]
    assert typed.data.words.plans[0].intro == intro_sentence(plan, lang)
    assert typed.data.words.plans[0].steps[0].reason == reason_sentence(plan.steps[0], lang)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_json_answer_is_the_done_event_with_words_in_the_requests_lang(api, lang):  # noqa: F811
    body = {"goal": GOAL, "now": NOW.isoformat(), "lang": lang}
    response = api.post("/halfday/plan", json=body, headers={**auth("alice"), "Accept": "application/json"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    event = response.json()
    assert event["type"] == "done"
    _check_words(event["data"], lang)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_cli_prints_the_plans_in_words_beside_the_result(tmp_path, monkeypatch, capsys, lang):
    from core.__main__ import main
    from core.config import get_settings

    monkeypatch.delenv("OMNI_DATA_DIR", raising=False)
    monkeypatch.setenv("OMNI_DB_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    get_settings.cache_clear()
    args = ["halfday", "--goal", GOAL, "--now", NOW.isoformat(), "--region", "shanghai", "--lang", lang]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    _check_words({"result": out, "words": out["words"]}, lang)
    get_settings.cache_clear()


def test_no_plan_holds_one_place_twice_nor_two_branches_of_a_chain():
    from core.app import AppServices
    from core.app import halfday as halfday_app
    from core.models.halfday.goal import ExactWindow
    from core.models.halfday.plans import HalfDayRequest

    ctx = AppServices().context(user="dup-tester", region="helsinki", provider="offline")
    request = HalfDayRequest(
        goal="coffee and cake, cafés only, two adults",
        lang="en",
        region="helsinki",
        now=NOW,
        window=ExactWindow(date=date(2026, 11, 28), start=time(10, 0), end=time(17, 0)),
    )
    done = list(halfday_app.plan_half_day(ctx, request))[-1].data
    assert isinstance(done, DonePlans), done
    for plan in done.result.plans:
        ids = [s.place_id for s in plan.steps]
        names = [(s.name_zh or s.name_en).strip().casefold() for s in plan.steps]
        assert len(ids) == len(set(ids)) and len(names) == len(set(names)), names


from components.halfday.state import EXAMPLES  # noqa: E402 - the example goals the page ships (catalog keys)

EXAMPLE_KEYS = [key for _, key in EXAMPLES]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("key", EXAMPLE_KEYS)
def test_every_shipped_example_goal_plans(key, lang):
    from core.app import AppServices
    from core.app import halfday as halfday_app
    from core.i18n import t
    from core.models.halfday.plans import HalfDayRequest

    goal = t(key, lang)
    ctx = AppServices().context(user="example-tester", region="shanghai", provider="offline", lang=lang)
    done = list(halfday_app.plan_half_day(ctx, HalfDayRequest(goal=goal, region="shanghai", now=NOW)))[-1].data
    assert done.type == "plans", (goal, done)
    assert len(done.result.plans) >= 2


def test_open_until_and_closes_at_are_the_venues_hours_not_the_end_of_the_window(api):  # noqa: F811
    """A café open until 19:00 in a 13:00-18:00 window is "open until 19:00" and never "closes at 18:00, soon
    after you leave" (the walk found every stop said the window's end)."""
    from core.itinerary.opening import opening_windows
    from core.packs.loader import load_region

    pack = load_region("shanghai")
    body = {"goal": "Saturday afternoon, coffee and a gallery", "now": NOW.isoformat()}
    headers = {**auth("alice"), "Accept-Language": "en-GB"}
    with api.stream("POST", "/halfday/plan", json=body, headers=headers) as response:
        done = json.loads(read_sse(response)[-1]["data"])["data"]
    plans = done["result"]["plans"]
    assert plans
    checked = 0
    for plan in plans:
        for step in plan["steps"]:
            place = pack.place_by_id(step["place_id"])
            windows = opening_windows(
                place.opening_hours, [date(2026, 11, 28)], timezone=pack.timezone, country=pack.country
            )
            if windows.source != "opening_hours":
                continue
            start = time.fromisoformat(step["start"]).hour * 60 + time.fromisoformat(step["start"]).minute
            day_close = next(i.end for i in windows.by_date[date(2026, 11, 28)] if i.start <= start < i.end)
            until = step["reason"]["facts"]["open_until"]
            assert until is None or until[:5] == f"{min(day_close, 1439) // 60:02d}:{min(day_close, 1439) % 60:02d}"
            checked += 1
        for risk in plan.get("risks", []):
            if risk["code"] == "CLOSES_SOON":
                place = pack.place_by_id(risk["place_id"])
                windows = opening_windows(
                    place.opening_hours, [date(2026, 11, 28)], timezone=pack.timezone, country=pack.country
                )
                closes = {f"{i.end // 60:02d}:{i.end % 60:02d}" for i in windows.by_date[date(2026, 11, 28)]}
                assert risk["facts"]["closes"] in closes, risk
    assert checked
