"""Stage 1's contract: what a goal sentence says (codes and facts, never sentences for people).

The vocabulary is closed: every code a parser may emit is listed here, so a later stage (and the page's message
catalogue) knows every value it can meet. ``decompose_goal`` (core/halfday/goal.py) fills it from Chinese or
English; the optional LLM fills the same model and is validated against it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from datetime import date, time
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.models.common import Lang

MAX_GOAL_CHARS = 1000  # what stage 1 reads; every face refuses a longer goal

#: What a person may want more of; each maps onto pack categories and tags in search_places.
PreferenceCode = Literal[
    "museum",  # 博物馆 / museum
    "art",  # 美术馆, 展览, gallery, exhibition
    "history",  # 历史, 古迹, old town, heritage
    "park",  # 公园, 绿地
    "nature",  # 自然, 户外风景, nature, garden
    "landmark",  # 地标, 打卡, sights
    "temple",  # 寺庙, 教堂
    "shopping",  # 逛街, 购物, mall
    "market",  # 市集, 菜场
    "theatre",  # 看演出, 话剧, show, concert
    "cafe",  # 咖啡, 下午茶, coffee
    "food",  # 吃, 美食, eat, foodie
    "local_food",  # 本帮菜, 小吃, local snacks
    "science",  # 科技馆, science
    "night_view",  # 夜景
    "photo",  # 拍照, 出片
    "quiet",  # 安静, 人少, quiet
    "kid_activity",  # 遛娃, 亲子, playground, for the kids
    "indoor",  # 室内
    "outdoor",  # 户外, 晒太阳
    "walk",  # 散步, 走走, stroll
    "relax",  # 放松, 休闲, chill
]
PREFERENCE_CODES: tuple[PreferenceCode, ...] = get_args(PreferenceCode)

#: Dietary needs: each maps onto a pack diet tag or cuisine.
DietCode = Literal[
    "vegetarian",  # 素食, 吃素, vegetarian
    "vegan",  # 纯素, vegan
    "halal",  # 清真, halal
    "light",  # 减肥, 轻食, 低卡, on a diet, healthy
    "no_spicy",  # 不吃辣, no spicy food
    "no_alcohol",  # 不喝酒 / 带孩子不去酒吧
]
DIET_CODES: tuple[DietCode, ...] = get_args(DietCode)

MobilityCode = Literal[
    "wheelchair",  # 轮椅, wheelchair
    "stroller",  # 推婴儿车, pushchair, stroller
    "limited_walking",  # 老人走不动, 不想走太多, can't walk far
]
MOBILITY_CODES: tuple[MobilityCode, ...] = get_args(MobilityCode)

WeatherCode = Literal[
    "rain",  # 下雨, 雨天, rainy
    "hot",  # 太热, 高温, hot
    "cold",  # 太冷, cold
]
WEATHER_CODES: tuple[WeatherCode, ...] = get_args(WeatherCode)

TransportCode = Literal["walking", "driving", "cycling", "transit"]

#: What the parser had to assume or could not find (a later stage or the page words them).
AssumptionCode = Literal[
    "date_today",  # no day named: today
    "date_next_weekday",  # 周六 named: the next one (today when today is that day)
    "part_of_day_default_hours",  # 下午 → the default hours of an afternoon
    "end_from_duration",  # "3 hours", "三个小时": end = start + duration
    "end_default_half_day",  # a start with no end: a half day (4 hours)
    "party_default_one_adult",  # nobody named: one adult
    "child_age_unknown",  # 孩子 with no age
    "start_moved_to_now",  # the window had begun: it starts now, rounded up to the next quarter hour
    "end_clamped_to_midnight",  # the window would pass midnight (10pm–2am, now + 2 hours at 23:10): it ends at 23:59
]

MissingCode = Literal[
    "time_window",  # no day part, no hours: ask when
    "time_window_past",  # the window named is already over (e.g. 今天上午 at 15:00)
    "time_window_invalid",  # end before start, or a date the planner cannot cover
]


class TimeWindow(BaseModel):
    """When the half day happens, on the region's local clock."""

    model_config = ConfigDict(extra="forbid")

    date: date
    start: time
    end: time
    phrase: str = Field(default="", max_length=200, description="the words of the goal it was read from")

    @model_validator(mode="after")
    def _ordered(self) -> TimeWindow:
        if self.end <= self.start:
            raise ValueError("a time window ends after it starts")
        return self

    @property
    def minutes(self) -> int:
        return (self.end.hour * 60 + self.end.minute) - (self.start.hour * 60 + self.start.minute)


#: quick answers to "when?" a face may send instead of words (resolved against the request's now, goal_window.py)
WindowChoice = Literal["this_afternoon", "tomorrow_morning", "saturday_afternoon"]
WINDOW_CHOICES: tuple[WindowChoice, ...] = get_args(WindowChoice)


class NamedWindow(BaseModel):
    """A quick answer to "when?" by name; the core resolves it against the request's now."""

    model_config = ConfigDict(extra="forbid")

    choice: WindowChoice


class ExactWindow(BaseModel):
    """A day with its start and end on the region's local clock (an offset given with a time is ignored). One that
    ends before it starts, or is over, is asked again (``time_window_invalid``, ``time_window_past``)."""

    model_config = ConfigDict(extra="forbid")

    date: dt.date
    start: dt.time
    end: dt.time

    @field_validator("start", "end")
    @classmethod
    def _local(cls, value: dt.time) -> dt.time:
        return value.replace(tzinfo=None)


#: when the half day happens, given beside the goal: stage 1 takes it instead of reading a time from the text
RequestWindow = NamedWindow | ExactWindow


class Party(BaseModel):
    """Who goes. Children's ages are listed when said; a child of unknown age counts in ``children`` only."""

    model_config = ConfigDict(extra="forbid")

    adults: int = Field(default=1, ge=0, le=30)
    children: int = Field(default=0, ge=0, le=30)
    children_ages: list[int] = Field(default_factory=list, description="ages in years of the children named")
    seniors: int = Field(default=0, ge=0, le=30, description="older people among the adults (老人, grandparents)")

    @model_validator(mode="after")
    def _consistent(self) -> Party:
        if any(a < 0 or a > 17 for a in self.children_ages):
            raise ValueError("a child's age is between 0 and 17")
        if len(self.children_ages) > self.children:
            raise ValueError("more children's ages than children")
        if self.seniors > self.adults:
            raise ValueError("seniors are counted among the adults")
        if self.adults + self.children == 0:
            raise ValueError("a party has at least one person")
        return self

    @property
    def size(self) -> int:
        return self.adults + self.children


class Constraints(BaseModel):
    model_config = ConfigDict(extra="forbid")

    budget_per_person: float | None = Field(default=None, ge=0, description="CNY or the pack's currency")
    budget_total: float | None = Field(default=None, ge=0)
    diet: list[DietCode] = Field(default_factory=list)
    mobility: list[MobilityCode] = Field(default_factory=list)
    weather: list[WeatherCode] = Field(default_factory=list)
    transport: TransportCode | None = None
    max_leg_minutes: int | None = Field(default=None, ge=1, le=240, description="不想走太远 / at most N min between")


#: What kind of thing a wish asks for: the reader's vocabulary (core/halfday/goal_wishes.py); ``unread`` is a phrase
#: that says what the person wants but that the reader could not map (kept, never dropped, never counted as met).
WishKind = Literal["activity", "sight", "place", "food", "cuisine", "diet", "drink", "shopping", "kids", "unread"]
WISH_KINDS: tuple[WishKind, ...] = get_args(WishKind)


class Wish(BaseModel):
    """One thing the goal asks for, as a code and the words it was read from. ``code`` is a preference code, a
    cuisine (the pack's cuisine names: shanghainese, japanese…), a diet code, a drink (alcohol, coffee, tea), a
    kids' need (kid_activity, child_suitable), a place named (its name as written), or empty for an unread phrase."""

    model_config = ConfigDict(extra="forbid")

    kind: WishKind
    code: str = Field(default="", max_length=40)
    phrase: str = Field(default="", max_length=80, description="the goal's words it was read from")
    eat: bool = Field(default=False, description="a diet said as a meal to have (吃素食), not a limit only")


class DecomposedGoal(BaseModel):
    """Stage 1's output: the goal as codes and facts."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=1000)
    language: Lang
    window: TimeWindow | None = None
    party: Party = Field(default_factory=Party)
    constraints: Constraints = Field(default_factory=Constraints)
    preferences: list[PreferenceCode] = Field(default_factory=list)
    avoid: list[PreferenceCode] = Field(default_factory=list, description="what the goal says not to do")
    wishes: list[Wish] = Field(default_factory=list, description="everything the goal asks for, read or not")
    named_places: list[str] = Field(
        default_factory=list, description="places named literally (去豫园, visit the Bund), as written"
    )
    assumed: list[AssumptionCode] = Field(default_factory=list)
    missing: list[MissingCode] = Field(default_factory=list)
    parser: Literal["rules", "llm", "mock"] = "rules"

    @model_validator(mode="after")
    def _window_or_missing(self) -> DecomposedGoal:
        if self.window is None and not self.missing:
            raise ValueError("a goal without a time window says what is missing")
        return self


# ---- a shared link opened (core/halfday/link.py reads it) ----
LinkNote = Literal["same", "past", "legacy", "legacy_ambiguous"]


@dataclass(frozen=True)
class LinkReading:
    """The window to plan a linked goal in (None: the goal's own words, read from now) and what to say about it."""

    window: ExactWindow | None
    note: LinkNote
