#!/usr/bin/env bash
# Side by side, in one run: `tensor-inspect hash FILE` (XXH3-128 of every tensor's canonical
# stream) against `xxhsum -H2 FILE` (XXH128 of the file's bytes), and `hash --algo sha256`
# against `sha256sum FILE`, as whole processes, alternating, with peak RSS. The page cache is
# warmed first, so all four read memory, not the disk.
#   bench/hash_compare.sh build/tensor-inspect /tmp/tibench/model.safetensors [PAIRS]
# Prints each pair, the medians, the GB/s of the file's bytes and
# `ratio_xxh=<xxhsum median / hash median>`, `ratio_sha=<sha256sum median / hash --algo sha256 median>`
# (above 1: tensor-inspect is faster).
set -euo pipefail
bin=$(realpath "$1"); file=$2; pairs=${3:-3}
# Peak RSS from GNU time's own file: xxhsum draws its progress on stderr.
rss() { local f; f=$(mktemp); /usr/bin/time -o "$f" -f "%M" "$@" >/dev/null 2>&1; cat "$f"; rm -f "$f"; }
cat "$file" >/dev/null
bytes=$(stat -c %s "$file")
echo "peak RSS KiB: xxhsum -H2 $(rss xxhsum -H2 "$file"), hash $(rss "$bin" hash "$file"),"\
  "sha256sum $(rss sha256sum "$file"), hash --algo sha256 $(rss "$bin" hash --algo sha256 "$file")"
xs=(); hs=(); ss=(); h2=()
now() { date +%s.%N; }
for i in $(seq "$pairs"); do
  t0=$(now); xxhsum -H2 "$file" >/dev/null 2>&1; t1=$(now)
  "$bin" hash "$file" >/dev/null; t2=$(now)
  sha256sum "$file" >/dev/null; t3=$(now)
  "$bin" hash --algo sha256 "$file" >/dev/null; t4=$(now)
  x=$(awk "BEGIN {print $t1 - $t0}"); h=$(awk "BEGIN {print $t2 - $t1}")
  s=$(awk "BEGIN {print $t3 - $t2}"); g=$(awk "BEGIN {print $t4 - $t3}")
  echo "pair $i  xxhsum -H2 $x s  hash $h s  sha256sum $s s  hash --algo sha256 $g s"
  xs+=("$x"); hs+=("$h"); ss+=("$s"); h2+=("$g")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mx=$(median "${xs[@]}"); mh=$(median "${hs[@]}"); ms=$(median "${ss[@]}"); mg=$(median "${h2[@]}")
gbs() { awk "BEGIN {printf \"%.2f\", $bytes / $1 / 1e9}"; }
echo "median xxhsum -H2 $mx s ($(gbs "$mx") GB/s), hash $mh s ($(gbs "$mh") GB/s)"
echo "median sha256sum $ms s ($(gbs "$ms") GB/s), hash --algo sha256 $mg s ($(gbs "$mg") GB/s)"
echo "ratio_xxh=$(awk "BEGIN {printf \"%.3f\", $mx / $mh}") ratio_sha=$(awk "BEGIN {printf \"%.3f\", $ms / $mg}")"
