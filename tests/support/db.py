"""A test's database: the URL it names, under the suite's settings' limits (the stores take a ``Database``, which
the composition root makes from the settings)."""

from __future__ import annotations

from dataclasses import replace

from core.config import get_settings
from core.stores.db import Database


def db_at(url: str) -> Database:
    return replace(Database.from_settings(get_settings()), url=url)
