"""The HTTP API's routers, one module per group of operations (api.py builds the app and includes them): what they
share (``shared``), the reservations, the half-day planner, and what is remembered of a user."""
