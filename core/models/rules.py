"""A person's standing rules as contracts: the codes (``RuleCode``), one rule with its facts (``Rule``) and what one
message says for the memory (``Said``). core/memory/rules.py reads them from a person's words."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

RuleCode = Literal[
    "no_spicy",  # 不吃辣, no spicy food
    "no_queues",  # 不想排队, hates queues
    "vegetarian",  # 我吃素, I'm vegetarian
    "vegan",  # 我吃全素, I'm vegan
    "halal",  # 只吃清真, halal only
    "no_alcohol",  # 我不喝酒, I don't drink
    "wheelchair",  # 坐轮椅, with a wheelchair
    "stroller",  # 推婴儿车, with a stroller
    "kids_under_6",  # 带3岁的孩子, a toddler, kids under 6
]
RULE_CODES: tuple[RuleCode, ...] = get_args(RuleCode)


class Rule(BaseModel):
    """One standing rule: a code and its facts (the youngest age said for ``kids_under_6``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: RuleCode
    facts: dict[str, int] = Field(default_factory=dict)


class Said(BaseModel):
    """What one message says for the memory: rules to keep, or what to forget."""

    remember: list[Rule] = Field(default_factory=list)
    forget: list[RuleCode] = Field(default_factory=list, description="rules the person asked to forget")
    forget_all: bool = False
    forget_asked: bool = Field(default=False, description="the message asks to forget (even if nothing known matched)")

    @property
    def any(self) -> bool:
        return bool(self.remember or self.forget_asked)
