"""Stand-ins of the remote services, for tests, benches and demos; not part of the product (core never imports
them). Each is a real HTTP server on 127.0.0.1 that behaves like the service: AMap's Web Service with its QPS,
quotas and error bodies (amap.py), and AMap's MCP server on the same key's limits (amap_mcp.py)."""
