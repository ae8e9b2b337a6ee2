"""Every wish of a half-day goal, and how each plan answers it, in words (zh and en): the codes and facts of
core/models/halfday (``Wish``, ``WishOutcome``) → sentences from locales/*/LC_MESSAGES/halfday.po. An unread wish
is said as not understood, in the person's own words, and never as met."""

from __future__ import annotations

from core import i18n
from core.i18n import Lang, t
from core.models.halfday.goal import Wish
from core.models.halfday.plans import Plan, WishOutcome

#: the cuisines and drinks the wish reader knows (core/phrases/wish_lexicon.py) → their words
CUISINES = ("shanghainese", "cantonese", "dim_sum", "sichuan", "hunan", "yunnan", "japanese", "korean", "thai",
            "indian", "italian", "french", "western", "hotpot", "dumplings", "noodles", "seafood", "bbq", "dessert",
            "bakery", "snacks")  # fmt: skip
DRINKS = ("alcohol", "coffee", "tea")
#: a wish's status and reason → the key of its sentence
OUTCOMES: dict[tuple[str, str], str] = {
    ("met", "served"): "halfday.wish.met",
    ("met", "kept"): "halfday.wish.met.kept",
    ("partly", "side_offer"): "halfday.wish.partly_side",
    ("partly", "some_steps"): "halfday.wish.partly_some",
    ("not_met", "none_in_data"): "halfday.wish.not_met.none_in_data",
    ("not_met", "none_available"): "halfday.wish.not_met.none_available",
    ("not_met", "over_budget"): "halfday.wish.not_met.over_budget",
    ("not_met", "not_in_plan"): "halfday.wish.not_met.not_in_plan",
    ("not_met", "no_meal"): "halfday.wish.not_met.no_meal",
    ("not_met", "some_steps"): "halfday.wish.not_met.not_in_plan",
    ("unread", "not_understood"): "halfday.wish.unread",
}


def _said(key: str, lang: Lang) -> bool:
    return bool(i18n.messages(lang, "halfday").get(key, "").strip())


def wish_label(wish: Wish, lang: Lang) -> str:
    """What the wish asks for, as a noun in ``lang`` (the person's own words when the catalogs have none)."""
    if wish.kind == "cuisine" and _said(f"halfday.cuisine.{wish.code}", lang):
        return t(f"halfday.cuisine.{wish.code}", lang)
    if wish.kind == "drink" and _said(f"halfday.drink.{wish.code}", lang):
        return t(f"halfday.drink.{wish.code}", lang)
    if wish.kind == "diet":
        return _word(f"halfday.diet.{wish.code}", lang, fallback=wish.phrase or wish.code)
    if wish.kind == "kids":
        return t(
            "halfday.wish.child_suitable" if wish.code == "child_suitable" else "halfday.preference.kid_activity", lang
        )
    if wish.kind in ("place", "unread"):
        return t("halfday.wish.quoted", lang, words=wish.phrase or wish.code)
    return _word(f"halfday.preference.{wish.code}", lang, fallback=wish.phrase or wish.code.replace("_", " "))


def _word(key: str, lang: Lang, *, fallback: str) -> str:
    return t(key, lang) if _said(key, lang) else fallback


def _join(items: list[str], lang: Lang) -> str:
    """``a、b、c`` / ``a, b and c`` (core.words.halfday.join; that module words plans with this one)."""
    if len(items) <= 1:
        return "".join(items)
    return t("halfday.list.separator", lang).join(items[:-1]) + t("halfday.list.last", lang) + items[-1]


def outcome_sentence(outcome: WishOutcome, plan: Plan, lang: Lang) -> str:
    """One wish as this plan answers it: met (where), in part (where, and how), not met (why), or not understood."""
    names = [
        s.name_en if lang == "en" and s.name_en else s.name_zh for s in plan.steps if s.place_id in outcome.place_ids
    ]
    key = OUTCOMES.get((outcome.status, outcome.reason)) or f"halfday.wish.{outcome.status}.plain"
    if outcome.reason == "over_budget" and not {"cheapest", "budget"} <= outcome.facts.keys():
        key = "halfday.wish.not_met.none_available"  # an outcome kept before its prices were: said as before
    money = {k: f"{v:g}" for k, v in outcome.facts.items()}
    return t(key, lang, wish=wish_label(outcome.wish, lang), places=_join(list(dict.fromkeys(names)), lang), **money)


def plan_wishes(plan: Plan, lang: Lang) -> list[str]:
    return [outcome_sentence(o, plan, lang) for o in plan.wishes]


def prefixed_wish(code: str, lang: Lang) -> str | None:
    """A theme or match code of a wish (``cuisine:<c>``, ``drink:<d>``, ``diet:<d>``) in words, or None."""
    kind, _, what = code.partition(":")
    if kind in ("cuisine", "drink", "diet") and what:
        return wish_label(Wish(kind=kind, code=what), lang)
    return None
