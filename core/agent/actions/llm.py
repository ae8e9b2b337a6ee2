"""llm.generate_explanation: facts -> a short explanation. A template by default; the LLM only
when configured, and the template again if the LLM fails. Only facts go in; nothing is invented."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from core.agent.actions.spec import ActionSpec
from core.agent.state import AgentContext
from core.models.agent import AgentState


class ExplainIn(BaseModel):
    facts: dict[str, Any]
    locale: str = "zh-CN"


class ExplainOut(BaseModel):
    text: str
    source: str = Field(description="template | llm")


def template_explanation(facts: dict[str, Any], *, zh: bool) -> str:
    days = facts.get("days") or []
    lines = []
    for d in days:
        stops = " → ".join(d.get("visits", [])) or ("（空）" if zh else "(empty)")
        lines.append(
            (f"第{d['day'] + 1}天 {d.get('date', '')}：" if zh else f"Day {d['day'] + 1} {d.get('date', '')}: ") + stops
        )
    dropped = facts.get("dropped") or []
    if dropped:
        lines.append(("未安排：" if zh else "Not scheduled: ") + "；".join(dropped))
    if facts.get("robustness") is not None:
        lines.append(
            (f"稳健度 {facts['robustness']:.2f}" if zh else f"Robustness {facts['robustness']:.2f}")
            + (f"，最小缓冲 {facts.get('min_slack_min')} 分钟" if zh and facts.get("min_slack_min") is not None else "")
            + (
                f", minimum slack {facts.get('min_slack_min')} min"
                if not zh and facts.get("min_slack_min") is not None
                else ""
            )
        )
    for note in facts.get("notes", []):
        lines.append(str(note))
    return "\n".join(lines)


def _explain(inp: ExplainIn, state: AgentState, ctx: AgentContext) -> ExplainOut:
    zh = inp.locale.lower().startswith("zh")
    text = template_explanation(inp.facts, zh=zh)
    if ctx.llm is not None:
        try:
            before = getattr(ctx.llm, "tokens_used", 0)
            out = ctx.llm.explain(inp.facts, locale=inp.locale)
            state.observability.tokens_est += max(0, getattr(ctx.llm, "tokens_used", 0) - before)
            if out.strip():
                return ExplainOut(text=out.strip(), source="llm")
        except Exception:
            state.observability.fallback_used = True
    return ExplainOut(text=text, source="template")


def actions() -> list[ActionSpec]:
    return [
        ActionSpec(
            name="llm.generate_explanation",
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
