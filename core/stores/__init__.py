"""Persistent stores (SQLite)."""
