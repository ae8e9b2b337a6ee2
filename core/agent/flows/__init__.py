"""The gated flows of System 2: conditional branches, browsing, commit requests and confirmations."""
