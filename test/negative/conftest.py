"""pytest fixtures for the bad-input tests; helpers are in negative_harness.py."""
from negative_harness import model_dir  # noqa: F401  (fixture)
