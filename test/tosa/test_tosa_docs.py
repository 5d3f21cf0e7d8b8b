"""docs/tosa.md's supported-op table is what scripts/gen-tosa-doc.py makes
from the tests now (run the script after changing the tests)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_supported_op_table_is_current():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-tosa-doc.py"),
                        "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
