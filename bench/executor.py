#!/usr/bin/env python3
"""The executor's hot paths against the NumPy one-liners a user would run, side by side.

    /usr/bin/python3 bench/executor.py build/tensor-inspect [PAIRS]

Cases (issue 7, part 5): `-e 'x.sum()'` and `-e 'x.max()'` over 10**7 float32 values,
`-e 'x.sum(axis=0)'` of a 10000x1000 float32 matrix (its 1000 column sums printed), and a
512x512 float32 `x @ x.T` printed in full, each against `python3 -c "import numpy as np;
x = np.load(F); print(...)"`. The input is /tmp/tibench/f32_1e7.npy when the shared bench
kit made it (TIBENCH_DATA), else a file of the same shape made here from a fixed seed; the
512x512 matrix is always made here. Each case first runs both once with stdout captured
(`same` says whether they printed the same values) and under GNU time for peak RSS, then
PAIRS (default 11) timed runs in strict alternation, tool then baseline, stdout to
/dev/null; the ratio is median baseline wall / median tool wall (higher: the tool is
faster), with the pairwise range. Measurements, not tests: nothing here fails on a slow
result. The baselines run under this script's interpreter, which needs NumPy; the
environment is passed through unchanged (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, when
the machine sets them, affect both sides' BLAS).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

TOOL = sys.argv[1] if len(sys.argv) > 1 else "build/tensor-inspect"
PAIRS = int(sys.argv[2]) if len(sys.argv) > 2 else 11
PY = sys.executable


def wall(argv):
    start = time.perf_counter()
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if done.returncode != 0:
        raise RuntimeError(f"{argv}: exit {done.returncode}")
    return time.perf_counter() - start


def peak_rss_mib(argv):
    if not shutil.which("/usr/bin/time"):
        return float("nan")
    done = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, capture_output=True, text=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024


def tool_values(argv):
    out = subprocess.run(argv + ["--json"], capture_output=True, text=True, check=True).stdout
    return np.array(json.loads(out)["tolist"], dtype=np.float64)


def case(name, tool_argv, base_argv, base_values):
    got = tool_values(tool_argv)
    same = got.shape == base_values.shape and bool(
        np.allclose(got, base_values, rtol=1e-5, atol=1e-3 * max(1.0, float(np.abs(base_values).max()))))
    rss_t, rss_b = peak_rss_mib(tool_argv), peak_rss_mib(base_argv)
    wall(tool_argv), wall(base_argv)  # warm-up
    tt, tb = [], []
    for _ in range(PAIRS):
        tt.append(wall(tool_argv))
        tb.append(wall(base_argv))
    ratios = sorted(b / t for b, t in zip(tb, tt))
    print(f"{name:<12} tool {statistics.median(tt):8.4f} s  numpy {statistics.median(tb):8.4f} s  "
          f"ratio {statistics.median(tb) / statistics.median(tt):6.2f}x [{ratios[0]:.2f} .. {ratios[-1]:.2f}]  "
          f"peak RSS tool {rss_t:6.1f} MiB numpy {rss_b:6.1f} MiB  same {'yes' if same else 'NO'}")


def main():
    data = os.environ.get("TIBENCH_DATA", "/tmp/tibench")
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(20251201)
        f = os.path.join(data, "f32_1e7.npy")
        if not os.path.exists(f):
            f = os.path.join(tmp, "f32_1e7.npy")
            np.save(f, rng.standard_normal((10000, 1000)).astype(np.float32))
        m = os.path.join(tmp, "f32_512.npy")
        np.save(m, rng.standard_normal((512, 512)).astype(np.float32))
        x, mx = np.load(f), np.load(m)
        print(f"{PAIRS} pairs; ratio = median numpy wall / median tool wall; input {f}")
        case("sum_1e7", [TOOL, f, "-e", "x.sum()"], [PY, "-c", f"import numpy as np; print(np.load({f!r}).sum())"],
             np.array(x.sum(dtype=np.float64)))
        case("max_1e7", [TOOL, f, "-e", "x.max()"], [PY, "-c", f"import numpy as np; print(np.load({f!r}).max())"],
             np.array(x.max(), dtype=np.float64))
        # A reduction over the leading axis: read row after row (realize/reduce_leading.cpp).
        r = os.path.join(tmp, "f32_10000x1000.npy")
        xr = rng.standard_normal((10000, 1000)).astype(np.float32)
        np.save(r, xr)
        case("sum_axis0", [TOOL, r, "-e", "x.sum(axis=0)"],
             [PY, "-c", f"import numpy as np; print(np.load({r!r}).sum(axis=0).tolist())"],
             xr.sum(axis=0, dtype=np.float64))
        case("matmul_512", [TOOL, m, "-e", "x @ x.T"],
             [PY, "-c", f"import numpy as np; x = np.load({m!r}); print((x @ x.T).tolist())"],
             (mx @ mx.T).astype(np.float64))


if __name__ == "__main__":
    main()
