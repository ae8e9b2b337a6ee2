"""An OpenAI-compatible chat client over httpx (off by default).

It is built only when ``OMNI_LLM_BASE_URL`` is set. The client takes an injected ``httpx.Client``
(tests pass ``httpx.MockTransport``). The key travels only in the Authorization header; it is
never logged, never in ``repr``, and error messages are scrubbed of it.

Two uses: grey-zone router arbitration (a JSON verdict, validated by the router) and the wording
of an explanation from facts (the template is the default and the fallback).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from core.config import Settings

ROUTER_SYSTEM_PROMPT = (
    "You route travel-assistant messages. Answer with JSON only: "
    '{"route": "SYSTEM1_API|SYSTEM1_RAG|SYSTEM2_REASONING|SYSTEM2_WEBBROWSE", "confidence": 0..1, '
    '"reasons": [subset of "MULTI_CONSTRAINT","MISSING_INFO","NO_API","REALTIME_WEB","HIGH_RISK_ACTION"]}'
)
EXPLAIN_SYSTEM_PROMPT = (
    "Rewrite the given facts as a short, friendly explanation for a traveller. Use only the facts given; "
    "do not add places, times or prices."
)


class LLMError(RuntimeError):
    pass


@dataclass(frozen=True)
class LLMCall:
    """One answered call: what it was for, the model that answered and the tokens its usage reported."""

    purpose: str  # "route_arbitration" | "explanation" | "halfday_goal" | "chat"
    model: str
    tokens: int


class LLMClient:
    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        model: str,
        timeout_s: float = 8.0,
        client: httpx.Client | None = None,
    ):
        self._base = base_url.rstrip("/")
        self._key = api_key
        self.model = model
        self._client = client or httpx.Client(timeout=timeout_s)
        self.tokens_used = 0
        self.calls: list[LLMCall] = []  # every answered call, in order (a request reads the ones it made)

    def __repr__(self) -> str:  # never show the key
        return f"LLMClient(base_url={self._base!r}, model={self.model!r}, key={'***' if self._key else None})"

    def _scrub(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        json_mode: bool = False,
        max_tokens: int = 300,
        purpose: str = "chat",
    ) -> str:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0, "max_tokens": max_tokens}
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        try:
            resp = self._client.post(f"{self._base}/chat/completions", json=body, headers=headers)
            resp.raise_for_status()
            data = resp.json()
            text = data["choices"][0]["message"]["content"]
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise LLMError(self._scrub(f"LLM call failed: {type(exc).__name__}: {exc}")) from None
        usage = data.get("usage") or {}
        tokens = int(usage.get("total_tokens") or 0)
        self.tokens_used += tokens
        self.calls.append(
            LLMCall(purpose=purpose, model=self.model, tokens=tokens)
        )  # the price table names the configured model
        if not isinstance(text, str):
            raise LLMError("LLM answer has no text")
        return text

    def arbitrate_route(self, message: str, hints: dict[str, Any]) -> str:
        """The raw JSON text of a routing verdict (the router validates it)."""
        return self.chat(
            [
                {"role": "system", "content": ROUTER_SYSTEM_PROMPT},
                {"role": "user", "content": json.dumps({"message": message, "hints": hints}, ensure_ascii=False)},
            ],
            json_mode=True,
            max_tokens=120,
            purpose="route_arbitration",
        )

    def explain(self, facts: dict[str, Any], *, locale: str = "zh-CN") -> str:
        return self.chat(
            [
                {"role": "system", "content": EXPLAIN_SYSTEM_PROMPT + f" Answer in {locale}."},
                {"role": "user", "content": json.dumps(facts, ensure_ascii=False, default=str)},
            ],
            max_tokens=300,
            purpose="explanation",
        )


def make_llm(settings: Settings, *, client: httpx.Client | None = None) -> LLMClient | None:
    """The configured client, or None when the LLM is off (no base URL)."""
    if not settings.llm_base_url:
        return None
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    return LLMClient(
        base_url=settings.llm_base_url,
        api_key=key,
        model=settings.llm_model,
        timeout_s=settings.llm_timeout_s,
        client=client,
    )
