#!/usr/bin/env bash
# Writes cmake/startup.order: the functions of tensor-inspect that everyday runs execute
# (a literal, a .npy, listings of safetensors and GGUF, JSON, --header, --stats), one mangled name per line, for
# the linker to place side by side (ld.lld --symbol-ordering-file; CMakeLists.txt). Start-up
# code spread over the 3.3 MB of text cost one page fault (3 us on the CI machine) per
# 64 KiB window it touched.
#   scripts/startup_order.sh [build/tensor-inspect]     needs valgrind (callgrind)
# A stale file is harmless: names no longer defined are skipped, new functions land after.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/tensor-inspect}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=("5" "[[1.5,2],[3,4]] --json" "samples/float32.npy" "samples/mixed.safetensors"
      "--list samples/mixed.safetensors" "--header samples/float32.npy"
      "--json samples/mixed.safetensors --name weight" "--stats samples/mixed.safetensors"
      "samples/float32.npy -e x.sum()" "--list samples/quants.gguf" "--list --json samples/quants.gguf")
i=0
for args in "${runs[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/cg.$i" "$bin" $args >/dev/null 2>&1
done
nm --defined-only "$bin" | awk '{print $3}' | sort -u >"$tmp/defined"
# callgrind names each function once as "fn=(id) name" (or cfn=); later lines give the id alone.
# Functions every run executes (start-up: static initializers, the command line, logging)
# come first, then those fewer runs share: the start-up path then touches a few adjacent
# 64 KiB windows instead of its share of all 900 (sorted by name, start-up's 300 functions
# spread over 800 KB of text, 25 windows).
for f in "$tmp"/cg.*; do sed -n 's/^c\{0,1\}fn=([0-9]*) //p' "$f" | sort -u; done | sort | uniq -c |
  awk '{print $1, $2}' | sort -k1,1nr -k2,2 | awk '{print $2}' >"$tmp/used"
grep -Fxf "$tmp/defined" "$tmp/used" >cmake/startup.order
echo "startup_order: $(wc -l <cmake/startup.order) functions in cmake/startup.order"
