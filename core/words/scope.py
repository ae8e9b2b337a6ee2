"""The words of scope before answer (issue 31): a switch to the region that covers the place named, or the refusal
of a place no installed region covers (core/app/scope.py decides; core/packs/coverage.py reads)."""

from __future__ import annotations

from core.i18n import Lang, join_words, t
from core.packs.coverage import Scope


def scope_sentence(scope: Scope, lang: Lang) -> str:
    """The notice of a switch, or the refusal of a place no region covers, in ``lang`` ("" when in the region); a
    city a landmark implied is said with the landmark."""
    if scope.verdict == "IN_REGION":
        return ""
    key = "common.scope.switched" if scope.verdict == "SWITCH" else "common.scope.not_covered"
    if scope.landmark is not None:  # the landmark named is what implied the city: say which, and which city
        key += "_landmark"
    return t(
        key,
        lang,
        named=scope.named or "",
        city=scope.city_shown(lang),
        region=scope.shown(scope.region, lang),
        active=scope.shown(scope.active, lang),
        regions=join_words((scope.shown(r, lang) for r in scope.regions), lang),
    )
