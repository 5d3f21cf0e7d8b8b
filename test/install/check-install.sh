#!/usr/bin/env bash
# Installs the build in $1 (default: build) into a temporary prefix, then
# configures, builds and runs examples/tpulang-cnn against the installed
# package with find_package(Strata) only, and checks that it writes a model
# strata-opt accepts. Prints "install check: OK" on success.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build}" && pwd)"
LLVM_BIN=/usr/lib/llvm-22/bin
WORK="$(mktemp -d "${TMPDIR:-/tmp}/strata-install-check.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"

echo "== install $BUILD -> $PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log"
test -f "$PREFIX/lib/cmake/Strata/StrataConfig.cmake"
test -f "$PREFIX/include/strata/TpuLang/TpuLang.h"
test -f "$PREFIX/include/strata/Dialect/Top/IR/TopOps.h.inc"

echo "== configure examples/tpulang-cnn against the installed package"
CC_ARGS=()
if [ -x "$LLVM_BIN/clang++" ]; then
  CC_ARGS=(-DCMAKE_CXX_COMPILER="$LLVM_BIN/clang++")
fi
if command -v ninja >/dev/null; then GEN=(-G Ninja); else GEN=(); fi
cmake "${GEN[@]}" -S "$ROOT/examples/tpulang-cnn" -B "$WORK/cnn" \
  -DCMAKE_BUILD_TYPE=Release "${CC_ARGS[@]}" \
  -DStrata_DIR="$PREFIX/lib/cmake/Strata" >"$WORK/configure.log" ||
  { cat "$WORK/configure.log"; exit 1; }
echo "== build"
cmake --build "$WORK/cnn" >"$WORK/build.log" 2>&1 ||
  { cat "$WORK/build.log"; exit 1; }
echo "== run"
"$WORK/cnn/tpulang-cnn" "$WORK/out"
test -s "$WORK/out/cnn_origin.mlir"
test -s "$WORK/out/cnn_TOP_F32_all_weight.npz"
"$PREFIX/bin/strata-opt" "$WORK/out/cnn_origin.mlir" -o /dev/null
echo "install check: OK"
