"""Benchmarks behind ``python -m core bench ...`` and the instance readers they use."""
