"""Two threads of one process migrating at once (the server's warm-up and a first request, each on its own database)
take turns: Alembic keeps the running migration's context in module globals, and two at once failed with
"KeyError: 'config'" (seen when the warm-up ran beside a request)."""

from __future__ import annotations

import threading

from alembic import command

from core.stores import db as db_module
from core.stores.db import Database, engine_for
from tests.support.db import db_at


def test_two_threads_never_run_alembic_at_once(tmp_path, monkeypatch):
    real = command.upgrade
    inside, most, lock = [0], [0], threading.Lock()
    second_arrived = threading.Event()

    def counted(config, revision):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            if inside[0] == 2:
                second_arrived.set()
        # the first waits for the second to come in beside it (it never can while they take turns)
        second_arrived.wait(timeout=1.0)
        try:
            real(config, revision)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(command, "upgrade", counted)
    databases = [db_at(f"sqlite:///{tmp_path / f'{n}.db'}") for n in range(2)]
    errors: list[BaseException] = []

    def migrate(database: Database) -> None:
        try:
            db_module.upgrade(engine_for(database), migration_timeout_s=30)
        except BaseException as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=migrate, args=(d,)) for d in databases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == [] and most[0] == 1
