#!/usr/bin/env python3
"""What a new user found that surprised them, each fault rebuilt and checked from outside:
diff of saved broadcasts (fault 4): torch.expand saved with 0 strides, compared by their
stored values.

    python3 tests/user_faults_diff.py path/to/tensor-inspect

Inputs are made here (NumPy, zipfile, hand-built bytes) in a temporary folder; what each
check expects is computed from those inputs (headers read back with json/zipfile/zlib),
never copied from the tool's output. Trouble must be exit status 2, one line on stderr
naming the input and the place, nothing on stdout (user_faults_common.trouble). Closes
with `N passed, M failed`.
"""
import json, os, struct, subprocess, sys, tempfile, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from user_faults_common import run, trouble, write_pt


def pt_file(path, tensors):
  """A PyTorch zip checkpoint written by hand (user_faults_common.write_pt): a dict of
  float32 tensors {name: (storage values, size, stride)}, each viewed from offset 0, so a
  stride 0 is a saved expand."""
  write_pt(path, {name: ("FloatStorage", struct.pack(f"<{len(values)}f", *values), len(values), size, stride)
                  for name, (values, size, stride) in tensors.items()})


def fault4_broadcasts(tmp):
  """4. Tensors that are huge broadcasts (torch.zeros(1).expand(10**6, 10**6) saved: a few
  bytes, 10**12 elements): diff, --stats and --hist cost the stored values, not the shape."""
  import numpy as np
  n = 10**6
  zeros, half, rows_a, rows_b = (os.path.join(tmp, f) for f in ("zeros.pt", "half.pt", "rows_a.pt", "rows_b.pt"))
  pt_file(zeros, {"w": ([0.0], [n, n], [0, 0])})
  pt_file(half, {"w": ([0.5], [n, n], [0, 0])})
  a_row, b_row = [1.0, 2.0, 3.0], [1.0, 2.0, 3.5]
  pt_file(rows_a, {"r": (a_row, [n, 3], [0, 1]), "c": (a_row, [3, n], [1, 0])})
  pt_file(rows_b, {"r": (b_row, [n, 3], [0, 1]), "c": (b_row, [3, n], [1, 0])})
  def diff_json(a, b, *extra):
    try:
      rc, out, err = run(["diff", a, b, "--json", *extra], timeout=30)
    except subprocess.TimeoutExpired:
      return None, None
    return rc, (json.loads(out) if out else {"err": err})
  rc, d = diff_json(zeros, zeros)
  t = d and d.get("tensors", [{}])[0]
  tally.check("4: diff of one 10**12 broadcast "
              "with itself ends, all same", rc == 0 and t["numel"] == n * n and t["mismatched"] == 0 and
              t["status"] == "same", f"{rc} {d}")
  rc, d = diff_json(zeros, half)
  t = d and d.get("tensors", [{}])[0]
  tally.check(
      "4: diff of two 10**12 broadcasts: "
      "every element differs, by 0.5", rc == 1 and t["mismatched"] == n * n and t["first_mismatch"] == [0, 0] and
      t["max_abs"] == 0.5 and t["rmse"] == 0.5, f"{rc} {d}")
  # Broadcast along one axis of two: NumPy on the stored rows says which differ; each
  # repeats n times, and the first mismatch is the first row's.
  a, b = np.array(a_row, dtype=np.float32), np.array(b_row, dtype=np.float32)
  bad = ~np.isclose(a, b, rtol=1e-05, atol=1e-08)
  first = int(np.argmax(bad))
  rc, d = diff_json(rows_a, rows_b)
  got = {t["name_a"]: t for t in d.get("tensors", [])} if d else {}
  tally.check(
      "4: diff of (10**6, 3) broadcasts: mismatches and the first as NumPy counts them", rc == 1 and
      got.get("r", {}).get("mismatched") == int(bad.sum()) * n and got["r"]["first_mismatch"] == [0, first] and
      got["r"]["max_abs"] == float(np.abs(a - b).max()), f"{rc} {got.get('r')}")
  tally.check("4: diff of (3, 10**6) broadcasts: mismatches and the first as NumPy counts them",
              got.get("c", {}).get("mismatched") == int(bad.sum()) * n and got["c"]["first_mismatch"] == [first, 0],
              f"{got.get('c')}")
  # Broadcast along different axes on each side: nothing to count once; the pairs would be
  # visited, so over the cap it is an error naming it, and under it the diff runs.
  cols, rows = os.path.join(tmp, "cols.pt"), os.path.join(tmp, "rows.pt")
  pt_file(cols, {"w": ([0.0] * n, [n, n], [1, 0])})
  pt_file(rows, {"w": ([0.0] * n, [n, n], [0, 1])})
  trouble("4: diff of broadcasts along "
          "different axes names the cap", ["diff", cols, rows], ["broadcast_pairs", "--limit broadcast_pairs="])
  small_c, small_r = os.path.join(tmp, "small_c.pt"), os.path.join(tmp, "small_r.pt")
  pt_file(small_c, {"w": (a_row, [3, 5], [1, 0])})
  pt_file(small_r, {"w": (b_row + [0.0, 0.0], [3, 5], [0, 1])})
  rc, d = diff_json(small_c, small_r, "--limit", "broadcast_pairs=15")
  want = int((~np.isclose(np.broadcast_to(a[:, None],
                                          (3, 5)), np.broadcast_to(np.array(b_row + [0.0, 0.0], np.float32),
                                                                   (3, 5)))).sum())
  tally.check("4: under --limit broadcast_pairs "
              "the pairs are compared", rc == 1 and d["tensors"][0]["mismatched"] == want, f"{rc} {d}")
  for args in (["--name", "w", "--stats", "--json"], ["--stats",
                                                      "--json"], ["--name", "w", "--stats", "--hist=4", "--json"]):
    try:
      rc, out, err = run([half, *args], timeout=30)
    except subprocess.TimeoutExpired:
      rc, out, err = None, "", "timed out"
    j = json.loads(out) if rc == 0 and out else {}
    row = j.get("tensors", [j])[0] if j else {}
    ok = rc == 0 and row.get("count") == n * n and row.get("mean") == 0.5 and row.get("std") == 0.0 and row.get(
        "min") == 0.5
    if "--hist=4" in args:
      ok = ok and sum(j.get("histogram", {}).get("counts", [])) == n * n
    tally.check(f"4: {args} of a 10**12 broadcast "
                f"of 0.5 ends, counted whole", ok, f"{rc} {err[:200]!r} {str(row)[:300]}")
  try:
    rc, out, err = run([half, "--name", "w"], timeout=30)
  except subprocess.TimeoutExpired:
    rc, out, err = None, "", "timed out"
  tally.check("4: printing a 10**12 broadcast "
              "summarizes (6 of each axis shown)", rc == 0 and "summary: 36 of "
              "1000000000000 elements shown" in out, f"{rc} {out[-200:]!r} {err!r}")


def main():
  with tempfile.TemporaryDirectory() as tmp:
    fault4_broadcasts(tmp)
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
