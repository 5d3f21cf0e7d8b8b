#!/usr/bin/env bash
# Runs every test suite against the build in $1 (default: build) and ends with
# one summary line "N passed, M failed". Suites: lit/FileCheck (test/**/*.mlir),
# GoogleTest (ctest), pytest (test/numeric, test/negative, test/onnx, test/tosa, test/python,
# test/models, test/equiv).
# With a third argument ASAN_BUILD, the bad-input suites (invalid*.mlir and
# test/negative) run again against that ASan + UBSan build, and the fuzzers
# (ONNX importer + optimizer, npz reader, .mlir reader, artifact loader) run
# for a bounded time, each as one test.
# pytest runs STRATA_TEST_JOBS workers (default 2).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
ASAN_BUILD=${3:-}
export STRATA_BIN_DIR="$PWD/$BUILD/bin"
export PATH="/usr/lib/llvm-22/bin:$PATH"
PY=.venv/bin/python
passed=0
failed=0
report=$(mktemp -d)

run_lit() {
  local filter=${1:-}
  local args=(-sv --xunit-xml-output "$report/lit.xml")
  [ -n "$filter" ] && args+=(--filter "$filter")
  rm -f "$report/lit.xml"
  lit "${args[@]}" "$BUILD/test"
  if [ ! -f "$report/lit.xml" ]; then failed=$((failed + 1)); return; fi
  local p f
  p=$(grep -o 'tests="[0-9]*"' "$report/lit.xml" | head -1 | grep -o '[0-9]*')
  f=$(( $(grep -o 'failures="[0-9]*"' "$report/lit.xml" | head -1 | grep -o '[0-9]*') ))
  passed=$((passed + p - f)); failed=$((failed + f))
}

run_pytest() {
  local dirs=() d
  for d in "${@:2}"; do [ -e "$d" ] && dirs+=("$d"); done
  # Two workers (pytest-xdist), each taking whole files so that a module's
  # fixtures (the benchmark models, the equivalence inputs) are built once.
  "$PY" -m pytest -q -p no:cacheprovider -n "${STRATA_TEST_JOBS:-2}" --dist loadfile \
    --junitxml "$report/pytest-$1.xml" ${PYTEST_K:+-k "$PYTEST_K"} "${dirs[@]}"
  local rc=$?
  if [ $rc -eq 5 ]; then return; fi # no tests collected
  if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then # usage or internal error
    echo "pytest exited with $rc"; failed=$((failed + 1)); return
  fi
  local t f e s
  t=$(grep -o 'tests="[0-9]*"' "$report/pytest-$1.xml" | head -1 | grep -o '[0-9]*')
  f=$(grep -o 'failures="[0-9]*"' "$report/pytest-$1.xml" | head -1 | grep -o '[0-9]*')
  e=$(grep -o 'errors="[0-9]*"' "$report/pytest-$1.xml" | head -1 | grep -o '[0-9]*')
  s=$(grep -o 'skipped="[0-9]*"' "$report/pytest-$1.xml" | head -1 | grep -o '[0-9]*')
  passed=$((passed + t - f - e - s)); failed=$((failed + f + e))
}

run_ctest() {
  ctest --test-dir "$BUILD" --output-on-failure --output-junit "$report/ctest.xml" "$@"
  [ -f "$report/ctest.xml" ] || return
  local t f
  t=$(grep -o 'tests="[0-9]*"' "$report/ctest.xml" | head -1 | grep -o '[0-9]*')
  f=$(grep -o 'failures="[0-9]*"' "$report/ctest.xml" | head -1 | grep -o '[0-9]*')
  passed=$((passed + t - f)); failed=$((failed + f))
}

# phase NAME: closes the previous phase's clock and starts NAME's; the times
# are printed next to the summary (a CI log's tail says where the time went).
times=${STRATA_BUILD_TIMES:-}
phase_name=""
phase_start=$SECONDS
phase() {
  [ -n "$phase_name" ] && times="$times $phase_name $((SECONDS - phase_start))s,"
  phase_name=$1
  phase_start=$SECONDS
}

phase lit; echo "== lit / FileCheck =="; run_lit
phase gtest; echo "== GoogleTest =="; run_ctest
phase pytest; echo "== pytest =="; run_pytest all test/numeric test/negative test/onnx test/tflite test/compiled test/models test/equiv test/tosa test/quant test/npusim test/npuhl test/npulower
# The Python package from its wheel (make python), installed in a clean venv.
phase wheel; echo "== Python package (installed wheel) =="
if scripts/python-venv.sh "$BUILD/python-venv"; then
  PY="$BUILD/python-venv/bin/python" run_pytest python test/python
else
  failed=$((failed + 1))
fi
# The same numeric tests through the compiled path (strata compile --target
# cpu, strata run); ops without a CPU lowering yet are expected failures.
phase compiled-numeric; echo "== numeric tests, compiled for the CPU =="
STRATA_NUMERIC_BACKEND=compiled run_pytest compiled-numeric test/numeric
if [ -f test/onnx/conformance-subset.txt ]; then
  phase onnx-conformance; echo "== ONNX node tests (fixed subset; full run: scripts/onnx-conformance) =="
  "$PY" scripts/onnx-conformance --bin "$BUILD/bin" --subset test/onnx/conformance-subset.txt \
    --json "$report/conformance.json" > "$report/conformance.log" 2>&1
  cat "$report/conformance.log"
  line=$(tail -1 "$report/conformance.log")
  if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
  else
    failed=$((failed + 1))
  fi
fi
if [ -n "$ASAN_BUILD" ]; then
  phase asan-bad-input; echo "== bad-input suites under ASan + UBSan ($ASAN_BUILD) =="
  # allow_user_poisoning=0: libMLIR/libLLVM are not instrumented, but the
  # allocator templates of their headers (BumpPtrAllocator) poison memory when
  # inlined into our instrumented code; storage that libMLIR later carves from
  # such a slab stays poisoned and reads of it are false use-after-poison
  # reports (Silero VAD's LSTM attributes hit it).
  export ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:allow_user_poisoning=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  BUILD=$ASAN_BUILD run_lit "invalid"
  STRATA_BIN_DIR="$PWD/$ASAN_BUILD/bin" run_pytest asan test/negative
  # Every numeric test (about 3 minutes under ASan) and the three small real
  # models; `make test-asan-numeric` adds the large ones.
  phase asan-numeric; echo "== numeric tests and small real models under ASan + UBSan =="
  STRATA_BIN_DIR="$PWD/$ASAN_BUILD/bin" run_pytest asan-numeric test/numeric
  STRATA_BIN_DIR="$PWD/$ASAN_BUILD/bin" PYTEST_K="ppocr_cls or silero_vad or magika" \
    run_pytest asan-models test/models
  # Each fuzzer counts as one test: onnx for STRATA_FUZZ_SECONDS (default
  # 60), the npz and .mlir readers and the artifact loader for a third of that
  # each. The onnx fuzzer runs beside the other three (one core each).
  # The runs are seeded (STRATA_FUZZ_SEED, default 1; corpus starting empty):
  # a fresh clone runs the same inputs here as in CI, so a crash that CI would
  # meet shows in any local `make test` first. Open-ended fuzzing with random
  # seeds and a growing corpus is `make fuzz`.
  export FUZZ_SEED=${STRATA_FUZZ_SEED:-1}
  fuzz_secs=${STRATA_FUZZ_SECONDS:-60}
  third=$(( (fuzz_secs + 2) / 3 ))
  phase fuzzers; echo "== fuzzers: onnx ($fuzz_secs s) beside npz, mlir, artifact ($third s each) =="
  scripts/run-fuzz.sh "$fuzz_secs" "$ASAN_BUILD" onnx > "$report/fuzz-onnx.log" 2>&1 &
  onnx_pid=$!
  for target in npz mlir artifact; do
    if scripts/run-fuzz.sh "$third" "$ASAN_BUILD" "$target" | tee "$report/fuzz-$target.log"; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); cat "$report/fuzz-$target.log" >> "$report/recap"
    fi
  done
  if wait "$onnx_pid"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); cat "$report/fuzz-onnx.log" >> "$report/recap"
  fi
  cat "$report/fuzz-onnx.log"
  # The TFLite importer's fuzzer, a few seconds (STRATA_TFLITE_FUZZ_SECONDS).
  if scripts/run-fuzz.sh "${STRATA_TFLITE_FUZZ_SECONDS:-10}" "$ASAN_BUILD" tflite | tee "$report/fuzz-tflite.log"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); cat "$report/fuzz-tflite.log" >> "$report/recap"
  fi
fi
phase end
echo
times=${times%,}
echo "time per phase: ${times# } (tests $((SECONDS / 60)) min $((SECONDS % 60)) s)"
# A failing fuzzer's details again, last: a CI log is often read from its tail.
[ -s "$report/recap" ] && { echo "== failed fuzzers, again =="; cat "$report/recap"; }
rm -rf "$report"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
