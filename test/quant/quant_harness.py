"""Helpers shared by the test/quant tests (imported by name: pytest puts
this folder on sys.path): the strata binary and running it."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "compiled"))
# The binary's location and `strata(*args)` (5 min timeout) are the
# compiled tests' (test/compiled/cpu_isa_harness.py).
from cpu_isa_harness import BIN, ROOT, STRATA, strata  # noqa: E402,F401


def ok(r):
    """Asserts that `r` exited 0 (showing its stderr otherwise); returns it."""
    assert r.returncode == 0, r.stderr
    return r
