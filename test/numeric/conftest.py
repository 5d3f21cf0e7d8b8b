"""pytest fixtures for the numeric tests; the harness is numeric_harness.py."""
from numeric_harness import rng  # noqa: F401  (fixture)
