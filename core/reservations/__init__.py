"""Reservations: one mock booking service behind a protocol, with real states, gates and a real database."""
