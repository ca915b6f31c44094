# paywasm: the two commands a newcomer needs are `make test` and `make demo`; both install what is
# missing first (scripts/deps.sh) and rebuild only what changed.
#   make deps    install missing apt/npm packages, fetch + verify source tarballs, build Crypto++ for wasm
#   make build   native build (build/native, binaries in build/bin) and wasm build (build/wasm)
#   make test    deps + build + ctest in each build tree (native with the wasm suites, asan, fuzz),
#                ending with the table of the slowest suites; as root, since package.deb builds the
#                Debian packages (scripts/package.sh), installs them with apt-get and purges them
#   make check   the native unit tests alone (the fast inner loop)
#   make test-repeat SUITES='widget.engines|load' N=5 STRESS=2
#                the ctest suites matching SUITES (a ctest -R regex; default every native suite) N times
#                in a row (default 5), stopping at the first failing run and naming it: a flake shows
#                as a failed run; STRESS=n beside n busy loops and a memory/disk/socket churner
#                (SUITES='$$(STRESS_SUITES)': every suite with time, processes, sockets or browsers)
#   make test-stress  CI's second pass: test-repeat of STRESS_SUITES once, beside STRESS=2
#   make dist    the files a merchant hosts, in dist/
#   make package the Debian packages paywasm-merchant, paywasm, paywasm-sandbox in build/packages/ (lintian-checked)
#   make demo    the sandbox server and a demo shop page
#   make bench   benchmarks (results in bench/results/)
#   make model-check  the gateway's model-based test with 400 sessions per database (MODEL_SEED=n repeats one)
#   make clean   remove build/ and dist/ (the dependency cache in ~/.cache/paywasm is kept)
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := test
# Parallelism lives inside each build (cmake --build -j$(JOBS)); the steps themselves run in order.
.NOTPARALLEL:

JOBS ?= 2
BUILD_TYPE ?= Release
BUILD := build
NATIVE := $(BUILD)/native
ASAN := $(BUILD)/asan
FUZZ := $(BUILD)/fuzz
WASM := $(BUILD)/wasm
DEPS_ENV := $(BUILD)/deps.env

# Debian's emcc runs its JS optimizer with /usr/bin/node, which needs Debian's node modules (acorn).
export NODE_PATH := /usr/share/nodejs

# Ninja when present (scripts/deps.sh installs it); CMake's default generator otherwise.
GENERATOR := $(if $(shell command -v ninja),-G Ninja,)
CMAKE_COMMON := $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
# ccache for the native, sanitized and fuzz trees when present (scripts/deps.sh installs it): a second
# clone, or a build after `make clean`, compiles only what no build on this machine compiled before.
# CCACHE_BASEDIR turns the clone's own paths relative, so clones in other folders share the cache
# (~/.cache/ccache). The wasm tree compiles with em++, which it does not wrap.
CCACHE := $(shell command -v ccache)
ifneq ($(CCACHE),)
export CCACHE_BASEDIR := $(CURDIR)
CMAKE_LAUNCHER := -DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE) -DCMAKE_C_COMPILER_LAUNCHER=$(CCACHE)
endif

.PHONY: package all deps build build-native build-wasm build-asan build-fuzz test check test-repeat test-stress fuzz model-check dist demo bench clean

all: build

# Always runs (it is a quick no-op when everything is present); rewrites build/deps.env only on change.
deps:
	scripts/deps.sh

# Configure once per build dir, again only when the dependency paths change; afterwards
# `cmake --build` re-runs CMake by itself when a CMakeLists.txt or a globbed source list changes.
# The stamp is touched after a successful configure, so a failed one is retried next time.
$(WASM)/.configured: $(DEPS_ENV)
	source $(DEPS_ENV) && emcmake cmake -S . -B $(WASM) $(CMAKE_COMMON) \
	  -DPAYWASM_CRYPTOPP_WASM_DIR="$$PAYWASM_CRYPTOPP_WASM_DIR" \
	  -DPAYWASM_QRCODEGEN_SRC_DIR="$$PAYWASM_QRCODEGEN_SRC_DIR"
	touch $@

$(NATIVE)/.configured: $(DEPS_ENV)
	cmake -S . -B $(NATIVE) $(CMAKE_COMMON) $(CMAKE_LAUNCHER) -DPAYWASM_WASM_DIR=$(CURDIR)/$(WASM) -DPAYWASM_BIN_DIR=$(CURDIR)/$(BUILD)/bin
	touch $@

# deps.env is produced by scripts/deps.sh (the `deps` target); this rule only covers `make build`
# on a tree where deps never ran.
$(DEPS_ENV):
	scripts/deps.sh

build-wasm: $(WASM)/.configured
	cmake --build $(WASM) -j$(JOBS)

build-native: $(NATIVE)/.configured
	cmake --build $(NATIVE) -j$(JOBS)

build: deps
	$(MAKE) --no-print-directory build-native build-wasm

# The same native sources again under AddressSanitizer + UndefinedBehaviorSanitizer (unit tests,
# CLI, sandbox; its own ctest: label asan), and the libFuzzer targets (clang; scripts/fuzz.sh --brief
# runs their ctest).
$(ASAN)/.configured: $(DEPS_ENV)
	cmake -S . -B $(ASAN) $(CMAKE_COMMON) $(CMAKE_LAUNCHER) -DPAYWASM_SANITIZE=address,undefined -DPAYWASM_BIN_DIR=$(CURDIR)/$(ASAN)/bin
	touch $@

build-asan: $(ASAN)/.configured
	cmake --build $(ASAN) -j$(JOBS)

build-fuzz:
	$(if $(CCACHE),CMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE)) FUZZ_BUILD_DIR=$(CURDIR)/$(FUZZ) FUZZ_JOBS=$(JOBS) scripts/fuzz.sh --build-only

# Each tree's ctest writes JUnit (junit.xml in the tree); whatever happens, the run ends with the
# table of the slowest suites (tests/support/slowest.mjs), then stops at the first failing tree.
SLOWEST := node tests/support/slowest.mjs $(NATIVE)/junit.xml $(ASAN)/junit.xml $(FUZZ)/junit.xml
test: build
	$(MAKE) --no-print-directory build-asan build-fuzz
	rm -f $(NATIVE)/junit.xml $(ASAN)/junit.xml $(FUZZ)/junit.xml
	trap '$(SLOWEST) || true' EXIT; \
	ctest --test-dir $(NATIVE) --output-on-failure --output-junit $(CURDIR)/$(NATIVE)/junit.xml; \
	ctest --test-dir $(ASAN) --output-on-failure --output-junit $(CURDIR)/$(ASAN)/junit.xml; \
	FUZZ_BUILD_DIR=$(CURDIR)/$(FUZZ) FUZZ_JOBS=$(JOBS) scripts/fuzz.sh --brief

# The native unit tests only: build the native tree, run unit.native.
check: deps
	$(MAKE) --no-print-directory build-native
	ctest --test-dir $(NATIVE) -R '^unit\.native$$' --output-on-failure

# The native tree's suites matching SUITES (a ctest -R regex; empty: all) N times in a row; stops at
# the first failing run, says which run it was and exits 1; on success says that all N passed.
# STRESS=n runs them beside a load of their own for the whole pass: n busy CPU loops and a churner of
# memory, disk and sockets (tests/support/stress.mjs), ended by PID when the pass ends, pass or fail.
# STRESS_SUITES: the suites that involve time, processes, sockets or browsers (CI's second pass).
SUITES ?=
N ?= 5
STRESS ?= 0
STRESS_SUITES := ^(server|gateway|widget|bench|load|demo|faults|proxy|examples|cli|kat|deploy|consumer|package)\.
test-repeat: build
	@[[ '$(N)' =~ ^[1-9][0-9]*$$ ]] || { echo "make test-repeat: N must be a positive number, not '$(N)'" >&2; exit 2; }
	@[[ '$(STRESS)' =~ ^[0-9]+$$ ]] || { echo "make test-repeat: STRESS must be a number of busy loops, not '$(STRESS)'" >&2; exit 2; }
	@suites='$(SUITES)'; pids=$(CURDIR)/$(BUILD)/stress.pids; \
	if (( $(STRESS) > 0 )); then \
	  trap "node tests/support/stress.mjs stop $$pids || true" EXIT; \
	  node tests/support/stress.mjs start $(STRESS) $$pids; \
	fi; \
	for run in $$(seq 1 $(N)); do \
	  echo "test-repeat: run $$run of $(N): ctest -R '$${suites:-.}'$$( (( $(STRESS) > 0 )) && echo " beside STRESS=$(STRESS)")"; \
	  if ! ctest --test-dir $(NATIVE) --output-on-failure --no-tests=error -R "$${suites:-.}" --output-junit $(CURDIR)/$(NATIVE)/junit-repeat.xml; then \
	    node tests/support/slowest.mjs $(NATIVE)/junit-repeat.xml; \
	    echo "test-repeat: run $$run of $(N) FAILED (suites '$${suites:-.}', STRESS=$(STRESS); the $$((run - 1)) run(s) before it passed)" >&2; exit 1; \
	  fi; \
	  node tests/support/slowest.mjs --top 5 $(NATIVE)/junit-repeat.xml; \
	done; \
	echo "test-repeat: all $(N) runs passed (suites '$${suites:-.}', STRESS=$(STRESS))"

# CI's second pass (.ci/run, after make test): every suite with time, processes, sockets or browsers
# once more beside a load of its own (STRESS=2); a suite that passes only on a quiet machine fails it.
test-stress:
	$(MAKE) --no-print-directory test-repeat SUITES='$(STRESS_SUITES)' STRESS=2 N=1

# Every fuzz target for FUZZ_SECONDS (default 60) each.
fuzz: deps
	FUZZ_BUILD_DIR=$(CURDIR)/$(FUZZ) FUZZ_JOBS=$(JOBS) scripts/fuzz.sh

# The gateway's model-based test, longer than make test's run: MODEL_SESSIONS sessions (default 400)
# per database; MODEL_SEED repeats a run.
MODEL_SESSIONS ?= 400
model-check: build-native
	PAYWASM_MODEL_SESSIONS=$(MODEL_SESSIONS) $(if $(MODEL_SEED),PAYWASM_MODEL_SEED=$(MODEL_SEED)) \
	  PAYWASM_SANDBOX=$(BUILD)/bin/paywasm-sandbox PAYWASM_CLI=$(BUILD)/bin/paywasm PAYWASM_MERCHANT=$(BUILD)/bin/paywasm-merchant \
	  node --test-reporter=spec tests/gateway/model.test.mjs

# Helpers that arrive with the widget, the sandbox and the benchmarks.
define run-script
	@if [[ -f scripts/$(1).sh ]]; then bash scripts/$(1).sh; \
	else echo "make $(1): scripts/$(1).sh does not exist yet ($(2) is not built yet)" >&2; exit 1; fi
endef

dist: build
	$(call run-script,dist,the widget)

demo: build
	$(call run-script,demo,the sandbox demo)

bench: build
	$(call run-script,bench,the benchmark suite)

clean:
	rm -rf $(BUILD) dist

# The Debian packages (scripts/package.sh, cmake/Package.cmake): in build/packages/.
package: build
	scripts/package.sh $(NATIVE) $(BUILD)/packages
