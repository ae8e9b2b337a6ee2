"""A FastAPI TestClient of api.py on a temporary store, event log and knowledge base, as one user of the test keys."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: The API callers of the test clients (their requests are alice's unless a test passes other headers).
API_KEYS = {"alice": "key-alice-0123456789", "bob": "key-bob-0123456789", "mallory": "key-mallory-0123456789"}


def auth(user: str) -> dict[str, str]:
    """The headers of ``user``'s API key."""
    return {"Authorization": f"Bearer {API_KEYS[user]}"}


def api_test_client(
    tmp_path: Path, monkeypatch: Any, *, data_dir: Path, region: str, **extra_env: str
) -> Iterator[Any]:
    """api.py's app on ``data_dir``/``region`` with the offline provider, a SQLite store, event log and knowledge base
    under ``tmp_path``, and ``extra_env`` (``OMNI_*`` settings) on top; settings read afresh before and after."""
    from fastapi.testclient import TestClient

    from core.config import get_settings

    env = api_env(tmp_path, data_dir=data_dir, region=region, **extra_env)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    from api import app

    yield TestClient(app, headers=auth("alice"))
    get_settings.cache_clear()


def api_env(tmp_path: Path, *, data_dir: Path, region: str, **extra_env: str) -> dict[str, str]:
    """The ``OMNI_*`` settings of an API on ``data_dir``/``region`` with the offline provider and a store, event log
    and knowledge base under ``tmp_path`` (a TestClient's, or a server process's environment)."""
    from core.auth import key_digest

    (tmp_path / "kb").mkdir(exist_ok=True)
    return {
        "OMNI_DATA_DIR": str(data_dir),
        "OMNI_REGION": region,
        "OMNI_PROVIDER": "offline",
        "OMNI_DB_URL": f"sqlite:///{tmp_path / 'api.db'}",
        "OMNI_AGENT_EVENT_LOG": str(tmp_path / "ev.jsonl"),
        "OMNI_KB_DIR": str(tmp_path / "kb"),
        "OMNI_API_KEYS": json.dumps({user: key_digest(key) for user, key in API_KEYS.items()}),
        # a server a test starts serves cold, unless the test is about the warm start (tests/faces/
        # test_api_warm_start.py): the warm-up plans two half days, seconds of CPU per process on a loaded machine
        "OMNI_WARM_UP_ON_START": "0",
        **extra_env,
    }
