"""``python -m core reservations``: a dry run, a consented booking, the list, and another user's cancel refused."""

from __future__ import annotations

import json
import os

import pytest


@pytest.fixture
def run(core_cli):
    """``python -m core reservations ARGS`` in this process (tests/support/cli.py), on its own database."""
    env = {name: value for name, value in os.environ.items() if name.startswith("OMNI_")}
    return lambda tmp_path, *args: core_cli(
        "reservations", *args, env={**env, "OMNI_DB_URL": f"sqlite:///{tmp_path / 'cli.db'}", "OMNI_REGION": "shanghai"}
    )


def test_book_list_and_cancel_from_the_command_line(tmp_path, run):
    book = ["book", "--user", "alice", "--item", "sh-jiajia-tangbao", "--date", "2030-01-05", "--time", "19:00",
            "--party", "2"]  # fmt: skip
    dry = json.loads(run(tmp_path, *book).stdout)
    assert dry["action"] == "reserve" and dry["reservation"]["status"] == "quoted" and dry["token"]
    done = json.loads(run(tmp_path, *book, "--yes").stdout)
    assert done["reservation"]["status"] == "confirmed" and done["reservation"]["quote"]["total"] == 80.0
    listed = json.loads(run(tmp_path, "list", "--user", "alice").stdout)
    assert [r["status"] for r in listed] == ["confirmed"]  # the first dry run was a quote, never confirmed
    assert [t["to_status"] for t in listed[0]["transitions"]] == ["pending", "confirmed"]
    refused = run(tmp_path, "cancel", "--user", "bob", "--id", done["reservation"]["id"], "--yes")
    assert refused.returncode == 2 and json.loads(refused.stderr)["error"]["code"] == "NOT_FOUND"
    cancelled = json.loads(
        run(tmp_path, "cancel", "--user", "alice", "--id", done["reservation"]["id"], "--yes").stdout
    )
    assert cancelled["reservation"]["status"] == "cancelled"
    full = run(tmp_path, "book", "--user", "alice", "--item", "sh-bund", "--date", "2030-01-05", "--time", "10:00",
               "--party", "2")  # fmt: skip
    assert full.returncode == 2 and json.loads(full.stderr)["error"]["code"] == "NOT_BOOKABLE"
