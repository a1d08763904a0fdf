#!/usr/bin/env python3
"""Remote scans beside `curl -o /dev/null` of the same URLs, through a local nginx.

    /usr/bin/python3 bench/remote_compare.py build/tensor-inspect [--runs N] [--sparse-gib G]

Starts nginx on 127.0.0.1 (tests/nginx_server.py: Debian's nginx-light) serving two files
made in a temporary folder: a 1 GiB safetensors file of standard-normal float32 (seed 0,
four tensors; a second name for it, a hard link, is the other side of a diff) and a sparse
safetensors file of G GiB (default 8; one hole: no disk space, read as zeros). Rows, each N
alternated runs (default 3) of the tool and of curl under GNU time: `URL --stats` and `hash
URL` against `curl -s -o /dev/null URL`, `diff URL URL2` against curl of both URLs one after
the other, and the sparse file's `--stats`; then the local `diff` of the pair, whose peak RSS
is the figure. Each row gives the median wall times, their ratio and the tool's peak RSS
(max over the runs). The tool's stdout is checked against the same command on the local
paths (the URLs replaced), so a fast wrong answer does not pass unnoticed. A measurement,
not a test: nothing fails on a slow result.
"""
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
from nginx_server import Nginx  # noqa: E402

MiB, GiB = 1 << 20, 1 << 30


def write_safetensors(path, tensors, dense):
    """tensors: (name, shape) of float32; dense: fill with N(0, 1) values, else leave a hole."""
    header, offset = {}, 0
    for name, shape in tensors:
        n = 4 * int(np.prod(shape))
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    rng = np.random.default_rng(0)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        if not dense:
            f.truncate(8 + len(text) + offset)
            return
        left = offset
        while left:
            n = min(left, 64 * MiB)
            f.write(rng.standard_normal(n // 4, dtype=np.float32).tobytes())
            left -= n


def timed(args, ok=(0,)):
    """(wall seconds, peak RSS bytes, stdout) of args under GNU time; exit statuses in `ok` pass."""
    with tempfile.NamedTemporaryFile() as t:
        p = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%e %M", *args], capture_output=True, text=True)
        if p.returncode not in ok:
            sys.exit(f"{args[0]} failed ({p.returncode}): {p.stderr.strip()}")
        wall, rss = open(t.name).read().split()[-2:]
        return float(wall), int(rss) * 1024, p.stdout


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    tool = os.path.abspath(args[0])
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    sparse_gib = int(args[args.index("--sparse-gib") + 1]) if "--sparse-gib" in args else 8
    tmp = tempfile.mkdtemp(prefix="ti-remote-bench-")
    www = os.path.join(tmp, "www")
    os.mkdir(www)
    files = [("dense-1g.safetensors", [(f"layer.{i}.weight", (8192, 8192)) for i in range(4)], True),
             (f"sparse-{sparse_gib}g.safetensors", [(f"layer.{i}.weight", (16384, 16384)) for i in range(sparse_gib)],
              False)]
    for name, tensors, dense in files:
        write_safetensors(os.path.join(www, name), tensors, dense)
    os.link(os.path.join(www, "dense-1g.safetensors"), os.path.join(www, "dense-1g-b.safetensors"))
    nginx = Nginx(tmp, www)
    try:
        dense, dense_b, sparse = (nginx.url("files", n) for n in ("dense-1g.safetensors", "dense-1g-b.safetensors",
                                                                   files[1][0]))
        rows = [("dense-1g --stats", [dense, "--stats"], [dense]),
                ("dense-1g hash", ["hash", dense], [dense]),
                ("dense-1g diff (two names)", ["diff", dense, dense_b], [dense, dense_b]),
                (f"sparse-{sparse_gib}g --stats", [sparse, "--stats"], [sparse])]
        print(f"{'command':28} {'curl s':>7} {'tool s':>7} {'ratio':>6} {'tool peak RSS':>14}")
        for label, args, urls in rows:
            local_path = lambda a: os.path.join(www, a.rsplit("/", 1)[1]) if a.startswith("http") else a
            local = subprocess.run([tool] + [local_path(a) for a in args], capture_output=True, text=True).stdout
            for u in urls:
                subprocess.run(["curl", "-s", "-o", "/dev/null", u], check=True)  # the file in the page cache
            curl, ours, peak = [], [], 0
            for _ in range(runs):
                curl.append(sum(timed(["curl", "-s", "-o", "/dev/null", u])[0] for u in urls))
                wall, rss, out = timed([tool] + args, ok=(0, 1))
                for u in urls:
                    out = out.replace(u, local_path(u))
                if out != local:
                    sys.exit(f"{label}: the remote output differs from the local one")
                ours.append(wall)
                peak = max(peak, rss)
            c, o = statistics.median(curl), statistics.median(ours)
            print(f"{label:28} {c:7.2f} {o:7.2f} {o / c:6.2f} {peak / MiB:10.0f} MiB")
        pair = [os.path.join(www, "dense-1g.safetensors"), os.path.join(www, "dense-1g-b.safetensors")]
        walls, peak = [], 0
        for _ in range(runs):
            wall, rss, _ = timed([tool, "diff"] + pair, ok=(0, 1))
            walls.append(wall)
            peak = max(peak, rss)
        label = "local diff of the 1 GiB pair"
        print(f"{label:28} {'':7} {statistics.median(walls):7.2f} {'':6} {peak / MiB:10.0f} MiB")
    finally:
        nginx.stop()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
