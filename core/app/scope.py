"""Scope before answer (issue 31): every entry compares the places a request names with the active region first.

``in_scope`` reads the request's words (``core.packs.coverage``) against the installed packs and gives the context
to plan on: the same one, or, when another installed region covers the place named, that region's (SWITCH). When no
installed region covers it, the entry answers with ``RegionNotCovered`` (code ``REGION_NOT_COVERED``, facts: the
place named, the regions installed), never a plan of another city. core/words/scope.py words both for a face.
"""

from __future__ import annotations

import dataclasses
import logging

from core.app.context import RequestContext
from core.errors import InputError, OmniError
from core.i18n import Lang
from core.models.region import RegionPack
from core.packs.coverage import Scope, scope_of
from core.packs.loader import list_regions, load_region
from core.words.scope import scope_sentence

__all__ = ["RegionNotCovered", "in_scope", "refuse_uncovered"]

logger = logging.getLogger(__name__)


class RegionNotCovered(InputError):
    """The request names a place no installed region covers; ``details`` holds the scope's facts."""

    code = "REGION_NOT_COVERED"


def _installed(ctx: RequestContext) -> list[RegionPack]:
    packs: list[RegionPack] = []
    for name in list_regions(ctx.settings.data_dir):
        try:
            packs.append(ctx.region if name == ctx.region.name else load_region(name, ctx.settings.data_dir))
        except (OmniError, OSError, ValueError):  # a broken pack covers nothing; the others still do
            logger.warning("region pack %s does not load; it is left out of the scope check", name)
    return packs


def in_scope(ctx: RequestContext, *texts: str | None) -> tuple[RequestContext, Scope]:
    """The context to plan ``texts`` on, and the scope read from them: ``ctx`` itself (IN_REGION, NOT_COVERED: the
    caller refuses), or a twin on the covering region (SWITCH: its providers and zone are that region's)."""
    scope = scope_of("\n".join(t for t in texts if t), active=ctx.region, packs=_installed(ctx))
    if scope.verdict != "SWITCH":
        return ctx, scope
    pack = load_region(scope.region, ctx.settings.data_dir)
    # the zone follows the region unless the face gave one (the context's zone is then not the pack's)
    zone = pack.timezone if ctx.timezone == ctx.region.timezone else ctx.timezone
    return dataclasses.replace(ctx, region=pack, timezone=zone), scope


def refuse_uncovered(scope: Scope, lang: Lang, *, field: str) -> None:
    """Raise ``RegionNotCovered`` (worded in ``lang``, facts in ``details``) when ``scope`` is NOT_COVERED."""
    if scope.verdict == "NOT_COVERED":
        raise RegionNotCovered(scope_sentence(scope, lang), field=field, details=scope.facts())
