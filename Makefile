# The README's two commands: `make demo` and `make test`. Each installs what
# is missing (scripts/apt-packages.txt), configures once, builds
# incrementally with Ninja (and ccache when present), then runs.

BUILD_DIR ?= build
LLVM_PREFIX ?= /usr/lib/llvm-22
BUILD_TYPE ?= Release
NINJA_FLAGS ?=
# ccache rewrites the paths under the checkout as relative ones, so that a
# clone in another folder hits what this one compiled.
export CCACHE_BASEDIR ?= $(CURDIR)

.PHONY: all deps configure build test demo docs format clean fuzz bench sanitize install results

all: build

deps:
	@scripts/install-deps.sh

# Ninja re-runs CMake by itself when a CMakeLists.txt changes, so configuring
# is needed only when the build folder is new.
$(BUILD_DIR)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit
	ln -sf $(BUILD_DIR)/compile_commands.json compile_commands.json

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	ninja -C $(BUILD_DIR) $(NINJA_FLAGS) all tad-test-depends

test: build
	@scripts/run-tests.sh $(BUILD_DIR)

# make test, then the long sweeps it samples (scripts/run-full-sweeps.sh:
# about half an hour on 2 cores). CI runs it.
.PHONY: test-full
test-full: test
	@scripts/run-full-sweeps.sh $(BUILD_DIR)

# Installs the tools, the runtime, the standard library and the Python
# package under PREFIX (docs/install.md).
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

demo: build
	@scripts/demo.sh $(BUILD_DIR)
	@$(MAKE) --no-print-directory demo-gpt

# The character-level GPT of examples/gpt (docs/tutorial-gpt.md): 60 AdamW
# steps from Python, then the losses and a short sample (a few seconds);
# the full run is the command in the tutorial.
.PHONY: demo-gpt
demo-gpt: build
	TAD_TADC=$(BUILD_DIR)/bin/tadc /usr/bin/python3 examples/gpt/train.py \
	  --steps 60 --eval-every 20 --sample 120

# Regenerates docs/dialect/TadDialect.md and docs/passes/*.md from the .td
# files, and docs/builtins.md from tadc's table of builtins (tests fail
# when they are stale).
docs: configure
	ninja -C $(BUILD_DIR) TadDialectDocGen TadConversionPassesDocGen TadTransformsPassesDocGen
	mkdir -p docs/dialect docs/passes
	cp $(BUILD_DIR)/docs/tad/TadDialect.md docs/dialect/TadDialect.md
	cp $(BUILD_DIR)/docs/tad/TadConversionPasses.md docs/passes/Conversion.md
	cp $(BUILD_DIR)/docs/tad/TadTransformsPasses.md docs/passes/Transforms.md
	ninja -C $(BUILD_DIR) tadc
	$(BUILD_DIR)/bin/tadc --print-builtins > docs/builtins.md

# Benchmarks against OpenBLAS and PyTorch (docs/performance.md says what
# they measure; with --json FILE each writes its rows, which `make results`
# shows). Single-threaded, so that the comparison is like for like (the
# step benchmarks also at every core, both sides under the same thread count
# and OpenBLAS kernels). The
# remat solver against the Checkmate MILP runs here on small graphs only (a
# few minutes); docs/remat-solver.md gives the half-hour commands.
bench: build
	@scripts/install-deps.sh bench
	OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/gemm/run.py
	OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/mlp/run.py
	OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/memory/run.py
	/usr/bin/python3 bench/step/mlp.py
	/usr/bin/python3 bench/step/transformer.py
	/usr/bin/python3 bench/step/resnet.py
	/usr/bin/python3 bench/step/loop_minimum.py
	/usr/bin/python3 bench/compile/run.py
	/usr/bin/python3 bench/remat/gaps.py
	/usr/bin/python3 bench/remat/solvers.py
	/usr/bin/python3 bench/remat/loop_predictions.py
	/usr/bin/python3 bench/remat/milp_exact.py --graphs 5
	/usr/bin/python3 bench/remat/milp_gaps.py --sizes 30 --graphs 1 --seconds 60

# Regenerates docs/results.md, docs/results-remat.md and their plots (docs/images/results-*.png)
# from the benchmarks' JSON files under bench/ (bench/results.py). Runs no
# benchmark and builds nothing.
results:
	/usr/bin/python3 bench/results.py

# Builds the fuzzers (the frontend and the .npy reader) with clang,
# libFuzzer and ASan in build-fuzz/ (without precompiled headers, as the
# sanitizer build: docs/testing.md) and runs each for FUZZ_SECONDS, then
# the Python package's call fuzzer on the build's tadc (docs/fuzzing.md).
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 600
fuzz:
	@scripts/install-deps.sh fuzz
	@test -f $(FUZZ_DIR)/build.ninja || cmake -G Ninja -S . -B $(FUZZ_DIR) \
	  -DCMAKE_BUILD_TYPE=Release -DTAD_ENABLE_FUZZER=ON \
	  -DTAD_PRECOMPILED_HEADERS=OFF \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit
	ninja -C $(FUZZ_DIR) tad-fuzz-frontend tad-fuzz-npy
	scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)
	$(MAKE) build
	/usr/bin/python3 scripts/fuzz-python.py --seconds $(FUZZ_SECONDS) \
	  --tadc $(BUILD_DIR)/bin/tadc --out $(FUZZ_DIR)/fuzz-python

# The whole suite on an AddressSanitizer + UndefinedBehaviorSanitizer build
# of tad's own code (clang-22) in build-sanitize/; fails on any failed test
# or sanitizer report (docs/testing.md).
SANITIZE_DIR ?= build-sanitize
sanitize:
	@scripts/install-deps.sh fuzz
	cmake -G Ninja -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=Release \
	  -DLLVM_USE_SANITIZER="Address;Undefined" -DTAD_PRECOMPILED_HEADERS=OFF \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit
	ninja -C $(SANITIZE_DIR) $(NINJA_FLAGS) all tad-test-depends
	scripts/sanitize.sh $(SANITIZE_DIR)

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
