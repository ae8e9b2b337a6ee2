"""llm.generate_explanation: facts -> a short explanation. A template by default; the LLM only
when configured, and the template again if the LLM fails. Only facts go in; nothing is invented."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from core.agent.actions.names import ActionName
from core.agent.actions.spec import ActionSpec
from core.agent.state import AgentContext
from core.i18n import lang_of_locale
from core.models.agent import AgentState
from core.words import agent as words


class ExplainIn(BaseModel):
    facts: dict[str, Any]
    locale: str = "zh-CN"


class ExplainOut(BaseModel):
    text: str
    source: str = Field(description="template | llm")


def _explain(inp: ExplainIn, state: AgentState, ctx: AgentContext) -> ExplainOut:
    text = words.template_explanation(
        inp.facts, lang=lang_of_locale(inp.locale)
    )  # the model is handed the locale itself
    if ctx.llm is not None:
        try:
            out = ctx.llm.explain(inp.facts, locale=inp.locale)  # its tokens: counted with the request's calls
            if out.strip():
                return ExplainOut(text=out.strip(), source="llm")
        except Exception:
            state.observability.fallback_used = True
    return ExplainOut(text=text, source="template")


def actions() -> list[ActionSpec]:
    return [
        ActionSpec(
            name=ActionName.LLM_GENERATE_EXPLANATION,
            description="Explain a plan from its facts (template; LLM when configured)",
            kind="internal",
            cost="low",
            side_effect="none",
            preconditions=(),
            idempotent=True,
            cacheable=False,
            input_model=ExplainIn,
            output_model=ExplainOut,
            fn=_explain,
        ),
    ]
