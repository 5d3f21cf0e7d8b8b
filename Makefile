# Strata: `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD ?= build
CMAKE_FLAGS ?=
LLVM_BIN := /usr/lib/llvm-22/bin

.PHONY: all setup configure build build-asan demo test test-equiv-big test-npuhl-models test-npulower-models test-asan-numeric fuzz python python-stubs clean

all: build

setup:
	@./scripts/setup.sh

$(BUILD)/build.ninja: | setup
	cmake -G Ninja -S . -B $(BUILD) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=$(LLVM_BIN)/clang -DCMAKE_CXX_COMPILER=$(LLVM_BIN)/clang++ \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
	  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
	  -DPython3_EXECUTABLE=$(CURDIR)/.venv/bin/python $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: setup configure
	ninja -C $(BUILD)

demo: build
	@./scripts/demo.sh $(BUILD)

# Every suite on the release build, then the bad-input suites again on an
# ASan + UBSan build; one summary line at the end.
# The builds run in turn and are timed; run-tests.sh prints their times with
# its own per-phase times next to the summary.
test: setup
	@t0=$$(date +%s); $(MAKE) --no-print-directory build || exit 1; \
	t1=$$(date +%s); $(MAKE) --no-print-directory build-asan || exit 1; \
	t2=$$(date +%s); $(MAKE) --no-print-directory python || exit 1; \
	t3=$$(date +%s); \
	STRATA_BUILD_TIMES="build $$((t1 - t0))s, build-asan $$((t2 - t1))s, wheel $$((t3 - t2))s," \
	  ./scripts/run-tests.sh $(BUILD) all build-asan

# The Python package's wheel (docs/python.md) into dist/: scikit-build-core
# builds strata._core and the strata executable in $(BUILD) itself (same
# compiler and flags; -DSTRATA_BUILD_PYTHON=ON), reusing its objects.
python: setup
	CMAKE_BUILD_PARALLEL_LEVEL=2 .venv/bin/pip wheel -q --no-build-isolation --no-deps \
	  --config-settings=build-dir=$(BUILD) -w dist .

# Regenerates the checked-in stubs of strata._core from the installed wheel.
python-stubs: python
	./scripts/python-venv.sh $(BUILD)/python-venv
	$(BUILD)/python-venv/bin/python -m nanobind.stubgen -q -m strata._core -r -O python/strata

# The pass-equivalence tests (test/equiv) also on the larger real models:
# PP-OCRv4 det/rec, ResNet-50 and the BERT-style encoder (a few minutes).
test-equiv-big: build
	STRATA_BIN_DIR=$(CURDIR)/$(BUILD)/bin STRATA_EQUIV_BIG=1 .venv/bin/python -m pytest -q test/equiv

# int8 ResNet-50 and MobileNetV2 (NCHW and NHWC inputs) converted to the
# NPU's HL dialect: the same bytes as the Top int8 model (docs/npu.md; minutes).
test-npuhl-models: build
	STRATA_BIN_DIR=$(CURDIR)/$(BUILD)/bin STRATA_NPUHL_MODELS=1 .venv/bin/python -m pytest -q test/npuhl/test_npuhl_models.py

# int8 MobileNetV2 and ResNet-50 on npu-sim against the CPU int8 path (minutes).
test-npulower-models: build
	STRATA_BIN_DIR=$(CURDIR)/$(BUILD)/bin STRATA_NPULOWER_MODELS=1 .venv/bin/python -m pytest -q test/npulower/test_npulower_models.py

# Every numeric test and real model against the ASan + UBSan build (make test
# runs the numeric tests and the three small models; this adds PP-OCRv4 det/rec,
# ResNet-50, MobileNetV2 and the BERT-style encoder).
test-asan-numeric: build-asan
	ASAN_OPTIONS=detect_leaks=1:allow_user_poisoning=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 STRATA_BIN_DIR=$(CURDIR)/build-asan/bin \
	  .venv/bin/python -m pytest -q -n 2 --dist loadfile test/numeric test/models

# Open-ended fuzzing (make test runs every fuzzer briefly with a fixed seed):
# random seeds, the corpus growing in build-asan/fuzz/TARGET/corpus across
# runs, FUZZ_SECONDS (default 600) per target, the five targets in turn.
FUZZ_SECONDS ?= 600
fuzz: build-asan
	@rc=0; for t in onnx tflite npz mlir artifact; do \
	  scripts/run-fuzz.sh $(FUZZ_SECONDS) build-asan $$t || rc=1; done; exit $$rc

build-asan: setup
	@$(MAKE) --no-print-directory BUILD=build-asan \
	  CMAKE_FLAGS="-DSTRATA_ENABLE_SANITIZERS=ON -DSTRATA_BUILD_FUZZERS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG' '-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG'" configure
	@grep -q '^STRATA_BUILD_FUZZERS:BOOL=ON' build-asan/CMakeCache.txt || cmake -DSTRATA_BUILD_FUZZERS=ON build-asan
	ninja -C build-asan strata strata-opt strata-npu strata-onnx-import-fuzzer strata-tflite-import-fuzzer strata-npz-fuzzer strata-mlir-fuzzer \
	  strata-artifact-fuzzer strata-artifact-seeds strata-example-artifact

clean:
	rm -rf $(BUILD) build-asan build-python dist
