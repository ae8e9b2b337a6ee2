"""What the strategy lab page remembers per user between visits: its settings and its last results table.

Kept under the lab folder (``.omni/lab/users/<hash of the user id>.json``), beside the results tables it points to:
a reload (a new session of the same user, components/identity.py) finds its settings and its last results again;
another user never sees them. The settings are the page's choices as plain JSON (the face checks them with its own
model); the result is a reference to a table on disk, never the table itself.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from core.models.lab import LabGrid

__all__ = ["LabMemory", "LabResultRef", "LabMemoryStore"]


class LabResultRef(BaseModel):
    """The last results table of the page: where it is and what made it (the signature marks it stale)."""

    model_config = ConfigDict(extra="ignore")

    path: str
    name: str
    signature: str | None = None
    grid: LabGrid | None = None
    requests_run: int | None = None
    requests_total: int | None = None
    wall_s: float | None = None


class LabMemory(BaseModel):
    model_config = ConfigDict(extra="ignore")

    settings: dict[str, JsonValue] = {}
    result: LabResultRef | None = None


class LabMemoryStore:
    """One JSON file per user under ``root``; written whole (a temporary file renamed), read leniently (a file
    that is not a memory is no memory)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, user: str) -> Path:
        # a hash, not the id: an id is no file name (slashes, length) and the folder should not list who used it
        return self.root / f"{hashlib.sha256(user.encode('utf-8')).hexdigest()[:32]}.json"

    def load(self, user: str) -> LabMemory | None:
        try:
            return LabMemory.model_validate_json(self._path(user).read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

    def save(self, user: str, memory: LabMemory) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self._path(user)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(memory.model_dump_json())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
