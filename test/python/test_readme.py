"""The README's Python example runs as written and prints what it says."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_readme_python_example(tmp_path):
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    section = readme.split("## Using Strata from Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[[4. 4.]]"
    assert (tmp_path / "net.strata").exists()
