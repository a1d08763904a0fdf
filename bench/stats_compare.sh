#!/usr/bin/env bash
# Side by side, in one run: `tensor-inspect FILE --stats` against the NumPy loop a user
# would write (bench/stats_file_numpy.py), as whole processes, alternating, with peak RSS.
#   bench/stats_compare.sh build/tensor-inspect /tmp/tibench/model.safetensors [PAIRS]
# Prints each pair, the medians and `ratio=<numpy median / tensor-inspect median>`.
# For one tensor (case st_stats) use ../shared/bench/compare.sh st_stats BIN {FILE} --name {NAME} --stats.
set -euo pipefail
bin=$(realpath "$1"); file=$2; pairs=${3:-3}
here=$(dirname "$(realpath "$0")")
py=/usr/bin/python3
rss() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
echo "peak RSS KiB: numpy $(rss $py "$here/stats_file_numpy.py" "$file"), tensor-inspect $(rss "$bin" "$file" --stats)"
base=(); prod=()
for i in $(seq "$pairs"); do
  t0=$(date +%s.%N); $py "$here/stats_file_numpy.py" "$file" >/dev/null; t1=$(date +%s.%N)
  "$bin" "$file" --stats >/dev/null; t2=$(date +%s.%N)
  b=$(awk "BEGIN {print $t1 - $t0}"); p=$(awk "BEGIN {print $t2 - $t1}")
  echo "pair $i  numpy $b s  tensor-inspect $p s"
  base+=("$b"); prod+=("$p")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mb=$(median "${base[@]}"); mp=$(median "${prod[@]}")
echo "median numpy $mb s, tensor-inspect $mp s"
echo "ratio=$(awk "BEGIN {printf \"%.3f\", $mb / $mp}")"
