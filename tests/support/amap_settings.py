"""Settings for a test that talks to a local AMap stand-in: the key, the stand-in's address, no pacing, no
retries (each test says what else differs)."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr

from core.config import Settings


def amap_settings(base_url: str, *, key: str = "test-amap-key-0123", **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "region": "shanghai",
        "provider": "amap",
        "amap_key": SecretStr(key),
        "amap_base_url": base_url,
        "amap_qps": 0,
        "http_retries": 0,
    }
    return Settings(**{**values, **overrides})
