#!/usr/bin/env bash
# Installs the build in $1 (default: build) into a temporary prefix, then
# configures, builds and runs examples/tpulang-cnn against the installed
# package with find_package(Strata) only, and checks that it writes a model
# strata-opt accepts. Then builds examples/runtime-c, a C program that finds
# the package with COMPONENTS Runtime (no MLIR) and links only
# Strata::Runtime, and runs an artifact written by the build's
# strata-example-artifact through it. Prints "install check: OK" on success.
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

echo "== configure examples/runtime-c (C, Strata::Runtime only, no MLIR_DIR)"
test -f "$PREFIX/include/strata/Runtime/strata_runtime.h"
test -f "$PREFIX/lib/cmake/Strata/StrataRuntimeTargets.cmake"
C_ARGS=()
if [ -x "$LLVM_BIN/clang" ]; then
  C_ARGS=(-DCMAKE_C_COMPILER="$LLVM_BIN/clang" -DCMAKE_CXX_COMPILER="$LLVM_BIN/clang++")
fi
cmake "${GEN[@]}" -S "$ROOT/examples/runtime-c" -B "$WORK/rt" \
  -DCMAKE_BUILD_TYPE=Release "${C_ARGS[@]}" -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON \
  -DStrata_DIR="$PREFIX/lib/cmake/Strata" >"$WORK/rt-configure.log" ||
  { cat "$WORK/rt-configure.log"; exit 1; }
cmake --build "$WORK/rt" >"$WORK/rt-build.log" 2>&1 ||
  { cat "$WORK/rt-build.log"; exit 1; }
if grep -qiE 'mlir|llvm-22/lib' "$WORK/rt/build.ninja" 2>/dev/null; then
  echo "runtime-c links something of MLIR/LLVM"; exit 1
fi
echo "== run an artifact through the C API"
"$BUILD/bin/strata-example-artifact" "$WORK/example.strata"
"$WORK/rt/runtime-c" "$WORK/example.strata" 1 | tee "$WORK/rt.out"
# y = (x + x) @ (0.5 I) = x, for x = 1..8 in the batch-2 variant.
grep -qx "output 0 'y' f32 \[2, 4\]: 1 2 3 4 5 6 7 8" "$WORK/rt.out"
echo "install check: OK"
