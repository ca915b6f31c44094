#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan) and runs them.
#
#   scripts/fuzz.sh                 every target for FUZZ_SECONDS (default 60) each, one after another
#   scripts/fuzz.sh decimal base64  only those targets (names as in tests/fuzz/targets.txt)
#   scripts/fuzz.sh --brief         regression run for `make test`: every seed and saved reproducer
#                                   once, then a fixed number of mutations (ctest in the fuzz build dir)
#   scripts/fuzz.sh --build-only    configure and build the fuzz build dir, run nothing
#
# Environment:
#   FUZZ_SECONDS    seconds per target in timed mode (default 60)
#   FUZZ_BUILD_DIR  the fuzz build dir (default build/fuzz in the checkout)
#   FUZZ_JOBS       build parallelism, and ctest parallelism in --brief (default 2)
#   CXX_FUZZ        the clang++ to use (default: clang++-14, else clang++)
#
# Timed runs grow a working corpus in $FUZZ_BUILD_DIR/corpus/<target> (the seeds in
# tests/fuzz/corpus/<target> are read, never written). A crash, leak, timeout or broken property
# stops that target, leaves its reproducer in $FUZZ_BUILD_DIR/artifacts/, and makes the script exit 1
# after the other targets ran. Reproduce with: $FUZZ_BUILD_DIR/fuzz_<target> <reproducer file>
set -euo pipefail

# Everything runs inside main, which bash reads whole before running it: editing this file while a
# long run is under way cannot change what that run does.
main() {
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  FUZZ_DIR=$ROOT/tests/fuzz
  BUILD=${FUZZ_BUILD_DIR:-$ROOT/build/fuzz}
  SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
  JOBS=${FUZZ_JOBS:-2}

  say() { printf 'fuzz: %s\n' "$*"; }
  die() { printf 'fuzz: error: %s\n' "$*" >&2; exit 1; }

  brief=0
  build_only=0
  targets=()
  for arg in "$@"; do
    case $arg in
      --brief) brief=1 ;;
      --build-only) build_only=1 ;;
      -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
      -*) die "unknown option $arg (see --help)" ;;
      *) targets+=("$arg") ;;
    esac
  done
  [[ $SECONDS_PER_TARGET =~ ^[0-9]+$ && $SECONDS_PER_TARGET -gt 0 ]] || die "FUZZ_SECONDS must be a positive number"

  # ---- Toolchain ----
  if [[ -z ${CXX_FUZZ:-} ]]; then
    CXX_FUZZ=$(command -v clang++-14 || command -v clang++ || true)
  fi
  [[ -n $CXX_FUZZ ]] || die "clang++ not found; install: apt-get install clang-14 libclang-rt-14-dev llvm-14"
  resource_dir=$("$CXX_FUZZ" -print-resource-dir)
  compgen -G "$resource_dir/lib/linux/libclang_rt.fuzzer-*.a" >/dev/null ||
    die "$CXX_FUZZ has no libFuzzer runtime; install: apt-get install libclang-rt-14-dev"
  symbolizer=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
  [[ -n $symbolizer ]] && export ASAN_SYMBOLIZER_PATH=$symbolizer
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

  # ---- Build (configure once; Ninja re-runs CMake itself when a CMakeLists.txt or targets.txt changes) ----
  if [[ ! -f $BUILD/CMakeCache.txt ]]; then
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    say "configuring $BUILD with $CXX_FUZZ"
    cmake -S "$FUZZ_DIR" -B "$BUILD" "${generator[@]}" -DCMAKE_CXX_COMPILER="$CXX_FUZZ" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$BUILD.configure.log" 2>&1 || {
      cat "$BUILD.configure.log" >&2
      die "configure failed"
    }
    rm -f "$BUILD.configure.log"
  fi
  cmake --build "$BUILD" -j"$JOBS"
  ((build_only)) && exit 0

  # ---- Targets (tests/fuzz/targets.txt: <name> <dict or -> <max_len> <brief runs>) ----
  declare -A dict max_len
  all=()
  while read -r name d len _; do
    [[ -z $name || $name == \#* ]] && continue
    all+=("$name")
    dict[$name]=$d
    max_len[$name]=$len
  done <"$FUZZ_DIR/targets.txt"
  ((${#targets[@]})) || targets=("${all[@]}")
  for t in "${targets[@]}"; do
    [[ -n ${dict[$t]:-} ]] || die "unknown target '$t' (known: ${all[*]})"
  done

  if ((brief)); then
    regex=$(IFS='|'; printf '^fuzz\\.(%s)$' "${targets[*]}")
    # JUnit for make test's table of the slowest suites (tests/support/slowest.mjs).
    exec ctest --test-dir "$BUILD" -j"$JOBS" --output-on-failure --output-junit "$BUILD/junit.xml" -R "$regex"
  fi

  # ---- Timed runs, one target at a time (each is single-threaded) ----
  mkdir -p "$BUILD/artifacts" "$BUILD/logs"
  failed=()
  summary=()
  for t in "${targets[@]}"; do
    work=$BUILD/corpus/$t
    mkdir -p "$work"
    options=(-max_total_time="$SECONDS_PER_TARGET" -max_len="${max_len[$t]}" -timeout=10 -rss_limit_mb=2048
             -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t-")
    [[ ${dict[$t]} != - ]] && options+=(-dict="$FUZZ_DIR/dict/${dict[$t]}.dict")
    log=$BUILD/logs/$t.log
    say "$t: ${SECONDS_PER_TARGET}s (log: $log)"
    status=0
    "$BUILD/fuzz_$t" "${options[@]}" "$work" "$FUZZ_DIR/corpus/$t" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n1 || true)
    if ((status != 0)); then
      failed+=("$t")
      artifact=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -n1 | cut -d' ' -f5- || true)
      summary+=("$(printf '%-22s FAILED (exit %d) %s' "$t" "$status" "${artifact:+reproducer: $artifact}")")
      grep -E '^(==[0-9]+==ERROR|SUMMARY:|==paywasm-fuzz==|terminate called|.*runtime error:)' "$log" | head -n5 >&2 || true
    else
      summary+=("$(printf '%-22s %10s runs %8s exec/s  %s' "$t" "${runs:-?}" "${speed:-?}" "${cov:-}")")
    fi
  done

  printf '\n'
  printf '%s\n' "${summary[@]}"
  if ((${#failed[@]})); then
    die "failed: ${failed[*]} (logs in $BUILD/logs, reproducers in $BUILD/artifacts)"
  fi
}

main "$@"
