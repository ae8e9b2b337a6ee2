"""Region packs: the bundled place data, its loader and its validator (data/README.md)."""
