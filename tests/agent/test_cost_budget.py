"""The cost budget is money (issue 31): ``cost_budget_usd`` is compared with the USD a request spent — its priced
model tokens and its priced map requests (settings' price tables; offline costs 0) — the state and the response
report the USD spent, and BUDGET_EXCEEDED says the USD figure in the reply's language."""

from __future__ import annotations

import pytest

from core.agent import route_and_run
from core.agent.accounting import map_request_price_usd, request_cost
from core.agent.llm import LLMCall
from core.app.agent import agent_deps
from core.config import DEFAULT_LLM_PRICE_PER_1K_TOKENS, DEFAULT_MAP_REQUEST_PRICE_USD
from core.geo.composite import MapServices
from tests.support.agent_packs import FIXED_NOW, make_provider, make_settings

PRICE = 0.004  # USD per request of the stand-in paid map service below


class _PaidMapServices(MapServices):
    """The offline services, every provider call counted as a remote request of a paid service (the price table
    prices it by the services' name, ``offline`` here)."""

    def remote_requests(self) -> int:
        return self.snapshot().total


def _paid(settings):
    offline = make_provider(settings)
    return _PaidMapServices(geocoder=offline.geocoder, router=offline.router, region=offline.region)


def _ask(settings, provider, message, budget):
    deps = agent_deps(settings, provider, llm=None)
    return route_and_run(
        {"message": message, "user_id": "bob", "options": {"cost_budget_usd": budget}}, deps, now=FIXED_NOW
    )


@pytest.mark.parametrize(
    ("message", "lang", "words"),
    [
        ("规划2天上海行程，去外滩、豫园和上海博物馆", "zh", "美元"),
        ("Plan 2 days in Shanghai: the Bund and Yu Garden", "en", "USD"),
    ],
)
def test_priced_map_requests_over_the_budget_stop_with_the_usd_figure(tmp_path, message, lang, words):
    settings = make_settings(tmp_path, map_request_price_usd={"offline": PRICE})
    provider = _paid(settings)
    r = _ask(settings, provider, message, 0.006)  # two requests fit; the third is over
    assert r.result.status == "TIMEOUT" and r.result.error_code == "BUDGET_EXCEEDED"
    spent = r.observability.spent_usd
    assert spent == pytest.approx(provider.remote_requests() * PRICE) and spent > 0.006
    text = r.result.answer_text
    assert words in text and "0.006" in text  # the budget, in dollars
    fallback = r.explain.decision_log[-1]
    assert fallback.facts["budget_usd"] == 0.006 and fallback.facts["spent_usd"] > 0.006


def test_the_same_plan_within_a_larger_budget_reports_what_it_spent(tmp_path):
    settings = make_settings(tmp_path, map_request_price_usd={"offline": PRICE})
    provider = _paid(settings)
    r = _ask(settings, provider, "规划2天上海行程，去外滩、豫园和上海博物馆", 5.0)
    assert r.result.error_code != "BUDGET_EXCEEDED"
    n = provider.remote_requests()
    assert n > 2 and r.observability.spent_usd == pytest.approx(n * PRICE)
    assert r.observability.cost_est_usd == pytest.approx(n * PRICE) and r.observability.cost_currency == "USD"


def test_an_unlisted_service_costs_nothing(tmp_path):
    settings = make_settings(tmp_path)  # the default table lists AMap only
    provider = _paid(settings)
    r = _ask(settings, provider, "规划2天上海行程，去外滩、豫园和上海博物馆", 0.0)
    assert r.result.error_code != "BUDGET_EXCEEDED" and r.observability.spent_usd == 0


def test_tokens_and_requests_are_priced_from_the_tables(tmp_path):
    settings = make_settings(tmp_path, llm_price_per_1k_tokens={"m1": 0.5}, map_request_price_usd={"amap": 0.01})
    calls = [LLMCall(purpose="chat", model="m1", tokens=1500), LLMCall(purpose="explanation", model="m1", tokens=500)]
    price = map_request_price_usd(["pack", "amap"], settings)
    cost = request_cost(calls, settings, map_requests=3, map_price_usd=price)
    assert price == 0.01 and cost.spent_usd == pytest.approx(2000 / 1000 * 0.5 + 3 * 0.01)
    assert cost.money == pytest.approx(1.03) and cost.paid_services == ["llm:m1", "map_requests"]
    unpriced = request_cost([LLMCall(purpose="chat", model="other", tokens=900)], settings, map_requests=2,
                            map_price_usd=price)  # fmt: skip
    assert unpriced.money is None and unpriced.spent_usd == pytest.approx(0.02)  # only what has a price


def test_the_default_tables_are_documented_figures():
    assert DEFAULT_LLM_PRICE_PER_1K_TOKENS == {"gpt-4o-mini": 0.0006}  # 0.60 USD per 1M output tokens
    assert DEFAULT_MAP_REQUEST_PRICE_USD == {"amap": 0.0}  # a personal key within its free quota
