"""Path settings mean what they say (issue 21 §5): an empty value is "none", never the working directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from core.config import Settings
from core.geo.cache import DiskResponseCache
from core.geo.registry import make_provider


@pytest.fixture
def elsewhere(tmp_path, monkeypatch) -> Path:
    """Run from an empty folder: whatever an empty path would write lands here, where the test looks."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("name", ["cache_dir", "agent_event_log", "kb_dir"])
@pytest.mark.parametrize("empty", ["", "   "])
def test_an_empty_optional_path_is_none(monkeypatch, name, empty):
    monkeypatch.setenv(f"OMNI_{name.upper()}", empty)
    assert getattr(Settings(), name) is None


def test_an_empty_data_dir_is_refused_with_the_setting_named(monkeypatch):
    monkeypatch.setenv("OMNI_DATA_DIR", "")
    with pytest.raises(ValidationError, match="data_dir") as caught:
        Settings()
    assert "is empty" in str(caught.value)


def test_an_empty_cache_dir_keeps_answers_in_memory_and_writes_nothing(elsewhere, monkeypatch):
    monkeypatch.setenv("OMNI_CACHE_DIR", "")
    provider = make_provider("offline", region="shanghai", settings=Settings())
    assert not isinstance(provider.cache, DiskResponseCache)
    provider.geocode("外滩")
    assert os.listdir(elsewhere) == []


def test_an_empty_event_log_writes_no_log_and_the_agent_still_answers(elsewhere, monkeypatch, tmp_path):
    from core.agent.telemetry import live_metrics
    from core.app import AppServices
    from core.app.agent import ask

    settings = Settings(agent_event_log="", kb_dir="", db_url=f"sqlite:///{tmp_path / 'a.db'}", cache_dir="")
    r = ask(AppServices(settings).context(user="u", lang="en"), {"message": "What's the weather tomorrow?"})
    assert r.result.status == "OK"
    assert [p for p in os.listdir(elsewhere) if not p.startswith("a.db")] == []  # the database itself aside
    assert live_metrics(settings.agent_event_log)["requests"] == 0
