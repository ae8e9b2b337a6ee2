"""The consent and commit gates (docs/ARCHITECTURE.md, "Agent").

- Consent: web browsing starts only with ``options.allow_webbrowse``, or a consent the same user gave earlier in
  the same conversation (``conversation_context.conversation_id``; stored per user and conversation, with an
  expiry); otherwise NEED_CONSENT with BROWSER_CONSENT_REQUIRED. There is no other way to pass it (the request
  forbids extra fields).
- Commit: any external commit (a write to the store, a booking, a refund, a bulk write) is first a
  dry run with structured evidence. The dry run is stored server-side with the user, the trip, the
  action and its exact parameters, and an expiry. Only a later request from the same user quoting
  the dry run's id (``options.confirm_dry_run_id``) commits it, once: the id is consumed atomically.
  The client never sends the parameters of the commit; they come from the stored dry run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.models.agent import AgentRequest
from core.models.common import Lang
from core.stores.trips import DryRunRecord, TripStore


@dataclass
class GateRefusal:
    code: str  # ErrorCode
    reason: str  # UNKNOWN_ID | EXPIRED | ALREADY_USED | OTHER_USER | OTHER_TRIP | DRY_RUN_ONLY
    record: DryRunRecord | None = None


def consent_missing(request: AgentRequest) -> bool:
    """Whether this request itself carries no consent (a remembered one is ``browse_consented``'s to find)."""
    return not request.options.allow_webbrowse


def browse_consented(request: AgentRequest, store: Any, *, now: float, ttl_s: float) -> bool:
    """The request's consent, or this user's earlier one in this conversation. A consent given is remembered for
    the conversation (when the request names one), so the person is asked once, not at every message."""
    conversation = request.conversation_context.conversation_id
    if request.options.allow_webbrowse:
        if conversation:
            store.grant_browse_consent(user_id=request.user_id, conversation_id=conversation, now=now, ttl_s=ttl_s)
        return True
    if not conversation:
        return False
    return bool(store.has_browse_consent(user_id=request.user_id, conversation_id=conversation, now=now))


def make_dry_run(
    store: TripStore,
    request: AgentRequest,
    *,
    action: str,
    params: dict[str, Any],
    evidence: list[dict[str, Any]],
    now: float,
    ttl_s: float,
    lang: Lang | None = None,
) -> DryRunRecord:
    """The commit held until its user confirms it, with the language it was offered in (its confirmation's)."""
    return store.create_dry_run(
        user_id=request.user_id,
        trip_id=request.trip_id,
        action=action,
        params=params,
        evidence=evidence,
        now=now,
        ttl_s=ttl_s,
        lang=lang,
    )


def confirm(store: TripStore, request: AgentRequest, *, now: float) -> DryRunRecord | GateRefusal:
    """Consume the quoted dry run if (and only if) it is this user's, unexpired and unused."""
    dr_id = request.options.confirm_dry_run_id or ""
    rec = store.get_dry_run(dr_id)
    if rec is None:
        return GateRefusal("CONFIRMATION_INVALID", "UNKNOWN_ID")
    if rec.user_id != request.user_id:
        return GateRefusal("CONFIRMATION_INVALID", "UNKNOWN_ID")  # do not reveal other users' ids
    if request.trip_id is not None and request.trip_id != rec.trip_id:  # a dry run without a trip is not any trip's
        return GateRefusal("CONFIRMATION_INVALID", "OTHER_TRIP", rec)
    if request.options.dry_run:
        return GateRefusal("CONFIRMATION_INVALID", "DRY_RUN_ONLY", rec)
    if rec.used_at is not None:
        return GateRefusal("CONFIRMATION_INVALID", "ALREADY_USED", rec)
    if rec.expires_at <= now:
        return GateRefusal("CONFIRMATION_INVALID", "EXPIRED", rec)
    if not store.consume_dry_run(dr_id, user_id=request.user_id, now=now):
        return GateRefusal("CONFIRMATION_INVALID", "ALREADY_USED", rec)  # lost a race
    used = store.get_dry_run(dr_id)
    if used is None:  # gone between the two statements
        return GateRefusal("CONFIRMATION_INVALID", "UNKNOWN_ID")
    return used
