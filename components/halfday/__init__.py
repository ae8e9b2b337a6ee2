"""The half-day page's components."""
