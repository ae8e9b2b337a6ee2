"""One reply language per conversation (issue 31): the request's locale (Accept-Language, --lang, the page's
switch), else the language the conversation was answered in before (kept in the database with it), else, for a
confirmation by id, the language its dry run was offered in, else the message's own (``core.i18n.guess_lang``,
which the flows read from the message when this says None).

A database that cannot answer never stops the answer: the language is then the message's, and nothing is kept."""

from __future__ import annotations

import logging
from typing import Protocol

from core.errors import DatabaseUnreachable
from core.i18n import Lang, guess_lang
from core.models.agent import AgentRequest
from core.stores.trips import DryRunRecord

logger = logging.getLogger(__name__)


class LangStore(Protocol):
    """What of the trip store the language is read from and kept in (a ``TripStore`` or the lazy one)."""

    def conversation_lang(self, *, user_id: str, conversation_id: str) -> Lang | None: ...
    def keep_conversation_lang(self, *, user_id: str, conversation_id: str, lang: Lang, now: float) -> None: ...
    def get_dry_run(self, dry_run_id: str) -> DryRunRecord | None: ...


def conversation_lang(request: AgentRequest, store: LangStore, *, given: Lang | None) -> Lang | None:
    """The reply language of ``request``: ``given`` (the face's), else its conversation's, else its dry run's (a
    confirmation); None when neither is known (the message decides). The store is read only when no language was
    given."""
    if given is not None:
        return given
    conversation = request.conversation_context.conversation_id
    dry_run_id = request.options.confirm_dry_run_id
    try:
        kept = store.conversation_lang(user_id=request.user_id, conversation_id=conversation) if conversation else None
        if kept is None and dry_run_id:
            record = store.get_dry_run(dry_run_id)
            # another user's dry run tells nothing, not even its language
            kept = record.lang if record is not None and record.user_id == request.user_id else None
    except DatabaseUnreachable:
        logger.info("the conversation's language of request %s was not read: the database is down", request.request_id)
        return None
    return kept


def keep_conversation_lang(
    request: AgentRequest, store: LangStore, *, given: Lang | None, used: Lang | None, now_s: float
) -> None:
    """Keep the conversation's language for its later turns: the face's when it gave one (a switch changes it), else
    the message's when the conversation had none (``used`` None: this turn's language was the message's). Nothing
    without a conversation id, nor for a message without letters."""
    conversation = request.conversation_context.conversation_id
    if not conversation or (given is None and used is not None):
        return  # no conversation; or its language came from it (or from the dry run), nothing new to keep
    if given is None and not any(ch.isalpha() for ch in request.message):
        return
    lang = given or guess_lang(request.message)
    try:
        store.keep_conversation_lang(user_id=request.user_id, conversation_id=conversation, lang=lang, now=now_s)
    except DatabaseUnreachable:
        logger.info("the conversation's language of request %s was not kept: the database is down", request.request_id)
