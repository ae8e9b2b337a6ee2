"""What the strategy lab page remembers per user between visits: its settings and its last results table.

Kept in the shared database (``OMNI_DB_URL``, Alembic revision 0009, ``lab_memories``): a reload (a new session of
the same user, components/identity.py) finds its settings and its last results again, on whichever dashboard
process of a team it reaches, on this machine or another (issue 33); another user never sees them. The settings
are the page's choices as plain JSON (the face checks them with its own model); the result is a reference to a
table on disk, kept with that table's bytes (up to ``MAX_TABLE_BYTES``): a process that lacks the file (another
machine) writes it again under its own ``folder`` and reads it there. Before revision 0009 the memory was a JSON
file per user under the lab folder (``legacy_root``): one found there is read once and kept in the database.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from core.clock import Clock
from core.models.lab import LabGrid
from core.stores.db import Database, EngineAtFirstUse, UtcDateTime, transaction

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

__all__ = ["LabMemory", "LabResultRef", "LabMemoryStore", "MAX_TABLE_BYTES"]

#: a results table larger than this is kept by reference only (a process without the file says it is lost)
MAX_TABLE_BYTES = 32 * 1024 * 1024

metadata = sa.MetaData()
lab_memories = sa.Table(
    "lab_memories",
    metadata,
    sa.Column("user_id", sa.String(120), primary_key=True),
    sa.Column("memory", sa.JSON, nullable=False),
    sa.Column("table_bytes", sa.LargeBinary, nullable=True),
    sa.Column("updated_at", UtcDateTime(), nullable=False),
)


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


def _digest(text: str) -> str:
    # a hash, not the id: an id is no file name (slashes, length) and a folder should not list who used it
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class LabMemoryStore(EngineAtFirstUse):
    """One row per user: the memory as JSON and the bytes of its results table. ``folder``: where this process
    writes a table it lacks; ``legacy_root``: the folder of the JSON files of before revision 0009."""

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        database: Database | None = None,
        clock: Clock,
        folder: Path,
        legacy_root: Path | None = None,
    ) -> None:
        super().__init__(engine, database=database, clock=clock)
        self.folder = folder
        self.legacy_root = legacy_root

    def load(self, user: str) -> LabMemory | None:
        row = self._column(user, lab_memories.c.memory)
        if row is None:
            return self._adopt_legacy(user)
        try:
            memory = LabMemory.model_validate(row)
        except ValidationError:  # a row that is not a memory is no memory
            return None
        if memory.result is not None and not Path(memory.result.path).exists():
            table = self._column(user, lab_memories.c.table_bytes)  # read only when this process lacks the file
            if table is not None:
                memory.result.path = str(self._write_table(memory.result.path, table))
        return memory

    def save(self, user: str, memory: LabMemory) -> None:
        values: dict[str, Any] = {"memory": memory.model_dump(mode="json"), "updated_at": self.clock()}
        kept = self._column(user, lab_memories.c.memory)
        kept_path = ((kept or {}).get("result") or {}).get("path") if isinstance(kept, dict) else None
        if kept is None or memory.result is None or kept_path != memory.result.path:  # a new table: its bytes too
            values["table_bytes"] = self._table_bytes(memory.result)
        with transaction(self.engine) as conn:
            done = conn.execute(lab_memories.update().where(lab_memories.c.user_id == user).values(**values))
            if not done.rowcount:
                conn.execute(lab_memories.insert().values(user_id=user, **values))

    def _column(self, user: str, column: sa.Column[Any]) -> Any:
        with transaction(self.engine) as conn:
            return conn.execute(sa.select(column).where(lab_memories.c.user_id == user)).scalar_one_or_none()

    @staticmethod
    def _table_bytes(result: LabResultRef | None) -> bytes | None:
        if result is None:
            return None
        path = Path(result.path)
        try:
            if path.stat().st_size > MAX_TABLE_BYTES:
                return None
            return path.read_bytes()
        except OSError:  # gone already: the reference alone (a reader without it says it is lost)
            return None

    def _write_table(self, path: str, data: bytes) -> Path:
        """The table's bytes as a file of this process's ``folder`` (named by its bytes: written once)."""
        original = Path(path)
        local = self.folder / f"{original.stem}-{hashlib.sha256(data).hexdigest()[:12]}{original.suffix}"
        if not local.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = local.with_name(f".{local.name}.part")
            partial.write_bytes(data)
            partial.replace(local)
        return local

    def _adopt_legacy(self, user: str) -> LabMemory | None:
        """A memory kept as a file before revision 0009, kept in the database from now on (the file stays)."""
        if self.legacy_root is None:
            return None
        try:
            memory = LabMemory.model_validate_json((self.legacy_root / f"{_digest(user)}.json").read_bytes())
        except (OSError, ValidationError, ValueError):
            return None
        self.save(user, memory)
        return memory
