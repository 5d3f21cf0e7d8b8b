"""Helpers shared by the test/quant tests (imported by name: pytest puts
this folder on sys.path): the strata binary and running it."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")


def strata(*args):
    """Runs `strata ARGS...` (5 min timeout); the CompletedProcess."""
    return subprocess.run([STRATA, *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def ok(r):
    """Asserts that `r` exited 0 (showing its stderr otherwise); returns it."""
    assert r.returncode == 0, r.stderr
    return r
