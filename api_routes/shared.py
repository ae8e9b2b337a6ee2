"""What every route of the HTTP API shares (api.py and the routers in api_routes/): the JSON answer that always
encodes, the error body and its declared statuses, the caller from its API key, the caller's language, and the
process's services each request's context is made from."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Depends, Header
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from core.app import AppServices, RequestContext
from core.auth import bearer_key, user_for_key
from core.config import get_settings
from core.i18n import Lang, normalize_lang
from core.models.common import clean_text


class SafeJSONResponse(JSONResponse):
    """JSON that always encodes: any lone surrogate left in a value becomes U+FFFD instead of a 500."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=str)
        return str(clean_text(text)).encode("utf-8")


def error_response(status: int, code: str, message: str, field: str | None = None, **extra: Any) -> SafeJSONResponse:
    return SafeJSONResponse(
        status_code=status, content={"error": {"code": code, "message": message, "field": field, **extra}}
    )


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")  # e.g. trace_id on a 500; facts on REGION_NOT_COVERED

    code: str
    message: str
    field: str | None


class ErrorBody(BaseModel):
    """Every 4xx/5xx answer: ``{"error": {"code", "message", "field"}}``."""

    error: ErrorDetail


def described_errors(**described: str) -> dict[int | str, dict[str, Any]]:
    return {
        int(status.removeprefix("s")): {"model": ErrorBody, "description": text} for status, text in described.items()
    }


#: What any operation taking a body may answer besides its own statuses.
BODY_ERRORS = described_errors(
    s400="the body is not JSON in UTF-8",
    s413="the body is over api_max_body_bytes",
    s422="the request breaks the request model (field names the first problem)",
)
AUTH_ERRORS = described_errors(s401="no or an invalid API key")
#: what a reservation's operations (and the half-day's stage 7) may refuse besides a bad body or key
RESERVATION_ERRORS = described_errors(
    s403="consent was not given",
    s404="no such reservation for this user, or nothing of that id can be reserved",
    s409="the venue's terms refuse it (slot, party, lead time, full) or the token is spent, expired or not this "
    "user's, or the state changed",
)


class Unauthorized(Exception):
    """No key, or not one of the configured keys: 401 (api.py answers it)."""


#: what every request shares (providers, caches, breakers, reservation services); nothing of one request
SERVICES = AppServices()


def accept_language(accept_language: str | None = Header(default=None)) -> Lang | None:
    """The caller's language from ``Accept-Language``: the first tag naming a language we speak (``fr, zh;q=0.9``
    is Chinese), or None when it names none (the message's language then decides)."""
    for part in (accept_language or "").split(","):
        lang = normalize_lang(part.split(";", 1)[0].strip())
        if lang is not None:
            return lang
    return None


#: the caller's language from its ``Accept-Language`` header, read once here into a ``Lang`` (a dependency)
ACCEPT_LANGUAGE = Depends(accept_language)


def context_for(
    user: str, *, lang: Lang | None = None, timezone: str | None = None, region: str | None = None
) -> RequestContext:
    """One request's context: the key's user, the language and zone the caller gave (else the region's zone)."""
    return SERVICES.context(user=user, lang=lang, timezone=timezone, region=region)


def current_user(
    authorization: str | None = Header(default=None),
    x_api_key: str | None = Header(default=None),
) -> str:
    """The caller, from its API key."""
    settings = get_settings()
    if not settings.api_keys:
        raise Unauthorized("no API keys are configured on this server (OMNI_API_KEYS); no call is accepted")
    user = user_for_key(bearer_key(authorization, x_api_key), settings)
    if user is None:
        raise Unauthorized("a valid API key is required (Authorization: Bearer KEY or X-API-Key)")
    SERVICES.request_limits().check(user)  # past the key's limit: 429 with Retry-After
    return user
