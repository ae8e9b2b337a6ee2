"""Benchmarks behind ``python -m bench ...`` (and ``python -m core bench ...``) and the instance readers they use.

Not part of the product: bench imports core, nothing in core, components, pages, app.py or api.py imports bench
(`lint-imports`)."""
