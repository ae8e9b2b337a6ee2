"""API callers and who they are: API keys stored as SHA-256 digests in settings (``OMNI_API_KEYS``, a JSON
object ``{"user id": "hex digest"}``); the user is the key's owner, never what a request body says.

``python -m core apikey new USER`` (core/cli/apikey.py) prints a fresh key (give it to the caller once; only its digest is kept) and
the ``OMNI_API_KEYS`` value with the configured keys plus this one.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from core.config import Settings


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    return "omni_" + secrets.token_urlsafe(32)


def user_for_key(key: str | None, settings: Settings) -> str | None:
    """The user the key belongs to, or None (compared in constant time against every stored digest)."""
    if not key:
        return None
    digest = key_digest(key.strip())
    found = None
    for user, stored in settings.api_keys.items():
        if hmac.compare_digest(digest, stored.strip().lower()):
            found = user
    return found


def bearer_key(authorization: str | None, x_api_key: str | None) -> str | None:
    """The key a request carries: ``Authorization: Bearer KEY`` or ``X-API-Key: KEY``."""
    if x_api_key:
        return x_api_key
    if authorization and authorization[:7].lower() == "bearer ":
        return authorization[7:].strip() or None
    return None


USER_NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}"


def issue_key(user: str, settings: Settings) -> dict[str, str]:
    """A fresh key for ``user`` and the ``OMNI_API_KEYS`` value that adds (or replaces) its digest."""
    import json
    import re

    from core.errors import InputError
    from core.models.common import echo

    if not re.fullmatch(USER_NAME_PATTERN, user):
        raise InputError(
            f"'{echo(user)}' is not a user name (letters, digits, . _ @ -; at most 64 characters)", field="user"
        )
    key = new_key()
    keys = {**settings.api_keys, user: key_digest(key)}
    return {"user": user, "key": key, "OMNI_API_KEYS": json.dumps(keys, sort_keys=True)}
