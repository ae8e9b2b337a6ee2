"""The strategy lab's per-user memory (core/app/lab_memory.py): each user gets back their own, and a damaged
file is no memory rather than an error."""

from __future__ import annotations

from core.app.lab_memory import LabMemory, LabMemoryStore, LabResultRef


def test_each_user_reads_back_only_their_own_settings_and_result(tmp_path):
    store = LabMemoryStore(tmp_path / "users")
    alice = LabMemory(
        settings={"lab_strategies": ["fastest_time"], "lab_limit": 3},
        result=LabResultRef(path="/x/alice.parquet", name="alice", signature="abc"),
    )
    store.save("dashboard-aaaaaaaaaaaa", alice)
    store.save("dashboard-bbbbbbbbbbbb", LabMemory(settings={"lab_modes": ["walking"]}))

    assert store.load("dashboard-aaaaaaaaaaaa") == alice
    other = store.load("dashboard-bbbbbbbbbbbb")
    assert other is not None and other.result is None and other.settings == {"lab_modes": ["walking"]}
    assert store.load("dashboard-cccccccccccc") is None
    # the file names do not carry the user ids (an id with a slash is no path either)
    names = sorted(p.name for p in (tmp_path / "users").iterdir())
    assert len(names) == 2 and not any("dashboard" in n for n in names)
    store.save("../../etc/evil", LabMemory())
    assert len(list((tmp_path / "users").iterdir())) == 3


def test_a_damaged_memory_file_is_no_memory(tmp_path):
    store = LabMemoryStore(tmp_path)
    store.save("u1", LabMemory(settings={"lab_seed": 4}))
    (path,) = tmp_path.glob("*.json")
    path.write_text("{not json", encoding="utf-8")
    assert store.load("u1") is None
