"""The half-day local planner (半日闲): a goal sentence → seven stages → 2–3 scored plans with risks → mock
reservations through the reservation service's gates, streamed as events (docs/ARCHITECTURE.md, "Half-day")."""
