"""What one request cost, honestly: the tokens of every model call it made (router arbitration, the explanation,
any other call through the client), priced from the settings' price table when the table knows the model, else
reported in the agent's budget units only (never as money), and which paid services ran."""

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


def calls_since(llm: Any, start: int) -> list[LLMCall]:
    """The calls ``llm`` answered after its ``start``-th (a client without a ledger: none)."""
    calls = getattr(llm, "calls", None)
    return list(calls[start:]) if isinstance(calls, list) else []


def ledger_size(llm: Any) -> int:
    calls = getattr(llm, "calls", None)
    return len(calls) if isinstance(calls, list) else 0


def request_cost(calls: Sequence[LLMCall], settings: Settings) -> RequestCost:
    """The request's tokens and, when every model it called has a price, its cost in the table's currency.

    No price table: unpriced (``money`` None) even with no calls, so units are never shown as money."""
    prices = settings.llm_price_per_1k_tokens
    tokens = sum(c.tokens for c in calls)
    models = list(dict.fromkeys(c.model for c in calls))
    money: float | None = None
    if prices and all(m in prices for m in models):
        money = round(sum(c.tokens / 1000 * prices[c.model] for c in calls), 6)
    return RequestCost(
        tokens=tokens,
        model_calls=len(calls),
        money=money,
        currency=settings.llm_price_currency if money is not None else None,
        paid_services=[f"llm:{m}" for m in models],
    )
