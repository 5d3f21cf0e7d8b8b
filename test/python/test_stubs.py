"""The checked-in type stubs of strata._core (python/strata/_core/*.pyi) are
what nanobind's stubgen writes for the installed extension; `make
python-stubs` regenerates them after a binding changes."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_stubs_are_current(tmp_path):
    pytest.importorskip("nanobind")
    p = subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "strata._core",
                        "-r", "-O", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    import strata
    installed = os.path.join(os.path.dirname(strata.__file__), "_core")
    for name in ("__init__.pyi", "tpulang.pyi"):
        generated = (tmp_path / "_core" / name).read_text()
        with open(os.path.join(ROOT, "python", "strata", "_core", name)) as f:
            assert f.read() == generated, f"python/strata/_core/{name} is stale: run make python-stubs"
        with open(os.path.join(installed, name)) as f:
            assert f.read() == generated, f"the wheel's _core/{name} differs"
