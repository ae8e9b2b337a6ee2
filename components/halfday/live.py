"""The half-day plans' cards as the planner makes them (issue 32: the first card while the others are composed).

Below the live stage log, a row of as many columns as plans are asked for: each plan said by the planner
(``observation`` of type ``plan``) is drawn once, in the order made; a new round of search (a relaxed filter) starts
the row again. When the run ends the row goes: the ranked cards of the result, drawn from state, take its place."""

from __future__ import annotations

from typing import Any

import streamlit as st

from components.halfday.cards import render_live_card
from components.language import t
from core.i18n import Lang
from core.models.halfday.events import PlanObservation

#: the live cards' container keys (the browser bench's first sight reads ``st-key-hd_card_``)
LIVE_KEY = "hd_card_live_{round}_{plan}"


class LivePlans:
    """The row of live cards in ``slot`` (an ``st.empty`` placed under the stage log)."""

    def __init__(self, slot: Any, *, lang: Lang) -> None:
        self.slot = slot
        self.lang = lang
        self.round: int | None = None
        self.columns: list[Any] = []
        self.drawn: list[str] = []

    def show(self, said: PlanObservation) -> None:
        """Draw the plan just made in the next free column (once: a retried composer may say it again)."""
        if said.round != self.round:  # a new round's plans replace the earlier round's
            self.round, self.drawn = said.round, []
            with self.slot.container():
                st.caption(t("halfday.card.live_note", self.lang))
                self.columns = list(st.columns(said.asked))
        plan = said.plan
        if plan.plan_id in self.drawn or len(self.drawn) >= len(self.columns):
            return
        with self.columns[len(self.drawn)]:
            key = LIVE_KEY.format(round=said.round, plan=plan.plan_id)
            render_live_card(plan, len(self.drawn) + 1, key=key, lang=self.lang)
        self.drawn.append(plan.plan_id)

    def clear(self) -> None:
        """The run is over (plans, a question, an error): the result drawn from state replaces the live row."""
        self.slot.empty()
