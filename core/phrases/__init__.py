"""Phrases every domain reads the same way (days, …): below the domains, importing only core.models, core.config,
core.errors, core.i18n and the standard library."""
