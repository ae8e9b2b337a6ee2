"""browser.fetch: the consented, allowlisted, step-counted page fetch (core/agent/browse.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.agent.actions.names import ActionName
from core.agent.actions.spec import ActionError, ActionSpec
from core.agent.browse import BrowseOutcome
from core.agent.state import AgentContext
from core.models.agent import AgentState


class FetchIn(BaseModel):
    url: str = Field(min_length=8, max_length=2000)


def _fetch(inp: FetchIn, state: AgentState, ctx: AgentContext) -> BrowseOutcome:
    if not state.consent.browse:  # the consent gate (this request's, or the conversation's), enforced again here
        raise ActionError(
            "web browsing needs the user's consent (allow_webbrowse)",
            field="allow_webbrowse",
            code="BROWSER_CONSENT_REQUIRED",
        )
    remaining = ctx.request.options.max_browser_steps - state.observability.browser_steps
    out: BrowseOutcome = ctx.browser.run(inp.url, max_steps=max(0, remaining), max_seconds=max(0.0, ctx.remaining_s()))
    state.observability.browser_steps += out.steps
    return out


def actions() -> list[ActionSpec]:
    return [
        ActionSpec(
            name=ActionName.BROWSER_FETCH,
            description="Fetch allowlisted pages (consent required) and extract availability evidence",
            kind="external",
            cost="high",
            side_effect="calls_api",
            preconditions=(),
            idempotent=True,
            cacheable=True,
            input_model=FetchIn,
            output_model=BrowseOutcome,
            fn=_fetch,
        ),
    ]
