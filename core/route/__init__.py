"""The multi-stop route planner: resolve places, order the stops, rank, link and export (docs/ARCHITECTURE.md)."""
