"""The half-day page's word-option choices as codes (components/choices.py): the family's diet and mobility needs
keep their values through a language switch and a page switch."""

from __future__ import annotations

from components.choices import Choices, ChoiceStore


class HalfDayChoices(Choices):
    """The field names are the widgets' keys (components/halfday/memory.py)."""

    hd_fam_diet: list[str] = []  # core.app.halfday.DIET_CODES
    hd_fam_mobility: list[str] = []  # core.app.halfday.MOBILITY_CODES


HALFDAY = ChoiceStore("halfday_choices", HalfDayChoices)
