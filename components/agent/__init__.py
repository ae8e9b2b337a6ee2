"""The agent console's components."""
