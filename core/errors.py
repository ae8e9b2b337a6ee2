"""Errors that read as sentences and carry a code and the offending field.

Faces (CLI, pages, API) turn them into ``{"error": {"code", "message", "field"}}``.
"""

from __future__ import annotations

from typing import Any


class OmniError(Exception):
    code = "OMNI_ERROR"

    def __init__(self, message: str, *, field: str | None = None, code: str | None = None, details: Any = None):
        super().__init__(message)
        self.message = message
        self.field = field
        if code:
            self.code = code
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "field": self.field}}


class InputError(OmniError, ValueError):
    code = "INVALID_INPUT"


class ResolutionError(OmniError, LookupError):
    """An input place could not be resolved to a coordinate; nothing is invented.

    ``candidates`` maps an input field (``stops.1``) to its choice (``PlaceChoice`` as a dict: input, reason,
    spread_m, options) when the input was ambiguous; the faces pass it on as ``error.candidates``. ``facts``: what
    the words need beyond the code (the fields not found, where a gazetteer knows them to be, the region's
    coverage: core/route/elsewhere.py), read by the pages' words (the CLI's and API's error bodies keep their shape)."""

    code = "UNRESOLVED_POINT"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        code: str | None = None,
        details: Any = None,
        candidates: dict[str, dict[str, Any]] | None = None,
        facts: dict[str, Any] | None = None,
    ):
        super().__init__(message, field=field, code=code, details=details)
        self.candidates = candidates or {}
        self.facts = facts or {}

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.candidates:
            out["error"]["candidates"] = self.candidates
        return out


class AmbiguousPlaceError(ResolutionError):
    """An input fits several places kilometres apart (or several of one kind), or only nearly fits one: the
    user chooses; the planner never takes the first."""

    code = "AMBIGUOUS_PLACE"


class ProviderError(OmniError, RuntimeError):
    code = "PROVIDER_ERROR"


class ProviderUnavailable(ProviderError, ConnectionError):
    code = "PROVIDER_UNAVAILABLE"


class ProviderMalformed(ProviderUnavailable):
    """The service answered, but its answer breaks the service's own schema (a list that is a string, a row that is
    not an object, a place without a location): a failure of the service, never an empty result."""

    code = "PROVIDER_MALFORMED"


class ProviderQuotaExceeded(ProviderError):
    code = "PROVIDER_QUOTA_EXCEEDED"


class ProviderAuthError(ProviderError, PermissionError):
    code = "PROVIDER_AUTH_FAILED"


class ProviderRateLimited(ProviderUnavailable):
    """The service refused the call for going too fast (QPS/per-minute limits); retry after a pause."""

    code = "PROVIDER_RATE_LIMITED"


class ProviderTimeout(ProviderUnavailable, TimeoutError):
    """The service did not answer in time; retrying may help."""

    code = "PROVIDER_TIMEOUT"


class ProviderNotRequested(ProviderTimeout):
    """The call was never made: the plan's time for providers had run out before its turn. Not a failure of the
    service (no breaker counts it, no message may say the service failed)."""

    code = "PROVIDER_NOT_REQUESTED"


class RouteNotFound(ProviderError):
    code = "ROUTE_NOT_FOUND"


class OutsideCoverage(ProviderError):
    """A point lies outside the router's network (a region pack's roads): its legs can only be estimated."""

    code = "OUTSIDE_COVERAGE"


def error_from_validation(exc: Exception) -> InputError:
    """Turn a pydantic ValidationError into one InputError naming the first bad field.

    The field is the error's location (``days.1``) joined with the field an InputError raised inside a
    validator names (``end_time``): ``days.1.end_time``, so a form can put the message beside its widget."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ()) if p != "__root__")
        msg = first.get("msg", str(exc))
        msg = msg.removeprefix("Value error, ")
        inner = (first.get("ctx") or {}).get("error")
        field = loc or None
        if isinstance(inner, InputError) and inner.field:
            if not loc or inner.field == loc or inner.field.startswith(loc + "."):
                field = inner.field
            elif loc.split(".")[-1] == inner.field.split(".")[0]:
                field = f"{loc.rsplit('.', 1)[0]}.{inner.field}" if "." in loc else inner.field
            else:
                field = f"{loc}.{inner.field}"
        return InputError(msg, field=field or None)
    return InputError(str(exc))


class DatabaseUnreachable(OmniError):
    """The database cannot serve the request now: it is down, frozen, refusing writes, or its breaker is open after
    such failures. Every face answers this one error (API 503 with ``Retry-After``, the agent's ``FAILED``, the
    half-day stream's ``done(error)``, the CLI's error line); ``retry_after_s`` is when asking again may help."""

    code = "DATABASE_UNREACHABLE"

    def __init__(self, message: str, *, field: str | None = None, retry_after_s: float = 5.0, details: Any = None):
        super().__init__(message, field=field, details=details)
        self.retry_after_s = max(1.0, float(retry_after_s))
