"""What one request cost, honestly: the tokens of every model call it made (router arbitration, the explanation,
any other call through the client), priced from the settings' price table when the table knows the model, else
reported in the agent's budget units only (never as money), the map service's remote requests priced from the
settings' request prices (offline and self-hosted services cost nothing), and which paid services ran. The cost
budget (``AgentOptions.cost_budget_usd``) is compared with this money (docs/ARCHITECTURE.md, "What a request
costs")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.agent.llm import LLMCall
from core.config import Settings


@dataclass(frozen=True)
class RequestCost:
    tokens: int
    model_calls: int
    money: float | None  # in ``currency``; None: some call's model has no price (or no call was priced at all)
    currency: str | None
    paid_services: list[str]
    #: the USD the priced parts cost (models with a price, map requests): what the cost budget is compared with
    spent_usd: float = 0.0
    map_requests: int = 0


def map_request_price_usd(service_names: Sequence[str], settings: Settings) -> float:
    """The price of one remote map request of a view whose services have these names: the dearest listed (the
    view counts its requests, not whose they are), 0 for a service the table does not list (offline, the pack's own
    data, a self-hosted engine)."""
    table = settings.map_request_price_usd
    return max((table.get(name, 0.0) for name in service_names), default=0.0)


def llm_spent_usd(calls: Sequence[LLMCall], settings: Settings) -> float:
    """The USD of the calls whose model the price table lists (an unlisted model's calls are not money we know)."""
    prices = settings.llm_price_per_1k_tokens
    if settings.llm_price_currency != "USD":
        return 0.0
    return sum(c.tokens / 1000 * prices[c.model] for c in calls if c.model in prices)


def calls_since(llm: Any, start: int) -> list[LLMCall]:
    """The calls ``llm`` answered after its ``start``-th (a client without a ledger: none)."""
    calls = getattr(llm, "calls", None)
    return list(calls[start:]) if isinstance(calls, list) else []


def ledger_size(llm: Any) -> int:
    calls = getattr(llm, "calls", None)
    return len(calls) if isinstance(calls, list) else 0


def request_cost(
    calls: Sequence[LLMCall], settings: Settings, *, map_requests: int = 0, map_price_usd: float = 0.0
) -> RequestCost:
    """The request's tokens and, when every model it called has a price, its cost in the table's currency (its
    map requests at ``map_price_usd`` each included when that currency is USD).

    No price table: unpriced (``money`` None) even with no calls, so units are never shown as money."""
    prices = settings.llm_price_per_1k_tokens
    tokens = sum(c.tokens for c in calls)
    models = list(dict.fromkeys(c.model for c in calls))
    map_usd = map_requests * map_price_usd
    money: float | None = None
    if prices and all(m in prices for m in models):
        money = sum(c.tokens / 1000 * prices[c.model] for c in calls)
        money = round(money + (map_usd if settings.llm_price_currency == "USD" else 0.0), 6)
    paid = [f"llm:{m}" for m in models] + (["map_requests"] if map_usd > 0 else [])
    return RequestCost(
        tokens=tokens,
        model_calls=len(calls),
        money=money,
        currency=settings.llm_price_currency if money is not None else None,
        paid_services=paid,
        spent_usd=round(llm_spent_usd(calls, settings) + map_usd, 6),
        map_requests=map_requests,
    )


def map_services_names(provider: Any) -> list[str]:
    """The names of a map view's remote services (its geocoder and its router)."""
    return [
        str(getattr(s, "name", "")) for s in (getattr(provider, "geocoder", None), getattr(provider, "router", None))
    ]


def spent_usd(*, llm: Any, llm_start: int, provider: Any, map_requests_start: int, settings: Settings) -> float:
    """The USD a request has spent so far: its priced model calls since ``llm_start`` and its provider's remote
    requests since ``map_requests_start``."""
    requests = provider.remote_requests() - map_requests_start if provider is not None else 0
    price = map_request_price_usd(map_services_names(provider), settings)
    return request_cost(calls_since(llm, llm_start), settings, map_requests=requests, map_price_usd=price).spent_usd
