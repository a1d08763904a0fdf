#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ (clang-14, ASan + UBSan: `cmake --preset fuzz`,
# in build-fuzz/) and runs each in turn for SECONDS (default 60), niced, one at a time.
#   scripts/fuzz.sh                 every harness, 60 s each
#   scripts/fuzz.sh 15              the CI smoke run
#   scripts/fuzz.sh 600 npy gguf    chosen harnesses (names of fuzz/fuzz_<name>.cpp)
#   FUZZ_RUNS=1000000 scripts/fuzz.sh 1800   each harness until 10^6 executions or 30 min
#   FUZZ_PRESET=sanitize scripts/fuzz.sh 5   in CI's instrumented build (build-sanitize/, -O1,
#                                   tests too) instead of the faster fuzz preset (build-fuzz/, -O2)
# Each harness grows its corpus in fuzz/corpus/<name>/ (git-ignored), starting from the
# seeds fuzz/seeds/<name>/ (python3 fuzz/make_seeds.py) and the regressions
# fuzz/regressions/<name>/. A crash, leak, timeout (over 10 s) or out-of-memory (over
# 2 GiB) is kept in fuzz/crashes/<name>/ (git-ignored): reproduce it with
# `build-fuzz/fuzz/fuzz_<name> FILE`; once it is fixed, move it to fuzz/regressions/<name>/
# so `ctest -R fuzz/` replays it in every build. Exit status 1 when any harness failed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
all=(literal expr expr_realize npy npz safetensors safetensors_index gguf ggml_blocks pytorch pytorch_legacy pickle
     raw view_as inspect validate schemes manifest onnx hdf5 dcp object_store)
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=("${all[@]}")

dict_of() {
  case "$1" in
    literal | expr | expr_realize) echo fuzz/dict/expr.dict ;;
    npy | raw) echo fuzz/dict/npy.dict ;;
    safetensors | safetensors_index) echo fuzz/dict/safetensors.dict ;;
    gguf) echo fuzz/dict/gguf.dict ;;
    pickle | pytorch_legacy | dcp) echo fuzz/dict/pickle.dict ;;
    npz | pytorch) echo fuzz/dict/zip.dict ;;
    validate) echo fuzz/dict/safetensors.dict ;;
    onnx) echo fuzz/dict/onnx.dict ;;
    *) echo "" ;;
  esac
}

# The fuzzing toolchain (clang-14, libFuzzer and the sanitizer runtimes, its OpenMP) is this
# script's and CI's alone: scripts/setup.sh does not install it.
scripts/install_missing.sh clang-14 libclang-rt-14-dev libomp-14-dev
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
preset=${FUZZ_PRESET:-fuzz}
build_dir=build-$preset
cmake --preset "$preset" "${launcher[@]}" >/dev/null
targets=()
for h in "${harnesses[@]}"; do
  [[ " ${all[*]} " == *" $h "* ]] || { echo "fuzz: no harness '$h' (known: ${all[*]})" >&2; exit 2; }
  targets+=("fuzz_$h")
done
nice -n 19 cmake --build "$build_dir" -j"$(nproc)" --target "${targets[@]}"

failed=()
for h in "${harnesses[@]}"; do
  bin=$build_dir/fuzz/fuzz_$h
  mkdir -p "fuzz/corpus/$h" "fuzz/crashes/$h"
  dirs=("fuzz/corpus/$h")
  for d in fuzz/seeds/$h fuzz/regressions/$h; do [ -d "$d" ] && dirs+=("$d"); done
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1
        -artifact_prefix="fuzz/crashes/$h/")
  [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
  # libhdf5 (not ours, not instrumented) mallocs a chunk's or a metadata entry's length as the
  # file declares it (4 GiB from 10 KiB of input) and only then finds it past the end of the
  # file: the block is never touched (peak RSS of such an input in the Release build: 15 MiB).
  # libFuzzer's per-malloc limit (the RSS limit by default) would report each such reservation;
  # for this harness it is raised to ASan's largest allocation (1 TiB), and the 2 GiB RSS limit
  # still catches memory actually used.
  [ "$h" = hdf5 ] && args+=(-malloc_limit_mb=1048576)
  dict=$(dict_of "$h")
  [ -n "$dict" ] && args+=(-dict="$dict")
  log=fuzz/crashes/$h.log
  echo "== fuzz_$h (${seconds} s)"
  # OMP_WAIT_POLICY=passive: OpenMP workers sleep at barriers instead of spinning, so a
  # niced fuzzer on a busy machine is not stalled by its own spinning threads (a 0.3 s input
  # once hit the 10 s timeout that way).
  if OMP_WAIT_POLICY=passive ASAN_OPTIONS=detect_leaks=1 \
      LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      nice -n 19 "$bin" "${args[@]}" "${dirs[@]}" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed+=("$h")
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  echo "   $status: ${execs:-?} executions, ${cov:-cov: ?}, log $log"
  if [ "$status" = FAILED ]; then
    grep -m3 -E 'ERROR: |SUMMARY: |Test unit written' "$log" | sed 's/^/   /' || true
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} harness(es) failed: ${failed[*]} (inputs in fuzz/crashes/)"
  exit 1
fi
echo "fuzz: all ${#harnesses[@]} harnesses ran ${seconds} s without a finding"
