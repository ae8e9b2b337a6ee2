"""The route planner page's components."""
