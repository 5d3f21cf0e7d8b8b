"""Runs a bad-input script in a subprocess (a crash fails the test, not the
test run) and checks that each attempt raised strata.Error with the expected
message. The script calls attempt(lambda: ...) once per case; it sees
`strata`, `np` and `attempt`, and sys.argv[1] is this folder (for importing
a test module's helpers)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

PRELUDE = """
import sys
import numpy as np
import strata


def attempt(f):
    try:
        f()
        print("NO ERROR")
    except strata.Error as e:
        print("ERROR", str(e).replace(chr(10), " "))


sys.path.insert(0, sys.argv[1])
"""


def check_errors(script, expected, cwd=None, timeout=300):
    """Runs PRELUDE + `script`; each output line must be "ERROR ..." holding
    the matching entry of `expected`."""
    p = subprocess.run([sys.executable, "-c", PRELUDE + script, HERE], capture_output=True,
                       text=True, timeout=timeout, cwd=cwd)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == len(expected), p.stdout
    for line, want in zip(lines, expected):
        assert line.startswith("ERROR") and want in line, (line, want)
