"""Benchmarks of the solver and the browser table (run as scripts; see benchmarks/README.md)."""
