"""Omni-Travel Planner: the planning package (no Streamlit here)."""

__version__ = "0.1.0"
