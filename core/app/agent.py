"""Ask the travel agent (job 3), and confirm what it prepared by the dry run's id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.agent.actions.catalog import default_registry
from core.agent.actions.registry import ActionRegistry
from core.agent.browse import BrowserExecutor
from core.agent.deps import AgentDeps
from core.agent.language import conversation_lang
from core.agent.llm import LLMClient, make_llm
from core.agent.orchestrator import ScopeNote, route_and_run
from core.agent.telemetry import Telemetry
from core.app.context import RequestContext
from core.app.scope import in_scope
from core.clock import Clock
from core.config import Settings, get_settings
from core.geo.composite import MapServices
from core.i18n import Lang, guess_lang
from core.memory.store import UserMemory
from core.models.agent import AgentRequest, AgentResponse
from core.reservations.provider import ReservationProvider, ReservationsAt
from core.reservations.service import ReservationService
from core.stores.db import Database
from core.stores.trips import LazyTripStore, TripStore
from core.words.scope import scope_sentence

__all__ = [
    "AgentProgress",
    # entry points
    "acceptance",
    "agent_deps",
    "actions",
    "ask",
    "confirm_dry_run",
    "metrics",
]

AgentProgress = Callable[[str, str], None]


def agent_deps(
    settings: Settings,
    provider: MapServices,
    *,
    store: TripStore | LazyTripStore | None = None,
    reservations: ReservationsAt | None = None,
    memory: UserMemory | None = None,
    telemetry: Telemetry | None = None,
    llm: LLMClient | None = None,
    browser: BrowserExecutor | None = None,
    registry: ActionRegistry | None = None,
) -> AgentDeps:
    """One agent request's dependencies, as the composition root makes them from ``settings``: the settings'
    database and its trip store (opened by the first action that needs it), the reservation service of the
    provider's region on that database (``reservations``: the process's, as ``ask`` hands it), an event log of its
    own, the configured model (none without ``OMNI_LLM_BASE_URL``), a browser on the settings' allowlist and limits,
    and the shared action registry; the provider as a request's view (``provider`` itself when it is one). A test
    or an embedding face hands in its own of any of them."""
    telemetry = telemetry or Telemetry(settings.agent_event_log)
    database = Database.from_settings(settings)
    provider = provider.request_view()  # the request's own budget, warnings and counts, whatever it was handed

    def own_reservations(clock: Clock) -> ReservationProvider:
        return ReservationService.from_settings(settings, provider.region, clock=clock)

    return AgentDeps(
        settings=settings,
        provider=provider,
        database=database,
        store=store or LazyTripStore(database),
        reservations=reservations or own_reservations,
        telemetry=telemetry,
        llm=llm if llm is not None else make_llm(settings),
        browser=browser
        or BrowserExecutor(
            allowlist=settings.browse_allowlist,
            timeout_s=settings.browse_timeout_s,
            max_bytes=settings.browse_max_bytes,
            telemetry=telemetry,
            chromium=settings.browse_chromium,
            evidence_dir=settings.browse_evidence_dir,
        ),
        registry=registry or default_registry(),
        memory=memory,
    )


def ask(
    ctx: RequestContext,
    request: AgentRequest | dict[str, Any],
    *,
    progress: AgentProgress | None = None,
) -> AgentResponse:
    """Route one message and run it as the context's user, on its view of the providers, at its clock's now in its
    zone, answering in its language (when the face gave one; else the conversation's, kept with it in the
    database; else, for a confirmation, its dry run's; else the message's)."""
    if not isinstance(request, AgentRequest):
        request = AgentRequest.model_validate(request)
    if ctx.user is not None and request.user_id != ctx.user:
        request = request.model_copy(update={"user_id": ctx.user})

    def reservations(clock: Clock) -> ReservationProvider:  # the process's service of the region, on the agent's moment
        return ctx.services.reservations(ctx.region.name, settings=ctx.settings).at(clock)

    store = LazyTripStore(Database.from_settings(ctx.settings))
    given = ctx.lang if ctx.lang_given else None
    ctx, note = _scope(ctx, request, conversation_lang(request, store, given=given))
    return route_and_run(
        request,
        agent_deps(ctx.settings, ctx.providers, store=store, reservations=reservations),
        now=ctx.now(),
        lang=given,  # None: the conversation's, else the message's (core/agent/language.py)
        progress=progress,
        scope=note,
    )


def _scope(ctx: RequestContext, request: AgentRequest, lang: Lang | None) -> tuple[RequestContext, ScopeNote | None]:
    """The context to run the message on (another installed region's when it names a place there) and what to say
    about it, in the conversation's ``lang`` (None: the message's) (None: nothing to say; a confirmation by its id
    names no place)."""
    if not request.message or request.options.confirm_dry_run_id:
        return ctx, None
    scoped, scope = in_scope(ctx, request.message)
    if scope.verdict == "IN_REGION":
        return ctx, None
    said: Lang = lang or guess_lang(request.message)
    return scoped, ScopeNote(verdict=scope.verdict, sentence=scope_sentence(scope, said), facts=scope.facts())


def confirm_dry_run(
    ctx: RequestContext,
    dry_run_id: str,
    *,
    trip_id: str | None = None,
    progress: AgentProgress | None = None,
) -> AgentResponse:
    """Commit what the agent prepared, by the id of its dry run (single use, the context's user only), with no
    words standing in for the button: the answer is in the context's language."""
    request = AgentRequest(
        user_id=ctx.user or "anonymous", trip_id=trip_id, options={"confirm_dry_run_id": dry_run_id}, message=""
    )
    return ask(ctx, request, progress=progress)


def actions() -> list[dict[str, Any]]:
    """The registered actions the agent can take (name, family, schemas, side effects), as the API lists them."""
    from core.agent.actions.catalog import default_registry

    return default_registry().describe()


def metrics(*, settings: Settings | None = None) -> dict[str, Any]:
    """The agent's live metrics, read from the event log of ``settings`` (the current settings by default)."""
    from core.agent.telemetry import live_metrics

    return live_metrics((settings or get_settings()).agent_event_log)


def acceptance(ctx: RequestContext) -> list[dict[str, Any]]:
    """Run the QA acceptance cases on a throw-away store and event log, on the context's view of the providers at its
    moment: one row per case, passed or not."""
    from core.agent.acceptance import run_qa_acceptance

    return run_qa_acceptance(settings=ctx.settings, provider=ctx.providers, now=ctx.now(), deps_for=agent_deps)
