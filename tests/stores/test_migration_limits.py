"""Schema migrations run under their own limits, not a request's (issue 21, review should-fix): on PostgreSQL a
migration step longer than the requests' ``db_statement_timeout_s`` completes, and it sees
``db_migration_timeout_s`` as its statement and lock timeout while the requests' connections keep theirs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from core.config import get_settings
from core.stores import db
from tests.support.databases import fresh_postgres
from tests.support.db import db_at


@pytest.fixture
def short_request_limits(monkeypatch) -> Iterator[None]:
    monkeypatch.setenv("OMNI_DB_STATEMENT_TIMEOUT_S", "0.5")  # a request's statement: at most half a second
    monkeypatch.setenv("OMNI_DB_MIGRATION_TIMEOUT_S", "30")
    get_settings.cache_clear()
    db.engine_for.cache_clear()
    yield
    db.engine_for.cache_clear()
    get_settings.cache_clear()


def test_a_migration_longer_than_a_requests_statement_timeout_completes(short_request_limits, monkeypatch) -> None:
    from alembic import command

    seen: dict[str, Any] = {}
    real_upgrade = command.upgrade

    def slow_upgrade(config: Any, revision: str) -> None:
        connection = config.attributes["connection"]
        seen["statement_timeout"] = connection.exec_driver_sql("SHOW statement_timeout").scalar()
        seen["lock_timeout"] = connection.exec_driver_sql("SHOW lock_timeout").scalar()
        connection.exec_driver_sql("SELECT pg_sleep(1.2)")  # a step longer than a request may take (an index build)
        real_upgrade(config, revision)

    monkeypatch.setattr(command, "upgrade", slow_upgrade)
    engine = db.engine_for(db_at(fresh_postgres()))  # migrates: raised QueryCanceled under the request's 0.5 s before
    try:
        assert seen == {"statement_timeout": "30s", "lock_timeout": "30s"}
        with db.transaction(engine) as connection:  # a request's connection keeps the request's limits
            assert connection.exec_driver_sql("SHOW statement_timeout").scalar() == "500ms"
            tables = set(sa.inspect(connection).get_table_names())
        assert {"reservations", "trips"} <= tables  # the migrations ran to the head
        with pytest.raises(db.DatabaseUnreachable), db.transaction(engine) as connection:
            connection.exec_driver_sql("SELECT pg_sleep(1.2)")  # the same wait in a request is cut
    finally:
        engine.dispose()
