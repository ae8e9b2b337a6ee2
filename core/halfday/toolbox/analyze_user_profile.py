"""Stage 3: the person's profile from the goal and the memory (profile.py). The mock: the rules on an empty memory."""

from __future__ import annotations

from core.config import HalfDayToolName
from core.halfday.profile import analyze_user_profile
from core.halfday.tools import MOCK, ToolDeps, ToolSpec
from core.models.halfday.facts import ProfileFacts, ToolFacts
from core.models.halfday.plans import Memory, Profile, ProfileInput

NAME = HalfDayToolName.ANALYZE_USER_PROFILE


def tool(deps: ToolDeps) -> ToolSpec:
    return ToolSpec(
        name=NAME,
        stage=3,
        input_model=ProfileInput,
        output_model=Profile,
        fn=analyze_user_profile,
        mock=mock_profile,
        facts=profile_facts,
    )


def mock_profile(inp: ProfileInput) -> Profile:
    """The profile of the goal alone (the memory left out): the rules on an empty memory."""
    empty = Memory(user_id=inp.memory.user_id, source=MOCK)
    profile = analyze_user_profile(inp.model_copy(update={"memory": empty}))
    return profile.model_copy(update={"source": MOCK})


def profile_facts(profile: Profile) -> ToolFacts:
    return ProfileFacts(
        crowd_tolerance=profile.crowd_tolerance,
        walk_limit_min=profile.walk_limit_min,
        party_source=profile.party_source,
        indoor_only=profile.indoor_only,
    )
