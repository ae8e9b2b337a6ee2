"""The agent's side of the memory (seed 001 §7): rules the person states are kept and said back in words ("I'll
remember: no spicy food"), a request to forget is carried out, the person's rules are read for the venue and place
suggestions, and each turn is kept as a snippet to recall.

The database is met only by a message that states or forgets a rule, by a flow that suggests venues or places, and
by the turn's snippet: an outage there is logged (``MEMORY_UNAVAILABLE``) and the answer goes on without memory."""

from __future__ import annotations

import logging

from core.agent.state import AgentContext, log_decision
from core.errors import DatabaseUnreachable
from core.memory.conversations import ConversationStore
from core.memory.store import UserMemory
from core.models.agent import AgentResponse, AgentState
from core.models.rules import Rule, Said
from core.words import agent as words

logger = logging.getLogger(__name__)
#: where the person's standing rules are kept in the state once read (state.memory.semantic_facts.rules)
RULES_KEY = "standing"
POLICY = "USER_MEMORY"
#: what a turn's snippet keeps of the answer (enough to recognise it when recalled)
ANSWER_CHARS = 300


def memory_of(ctx: AgentContext) -> UserMemory:
    if ctx.memory is None:
        ctx.memory = UserMemory(database=ctx.database, clock=lambda: ctx.now)
    memory: UserMemory = ctx.memory
    return memory


def rules_for(ctx: AgentContext, state: AgentState) -> list[Rule]:
    """The person's standing rules (read once per request, kept in the state's facts; none when the database cannot
    be reached)."""
    known = state.memory.semantic_facts.rules
    if RULES_KEY in known:
        return [Rule.model_validate(r) for r in known[RULES_KEY]]
    try:
        rules = [Rule(code=r.code, facts=r.facts) for r in memory_of(ctx).rules(ctx.request.user_id)]
    except DatabaseUnreachable:
        _unavailable(state)
        rules = []
    known[RULES_KEY] = [r.model_dump(mode="json") for r in rules]
    if rules:
        log_decision(
            state,
            action="user_memory.rules",
            reason_code="RULES_APPLIED",
            policy_id=POLICY,
            facts={"rules": [r.code for r in rules]},
        )
    return rules


def remember(said: Said, state: AgentState, ctx: AgentContext) -> str | None:
    """Keep the rules the message states; the sentence saying so (None when nothing was new)."""
    try:
        kept = memory_of(ctx).remember(ctx.request.user_id, said.remember)
    except DatabaseUnreachable:
        _unavailable(state)
        return None
    state.memory.semantic_facts.rules.pop(RULES_KEY, None)
    log_decision(
        state,
        action="user_memory.remember",
        reason_code="RULES_STATED",
        policy_id=POLICY,
        facts={"rules": [r.code for r in said.remember], "new": [r.code for r in kept]},
    )
    if not kept:
        return None
    return words.remembered_sentence([r.code for r in kept], ctx.reply_lang())


def forget(said: Said, state: AgentState, ctx: AgentContext) -> None:
    """Forget what the message names (or everything): the answer says what was forgotten, or that nothing was."""
    lang = ctx.reply_lang()
    memory = memory_of(ctx)
    user = ctx.request.user_id
    state.result.status = "READY"
    if said.forget_all:  # everything kept of the person: rules, snippets, conversations and browse consents
        rules, episodes = memory.forget_all(user)
        conversations = ConversationStore(database=ctx.database, clock=lambda: ctx.now).forget_all(user)
        consents = ctx.store.forget_browse_consents(user) if ctx.store is not None else 0
        if ctx.store is not None:
            ctx.store.forget_conversation_langs(user)  # a conversation forgotten leaves no language of it behind
        state.result.explanations = [words.forgot_all_sentence(lang)]
        facts: dict[str, object] = {
            "all": True,
            "rules": rules,
            "episodes": episodes,
            "conversations": conversations,
            "consents": consents,
        }
    elif said.forget:
        gone = memory.forget(user, said.forget)
        state.result.explanations = [words.forgot_sentence(gone, said.forget, lang)]
        facts = {"asked": list(said.forget), "forgotten": list(gone)}
    else:
        kept = [r.code for r in memory.rules(user)]
        state.result.explanations = [words.rules_kept_sentence(kept, lang)]
        facts = {"asked": [], "kept": kept}
    state.memory.semantic_facts.rules.pop(RULES_KEY, None)
    log_decision(state, action="user_memory.forget", reason_code="FORGET_ASKED", policy_id=POLICY, facts=facts)


def recall(state: AgentState, ctx: AgentContext) -> None:
    """The past snippets most like this message, logged with their ids and similarity (for the plan's context)."""
    try:
        found = memory_of(ctx).recall(ctx.request.user_id, ctx.request.message)
    except DatabaseUnreachable:
        _unavailable(state)
        return
    if found:
        log_decision(
            state,
            action="user_memory.recall",
            reason_code="EPISODES_RECALLED",
            policy_id=POLICY,
            facts={"episodes": [e.id for e in found], "similarity": [e.similarity for e in found]},
        )


def keep_turn(ctx: AgentContext, response: AgentResponse) -> None:
    """The turn as a snippet to recall later: the message and the start of the answer."""
    message = ctx.request.message.strip()
    if not message:
        return
    if response.result.error_code == "DATABASE_UNREACHABLE":
        return  # the database just failed this request: a write would make the person wait its deadline again
    text = f"{message}\n{response.result.answer_text[:ANSWER_CHARS]}"
    facts = {"route": response.route.route, "status": response.result.status, "request_id": response.request_id}
    try:
        memory_of(ctx).write_episode(ctx.request.user_id, "turn", text, facts=facts)
    except Exception:  # the answer is given already: a snippet not kept must never turn it into a failure
        logger.warning("the turn of request %s was not kept", response.request_id, exc_info=True)


def _unavailable(state: AgentState) -> None:
    log_decision(state, action="user_memory.read", reason_code="MEMORY_UNAVAILABLE", policy_id=POLICY, facts={})
