"""The strategy lab's per-user memory (core/app/lab_memory.py), in the shared database on SQLite and PostgreSQL:
each user gets back their own; a dashboard process on another machine (its own lab folder, without the results
file) gets the results table back from the database; a memory kept as a file before revision 0009 is adopted."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.app.lab_memory import LabMemory, LabMemoryStore, LabResultRef, _digest
from tests.support.clock import SUITE_NOW
from tests.support.databases import fresh_postgres
from tests.support.db import db_at


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'team.db'}" if request.param == "sqlite" else fresh_postgres()


def machine(db_url: str, folder: Path, legacy: Path | None = None) -> LabMemoryStore:
    """One dashboard process: its own handle on the team's database and its own lab folder."""
    return LabMemoryStore(database=db_at(db_url), clock=lambda: SUITE_NOW, folder=folder, legacy_root=legacy)


def test_each_user_reads_back_only_their_own_settings_and_result(db_url, tmp_path):
    store = machine(db_url, tmp_path / "results")
    alice = LabMemory(
        settings={"lab_strategies": ["fastest_time"], "lab_limit": 3},
        result=LabResultRef(path="/x/alice.parquet", name="alice", signature="abc"),
    )
    store.save("dashboard-aaaaaaaaaaaa", alice)
    store.save("dashboard-bbbbbbbbbbbb", LabMemory(settings={"lab_modes": ["walking"]}))
    store.save("dashboard-bbbbbbbbbbbb", LabMemory(settings={"lab_modes": ["cycling"]}))  # replaces, one row

    assert store.load("dashboard-aaaaaaaaaaaa") == alice  # its table was never there: the reference as it was
    other = store.load("dashboard-bbbbbbbbbbbb")
    assert other is not None and other.result is None and other.settings == {"lab_modes": ["cycling"]}
    assert store.load("dashboard-cccccccccccc") is None


def test_another_machine_gets_the_results_table_back_from_the_database(db_url, tmp_path):
    table = tmp_path / "a" / "results" / "hel-small-1234.parquet"
    table.parent.mkdir(parents=True)
    table.write_bytes(b"PAR1 the table's bytes PAR1")
    memory = LabMemory(settings={"lab_seed": 4}, result=LabResultRef(path=str(table), name="hel-small", requests_run=3))
    machine(db_url, tmp_path / "a" / "results").save("dashboard-aaaaaaaaaaaa", memory)
    table.unlink()  # machine b never had machine a's disk

    found = machine(db_url, tmp_path / "b" / "results").load("dashboard-aaaaaaaaaaaa")
    assert found is not None and found.result is not None
    kept = Path(found.result.path)
    assert kept.parent == tmp_path / "b" / "results" and kept.suffix == ".parquet"
    assert kept.read_bytes() == b"PAR1 the table's bytes PAR1"
    assert (found.settings, found.result.name, found.result.requests_run) == ({"lab_seed": 4}, "hel-small", 3)


def test_a_table_too_large_to_keep_is_kept_by_reference_only(db_url, tmp_path, monkeypatch):
    import core.app.lab_memory as lab_memory

    monkeypatch.setattr(lab_memory, "MAX_TABLE_BYTES", 10)
    table = tmp_path / "big.parquet"
    table.write_bytes(b"x" * 11)
    machine(db_url, tmp_path / "a").save("u1", LabMemory(result=LabResultRef(path=str(table), name="big")))
    table.unlink()
    found = machine(db_url, tmp_path / "b").load("u1")
    assert found is not None and found.result is not None and found.result.path == str(table)  # said lost by the page
    assert not (tmp_path / "b").exists()


def test_a_memory_kept_as_a_file_before_the_database_is_adopted_once(db_url, tmp_path):
    legacy = tmp_path / "users"
    legacy.mkdir()
    before = LabMemory(settings={"lab_modes": ["walking"]})
    (legacy / f"{_digest('dashboard-aaaaaaaaaaaa')}.json").write_text(before.model_dump_json(), encoding="utf-8")
    (legacy / f"{_digest('u-damaged')}.json").write_text("{not json", encoding="utf-8")

    assert machine(db_url, tmp_path / "r", legacy).load("dashboard-aaaaaaaaaaaa") == before
    assert machine(db_url, tmp_path / "r").load("dashboard-aaaaaaaaaaaa") == before  # now in the database
    assert machine(db_url, tmp_path / "r", legacy).load("u-damaged") is None  # a damaged file is no memory
