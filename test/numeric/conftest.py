"""pytest fixtures for the numeric tests; the harness is numeric_harness.py."""
import pytest

from numeric_harness import COMPILED, rng  # noqa: F401  (fixture)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "interpreter_only: checks the reference interpreter's own "
        "behaviour (a run-time error message); skipped when "
        "STRATA_NUMERIC_BACKEND=compiled")


def pytest_collection_modifyitems(config, items):
    if not COMPILED:
        return
    skip = pytest.mark.skip(reason="interpreter_only")
    for item in items:
        if "interpreter_only" in item.keywords:
            item.add_marker(skip)
