"""The agent console's options (components/choices.py): kept through a language switch and a page switch."""

from __future__ import annotations

from components.choices import Choices, ChoiceStore


class AgentChoices(Choices):
    """The field names are the widgets' keys (pages/agent_console.py)."""

    agent_allow_web: bool = False
    agent_dry_run: bool = False
    agent_max_steps: int = 8
    agent_max_seconds: int = 60


AGENT = ChoiceStore("agent_choices", AgentChoices)
