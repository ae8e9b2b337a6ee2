"""Action families of the agent (one module each); the registry is in registry.py."""
