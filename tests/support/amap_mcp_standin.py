"""The MCP stand-in (standins/amap_mcp.py, where the bench can use it too) and the recorded answers of
AMap's hosted MCP server kept in tests/fixtures/amap/mcp/."""

from __future__ import annotations

import json

from standins.amap_mcp import AMapMcpStandIn
from tests.support.paths import AMAP_FIXTURES

__all__ = ["MCP_FIXTURES", "AMapMcpStandIn", "recorded_text"]

MCP_FIXTURES = AMAP_FIXTURES / "mcp"


def recorded_text(name: str) -> str:
    """The text payload of a recorded tools/call answer."""
    message = json.loads((MCP_FIXTURES / name).read_text(encoding="utf-8"))
    return "".join(block["text"] for block in message["result"]["content"])
