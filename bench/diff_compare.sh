#!/usr/bin/env bash
# Side by side, in one run: `tensor-inspect diff A B` against the NumPy one-liners a user
# would write (bench/diff_numpy.py), as whole processes, alternating, with peak RSS.
#   bench/diff_compare.sh build/tensor-inspect npy|checkpoint [PAIRS]
# npy:        /tmp/tibench/f32_1e7.npy (10**7 float32) against a copy with 1000 values changed
# checkpoint: /tmp/tibench/model.safetensors (1 GiB, 200 tensors) against a copy with one
#             value changed in each of 3 tensors
# The changed copies are written once into /tmp/ti_diffbench (never into /tmp/tibench).
# Prints each pair, the medians and `ratio=<numpy median / tensor-inspect median>`.
set -euo pipefail
bin=$(realpath "$1"); case_=$2; pairs=${3:-5}
here=$(dirname "$(realpath "$0")")
py=/usr/bin/python3
data=${TIBENCH_DATA:-/tmp/tibench}; out=/tmp/ti_diffbench
mkdir -p "$out"
case $case_ in
  npy) a=$data/f32_1e7.npy; b=$out/f32_1e7_changed.npy
       [ -f "$b" ] || $py -c "import numpy as np, sys
a = np.load(sys.argv[1]); a.ravel()[::10007] += np.float32(0.5); np.save(sys.argv[2], a)" "$a" "$b" ;;
  checkpoint) a=$data/model.safetensors; b=$out/model_changed.safetensors
       [ -f "$b" ] || $py -c "import json, shutil, struct, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
with open(sys.argv[2], 'r+b') as f:
    n = struct.unpack('<Q', f.read(8))[0]; h = json.loads(f.read(n))
    for name in ('model.embed_tokens.weight', 'model.layers.5.mlp.up_proj.weight', 'model.norm.weight'):
        f.seek(8 + n + h[name]['data_offsets'][0] + 6); f.write(b'\x11\x3f')" "$a" "$b" ;;
  *) echo "usage: $0 BIN npy|checkpoint [PAIRS]" >&2; exit 2 ;;
esac
rss() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
echo "inputs: $a $b"
echo "peak RSS KiB: numpy $(rss $py "$here/diff_numpy.py" "$a" "$b"), tensor-inspect $(rss "$bin" diff "$a" "$b")"
echo "numpy:          $($py "$here/peak_rss_anon.py" $py "$here/diff_numpy.py" "$a" "$b")"
echo "tensor-inspect: $($py "$here/peak_rss_anon.py" "$bin" diff "$a" "$b")"
base=(); prod=()
for i in $(seq "$pairs"); do
  t0=$(date +%s.%N); $py "$here/diff_numpy.py" "$a" "$b" >/dev/null; t1=$(date +%s.%N)
  "$bin" diff "$a" "$b" >/dev/null || [ $? -eq 1 ]; t2=$(date +%s.%N)
  bt=$(awk "BEGIN {print $t1 - $t0}"); pt=$(awk "BEGIN {print $t2 - $t1}")
  echo "pair $i  numpy $bt s  tensor-inspect $pt s"
  base+=("$bt"); prod+=("$pt")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mb=$(median "${base[@]}"); mp=$(median "${prod[@]}")
echo "median numpy $mb s, tensor-inspect $mp s"
echo "ratio=$(awk "BEGIN {printf \"%.3f\", $mb / $mp}")"
