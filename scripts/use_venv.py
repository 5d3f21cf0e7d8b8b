"""Makes a script that needs the project's Python packages (numpy, onnx,
onnxruntime) run with the project's .venv interpreter.

The scripts start with `#!/usr/bin/env python3`, which is whatever python3 is
first on PATH. Before importing any third-party package they call
`use_venv.reexec()`: when .venv exists and the running interpreter is not
its python, the script is executed again with .venv/bin/python and the same
arguments. Without a .venv (a system with the packages installed) nothing
changes.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv")


def reexec():
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        return
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    script = os.path.abspath(sys.argv[0])
    os.execv(python, [python, script, *sys.argv[1:]])
