"""The trip store's tests run on SQLite and on PostgreSQL, as the reservation tests do: ``OMNI_TEST_PG_URL`` names
the PostgreSQL database (``make test`` starts Debian's), and without it the PostgreSQL cases fail, they do not skip.
Each PostgreSQL case gets an empty schema of its own (tests/support/databases.py), dropped afterwards."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from core.stores import db
from core.stores.trips import TripStore
from tests.support.databases import fresh_postgres
from tests.support.db import db_at


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(db.MIGRATIONS))
    return config


HEAD = ScriptDirectory.from_config(alembic_config()).get_current_head()  # 0002 or a later revision on top of it


def migrate(engine: sa.Engine, target: str, *, down: bool = False) -> None:
    config = alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(config, target)


def history(engine: sa.Engine) -> list[str]:
    with engine.connect() as conn:
        return [r[0] for r in conn.exec_driver_sql("SELECT version_num FROM reservations_alembic_version")]


def _drop_schema(url: str) -> None:
    """Let go of the schema tests.support.databases made for the test."""
    schema = str(sa.engine.make_url(url).query["options"]).removeprefix("-csearch_path=")
    engine = sa.create_engine(os.environ["OMNI_TEST_PG_URL"])
    with engine.begin() as conn:
        conn.execute(sa.text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    engine.dispose()


@dataclass
class Database:
    """One empty database; the stores opened on it let their connections go at the end of the test."""

    kind: str
    url: str
    engines: list[sa.Engine] = field(default_factory=list)

    def store(self) -> TripStore:
        store = TripStore(db_at(self.url))
        self.engines.append(store.engine)
        return store

    def store_in_a_new_process(self) -> TripStore:
        """What another process would open: a fresh engine, migrated on opening."""
        db.engine_for.cache_clear()
        return self.store()

    def engine(self) -> sa.Engine:
        """A plain engine on the database (no migration, no store)."""
        engine = sa.create_engine(self.url)
        self.engines.append(engine)
        return engine

    def tables(self) -> set[str]:
        with self.engine().connect() as conn:
            return set(sa.inspect(conn).get_table_names())


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path) -> Iterator[Database]:
    url = f"sqlite:///{tmp_path / 'omni.db'}" if request.param == "sqlite" else fresh_postgres("trip_store")
    db.engine_for.cache_clear()
    data = Database(kind=request.param, url=url)
    yield data
    for engine in data.engines:
        engine.dispose()
    db.engine_for.cache_clear()
    if request.param == "postgresql":
        _drop_schema(url)
