"""Paths the tests share: the project root and the fixtures kept inside tests/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
AMAP_FIXTURES = FIXTURES / "amap"
SITE_DIR = FIXTURES / "site"


def amap_fixture(name: str) -> dict:
    """A recorded AMap body (copied from the verified AMap documentation's fixtures into tests/fixtures/amap)."""
    import json

    return json.loads((AMAP_FIXTURES / name).read_text(encoding="utf-8"))
