#!/usr/bin/env bash
# Side by side, in one run: `tensor-inspect FILE --stats` against the NumPy loop a user
# would write (bench/stats_file_numpy.py), as whole processes, alternating, with peak RSS.
#   bench/stats_compare.sh build/tensor-inspect /tmp/tibench/model.safetensors [PAIRS [NAME]]
# With NAME, one tensor: `--name NAME --stats` against the NumPy memmap one-liner (bf16
# widened by << 16; min, max, mean, std, isnan().sum()), e.g. NAME=model.embed_tokens.weight
# (98 MB of bfloat16), the case issue 7 is judged by.
# Prints each pair, the medians, `ratio=<numpy median / tensor-inspect median>` and the
# tensor data's bytes per second for one tensor.
set -euo pipefail
bin=$(realpath "$1"); file=$2; pairs=${3:-3}; name=${4:-}
one=(); [ -n "$name" ] && one=(--name "$name")
here=$(dirname "$(realpath "$0")")
py=/usr/bin/python3
rss() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
echo "peak RSS KiB: numpy $(rss $py "$here/stats_file_numpy.py" "$file" $name)," \
  "tensor-inspect $(rss "$bin" "$file" "${one[@]}" --stats)"
base=(); prod=()
for i in $(seq "$pairs"); do
  t0=$(date +%s.%N); $py "$here/stats_file_numpy.py" "$file" $name >/dev/null; t1=$(date +%s.%N)
  "$bin" "$file" "${one[@]}" --stats >/dev/null; t2=$(date +%s.%N)
  b=$(awk "BEGIN {print $t1 - $t0}"); p=$(awk "BEGIN {print $t2 - $t1}")
  echo "pair $i  numpy $b s  tensor-inspect $p s"
  base+=("$b"); prod+=("$p")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mb=$(median "${base[@]}"); mp=$(median "${prod[@]}")
echo "median numpy $mb s, tensor-inspect $mp s"
if [ -n "$name" ]; then
  bytes=$("$bin" "$file" --name "$name" --header --json |
    $py -c 'import json, sys; print(json.load(sys.stdin)["nbytes"])')
  echo "tensor-inspect: $(awk "BEGIN {printf \"%.2f\", $bytes / $mp / 1e9}") GB/s of tensor data ($bytes bytes)"
fi
echo "ratio=$(awk "BEGIN {printf \"%.3f\", $mb / $mp}")"
