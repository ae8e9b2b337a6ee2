"""What the project remembers of a person across requests (seed 001 §7 memory): typed rules they stated (``rules``),
episodic snippets of past turns and confirmed plans recalled by similarity (``vectors``, ``store``), and the agent's
conversations (``conversations``). Per user, in the shared database (Alembic revision 0006)."""
