#!/usr/bin/env bash
# Runs one of Strata's libFuzzer targets for a bounded time and says whether it
# found a crash.
#
# usage: scripts/run-fuzz.sh [SECONDS] [BUILD] [TARGET]
#        defaults: 60 build-asan onnx
# TARGET: onnx (fuzz/onnx_import_fuzzer.cpp: the ONNX importer, the optimizer
#         and a bounded interpreter run), tflite
#         (fuzz/tflite_import_fuzzer.cpp: the TFLite importer, the same
#         checks after it), npz (fuzz/npz_fuzzer.cpp: the
#         npz/npy reader), mlir (fuzz/mlir_fuzzer.cpp: the .mlir reader
#         and verifier) or artifact (fuzz/artifact_fuzzer.cpp: the runtime's
#         .strata loader and verifier).
#
# Needs BUILD/bin/strata-TARGET-fuzzer (`make build-asan` builds them; the
# onnx one is strata-onnx-import-fuzzer). Seeds (fuzz/make-corpus.py for
# onnx, BUILD/bin/strata-artifact-seeds for artifact, fuzz/make-seeds.py for
# the others) and the dictionary are made fresh
# in BUILD/fuzz/TARGET/; new inputs accumulate in BUILD/fuzz/TARGET/corpus
# across runs; a crash is written to BUILD/fuzz/TARGET/crashes/. Past crash
# inputs kept as regressions (test/onnx/fuzz-regressions/*.onnx,
# test/negative/fuzz-regressions/TARGET/*) are seeds too. Exit 0: no crash;
# 1: a crash (or leak, timeout, out-of-memory); 2: the fuzzer could not run.
# FUZZ_ARGS adds libFuzzer flags (e.g. FUZZ_ARGS=-jobs=2).
# FUZZ_SEED=N makes the run reproducible: libFuzzer's -seed=N and a corpus that
# starts empty (BUILD/fuzz/TARGET/corpus-seedN, cleared first), so that the
# same tree runs the same inputs in the same order on any machine (a slower
# one runs a prefix of them). `make test` runs this way; without FUZZ_SEED the
# seed is random and the corpus accumulates (`make fuzz`).
set -uo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-60}
BUILD=${2:-build-asan}
TARGET=${3:-onnx}
case "$TARGET" in
  onnx) BIN=$BUILD/bin/strata-onnx-import-fuzzer ;;
  tflite) BIN=$BUILD/bin/strata-tflite-import-fuzzer ;;
  npz|mlir|artifact) BIN=$BUILD/bin/strata-$TARGET-fuzzer ;;
  *) echo "run-fuzz: unknown target '$TARGET' (onnx, tflite, npz, mlir or artifact)"; exit 2 ;;
esac
WORK=$BUILD/fuzz/$TARGET
if [ ! -x "$BIN" ]; then
  echo "run-fuzz: $BIN not found; build it with 'make build-asan' (STRATA_BUILD_FUZZERS=ON)"
  exit 2
fi
CORPUS=$WORK/corpus
SEED_ARGS=()
if [ -n "${FUZZ_SEED:-}" ]; then
  case "$FUZZ_SEED" in
    ''|*[!0-9]*) echo "run-fuzz: FUZZ_SEED must be a number, not '$FUZZ_SEED'"; exit 2 ;;
  esac
  CORPUS=$WORK/corpus-seed$FUZZ_SEED
  rm -rf "$CORPUS"
  SEED_ARGS=(-seed="$FUZZ_SEED")
fi
mkdir -p "$CORPUS" "$WORK/crashes"
rm -rf "$WORK/seeds"
if [ "$TARGET" = onnx ]; then
  .venv/bin/python fuzz/make-corpus.py "$WORK/seeds" --dict "$WORK/$TARGET.dict" || exit 2
  # A regression input is a seed too: the fuzzer starts from what broke before.
  cp test/onnx/fuzz-regressions/*.onnx "$WORK/seeds/" 2>/dev/null
elif [ "$TARGET" = artifact ]; then
  mkdir -p "$WORK/seeds"
  "$BUILD/bin/strata-artifact-seeds" "$WORK/seeds" || exit 2
  printf '%s\n' '"STRATA\x00\x00"' '"cpu"' '"elf-x86_64"' '"copy"' \
    '"add_f32"' '"matmul_f32"' > "$WORK/$TARGET.dict"
  cp test/negative/fuzz-regressions/"$TARGET"/* "$WORK/seeds/" 2>/dev/null
else
  # mlir: bytecode seeds are written by the build's strata-opt (every Strata
  # dialect registered); the corrupted bytecode MLIR's reader crashes on
  # (test/tosa/corrupt) seeds the child-process check.
  [ -x "$BUILD/bin/strata-opt" ] && export MLIR_OPT="$(cd "$BUILD" && pwd)/bin/strata-opt"
  .venv/bin/python fuzz/make-seeds.py "$TARGET" "$WORK/seeds" --dict "$WORK/$TARGET.dict" || exit 2
  cp test/negative/fuzz-regressions/"$TARGET"/* "$WORK/seeds/" 2>/dev/null
  [ "$TARGET" = mlir ] && cp test/tosa/corrupt/*.mlirbc "$WORK/seeds/"
fi

# allow_user_poisoning=0: see scripts/run-tests.sh (uninstrumented libMLIR).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
log=$WORK/fuzz.log
# -timeout: seconds per input; -rss_limit_mb / -malloc_limit_mb: a small
# model must not make the importer allocate gigabytes.
# shellcheck disable=SC2086
"$BIN" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2560 -malloc_limit_mb=1024 \
  -dict="$WORK/$TARGET.dict" -artifact_prefix="$WORK/crashes/" -print_final_stats=1 \
  "${SEED_ARGS[@]}" ${FUZZ_ARGS:-} "$CORPUS" "$WORK/seeds" > "$log" 2>&1
rc=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
crash=$(grep -o 'Test unit written to .*' "$log" | sed 's/Test unit written to //' | tail -1)
if [ $rc -eq 0 ] && [ -z "$crash" ]; then
  echo "run-fuzz: $TARGET: no crash in ${runs:-?} runs over ${SECS} s (${speed:-?} exec/s${FUZZ_SEED:+, seed $FUZZ_SEED}); corpus $CORPUS"
  exit 0
fi
grep -E 'ERROR: |SUMMARY: |runtime error:|_fuzzer: ' "$log" | head -5
if [ -n "$crash" ]; then
  echo "run-fuzz: $TARGET: FAILED after ${runs:-?} runs: crash input $crash (log $log)"
  if [ "$TARGET" = onnx ]; then keep=test/onnx/fuzz-regressions/NAME.onnx
  else keep=test/negative/fuzz-regressions/$TARGET/NAME; fi
  echo "  reproduce: $BIN $crash ; keep it as $keep"
  # What a CI log's tail must carry to act on the crash without the machine:
  # the first frames of the stack and, when small, the input itself.
  # (libFuzzer's and the C library's own frames of a signal left out)
  frames=$(grep -E '^ +#[0-9]+ 0x' "$log" | sed -E 's/^ +#([0-9]+) 0x[0-9a-f]+ in /#\1 /' |
    grep -vE '__sanitizer|fuzzer::|libc\.so|libstdc\+\+\.so.*(terminate|__cxa_)|\b(raise|abort|gsignal|__pthread_kill[a-z_]*)\b' |
    head -10 | tr '\n' ';')
  [ -n "$frames" ] && echo "  stack: $frames"
  size=$(stat -c %s "$crash" 2>/dev/null || echo 0)
  if [ "$size" -gt 0 ] && [ "$size" -le 4096 ]; then
    echo "  input ($size bytes, base64): $(base64 -w0 "$crash")"
  fi
  exit 1
fi
echo "run-fuzz: the fuzzer exited with $rc (log $log)"
tail -5 "$log"
exit 2
