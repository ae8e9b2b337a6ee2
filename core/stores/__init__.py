"""Persistent stores on the one database (``OMNI_DB_URL``, SQLite or PostgreSQL; core/stores/db.py)."""
