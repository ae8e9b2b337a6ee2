"""Contracts (pydantic v2) at every boundary."""
