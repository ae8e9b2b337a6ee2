"""PostgreSQL for the tests that run on both databases: ``OMNI_TEST_PG_URL`` names it (``make test`` starts Debian's);
without it those cases fail, they do not skip.

Each call gives a URL whose connections see only an empty schema of their own (``search_path``), so a test's
migrations build every table from scratch and no test disturbs another's tables."""

from __future__ import annotations

import atexit
import itertools
import os

import pytest
import sqlalchemy as sa

_counter = itertools.count()
_made: list[str] = []


@atexit.register
def _drop_schemas() -> None:
    """The schemas this process made go with it (the database is shared by every test run)."""
    url = os.environ.get("OMNI_TEST_PG_URL")
    if not url or not _made:
        return
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("SET LOCAL lock_timeout = '5s'"))  # never hang a test run on its way out
            for schema in _made:
                conn.execute(sa.text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    except sa.exc.SQLAlchemyError:
        pass  # a database already stopped keeps them; the next run's names differ by pid
    finally:
        engine.dispose()


def fresh_postgres(prefix: str = "omni_test") -> str:
    url = os.environ.get("OMNI_TEST_PG_URL")
    if not url:
        pytest.fail("PostgreSQL is needed for these tests: apt-get install -y postgresql (make test starts it)")
    schema = f"{prefix}_{os.getpid()}_{next(_counter)}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
    engine.dispose()
    _made.append(schema)
    scoped = sa.engine.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return scoped.render_as_string(hide_password=False)
