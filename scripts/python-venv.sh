#!/usr/bin/env bash
# scripts/python-venv.sh DIR: a clean venv at DIR (Debian's python3, no
# system site-packages) with the wheel of dist/ (make python) installed: the
# Python package's tests run against this installed copy, not the source
# tree. Third-party packages (numpy, onnx, onnxruntime, pytest, the model
# files) are not installed again: a .pth file appends .venv's site-packages
# to the path, after the venv's own, so `strata` can only come from the wheel
# (.venv has no strata; test/python/conftest.py checks where it came from).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$1
wheel=$(ls dist/strata-*.whl 2>/dev/null | head -1)
if [ -z "$wheel" ]; then
  echo "python-venv: no wheel in dist/ (make python builds it)" >&2
  exit 1
fi
rm -rf "$DIR"
/usr/bin/python3 -m venv --without-pip "$DIR"
purelib() { "$1" -c 'import sysconfig; print(sysconfig.get_path("purelib"))'; }
site=$(purelib "$DIR/bin/python")
third=$(purelib "$PWD/.venv/bin/python")
echo "$third" > "$site/zz-third-party.pth"
.venv/bin/pip install -q --no-deps --no-index --target "$site" "$wheel"
