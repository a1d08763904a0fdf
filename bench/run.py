#!/usr/bin/env python3
"""tensor-inspect against what a user would otherwise run, timed in the same run.

    /usr/bin/python3 bench/run.py build/tensor-inspect

Each case runs the tool and its baseline as child processes with stdout to /dev/null and
keeps the best of 3 wall times (each includes process start-up and, for the baselines,
Python's and NumPy's imports: that is what a user waits for). The ratio is
baseline / tensor-inspect, so 2.0x means tensor-inspect took half the time. Before timing,
each pair runs once with its output captured, and the table says whether the two printed
the same values, so that a fast wrong answer cannot pass for a fast one.

The baselines run under this script's interpreter (sys.executable), which needs NumPy.
Files are made in a temporary directory that is deleted afterwards. Nothing is asserted:
this is a measurement, not a test.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

REPEAT = 3
COUNT = 1_000_000


def best_time(argv):
    """The best wall time of REPEAT runs, in seconds; None if a run failed."""
    best = None
    for _ in range(REPEAT):
        start = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            return None
        best = elapsed if best is None else min(best, elapsed)
    return best


def output(argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def field(text, name):
    """The value of a `name: value` line of the tool's text output."""
    for line in (text or "").splitlines():
        if line.startswith(name + ": "):
            return line[len(name) + 2:]
    return None


def python(code):
    return [sys.executable, "-c", code]


def write_sparse_safetensors(path):
    """A 1 GiB safetensors file that is one hole, plus a few small tensors: a header to list."""
    header, offset = {}, 0
    tensors = [(f"model.layers.{i}.{part}", shape) for i in range(32)
               for part, shape in (("attn.weight", [4096, 1024]), ("mlp.weight", [4096, 1024]), ("norm.weight", [4096]))]
    tensors.append(("big", [(1 << 30) // 4]))
    for name, shape in tensors:
        nbytes = 4
        for dim in shape:
            nbytes *= dim
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(f.tell() + offset)
    return len(tensors)


def main():
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} <path to tensor-inspect>", file=sys.stderr)
        return 2
    tool = os.path.abspath(sys.argv[1])
    try:
        import numpy as np
    except ImportError:
        print(f"{sys.executable} has no NumPy, which the baselines need (Debian: python3-numpy)", file=sys.stderr)
        return 2

    def one_float16_step(a, b):
        return abs(a - b) <= float(np.spacing(np.float16(abs(b))))

    rows = []  # (case, tool argv, baseline argv, how to compare the two outputs)
    with tempfile.TemporaryDirectory(prefix="ti-bench-") as tmp:
        npy = os.path.join(tmp, "x.npy")
        np.save(npy, np.random.default_rng(0).standard_normal(COUNT).astype(np.float32))
        st = os.path.join(tmp, "model.safetensors")
        n_tensors = write_sparse_safetensors(st)

        rows.append((f"float32 .npy of {COUNT:.0e} values as text",
                     [tool, npy, "--full"],
                     python(f"import numpy as np; print(np.load({npy!r}).tolist())"),
                     lambda a, b: field(a, "tolist") == b.strip()))
        rows.append((f"float32 .npy of {COUNT:.0e} values as JSON",
                     [tool, npy, "--json"],
                     python(f"import json, numpy as np; print(json.dumps(np.load({npy!r}).tolist()))"),
                     lambda a, b: json.loads(a)["tolist"] == json.loads(b)))
        rows.append((f"list a 1 GiB safetensors ({n_tensors} tensors)",
                     [tool, st, "--list"],
                     python("import json, struct\n"
                            f"with open({st!r}, 'rb') as f:\n"
                            "    n = struct.unpack('<Q', f.read(8))[0]\n"
                            "    header = json.loads(f.read(n))\n"
                            "for name, t in header.items():\n"
                            "    if name != '__metadata__':\n"
                            "        print(name, t['dtype'], tuple(t['shape']), t['data_offsets'][1] - t['data_offsets'][0])"),
                     lambda a, b: len(a.splitlines()) - 2 == len(b.splitlines())))

        probe = subprocess.run([tool, "-e", "x + 1", "[1]"], capture_output=True, text=True)
        if probe.returncode != 0 and "not built in" in probe.stderr:
            print(f"note: skipping the expression case: {probe.stderr.strip()}")
        else:
            # Sums in float32, as tinygrad's sum of float16 accumulates in float32 and casts back.
            rows.append((f"x.cast(float16).sum() over {COUNT:.0e} values",
                         [tool, npy, "-e", "x.cast(dtypes.float16).sum()"],
                         python("import numpy as np\n"
                                f"x = np.load({npy!r}).astype(np.float16)\n"
                                "print(float(x.sum(dtype=np.float32).astype(np.float16)))"),
                         lambda a, b: one_float16_step(float(field(a, "tolist")), float(b))))

        results = []
        for case, mine, theirs, same in rows:
            a, b = output(mine), output(theirs)
            try:
                agree = "yes" if a is not None and b is not None and same(a, b) else "NO"
            except (ValueError, TypeError, KeyError):
                agree = "NO"
            results.append((case, best_time(mine), best_time(theirs), agree))

    def secs(t):
        return "failed" if t is None else f"{t:.3f} s"

    width = max(len(r[0]) for r in results)
    print(f"best of {REPEAT} wall times; ratio = baseline / tensor-inspect (higher: tensor-inspect is faster)")
    print(f"{'case':<{width}}  {'tensor-inspect':>14}  {'baseline':>10}  {'ratio':>8}  same output")
    for case, mine, theirs, agree in results:
        ratio = f"{theirs / mine:.2f}x" if mine and theirs else "-"
        print(f"{case:<{width}}  {secs(mine):>14}  {secs(theirs):>10}  {ratio:>8}  {agree}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
