#!/usr/bin/env python3
"""HDF5 datasets of many small chunks, written by h5py, read in bounded memory and time.

    /usr/bin/python3 tests/hdf5_many_chunks.py build/tensor-inspect

libhdf5 keeps a record of about 2 KB for each chunk one read selects, so a dataset of 655,360
chunks of (2, 4) read whole peaked at 1.26 GB for 10 MiB of values; and `validate` asked the
chunk index for its chunks one by one (H5Dget_chunk_info walks the index from its start each
time in libhdf5 1.10), which had not ended after 10 minutes. Checked here:
1. `export` of each dataset to .npy equals h5py's array, byte for byte: the 2-D one of 327,680
   written chunks, one never written but 4 rows (its fill value 1.5 elsewhere), a 3-D one whose
   slabs run along its middle axis (7 x 5,000 x 5 chunks), a gzip one with partial edge chunks, and two
   of (120000, 48) float32 chunked by column, plain and gzip, which a C-order walk reads an element at a
   time (it read a whole chunk for each element, and never ended; now bands of chunks, kept together).
2. `--stats` and `validate` of the file end inside 60 s and peak under the idle peak + 128 MiB, and so
   does `export -e 'x[:20000]'` of the gzip one chunked by column.
3. `export` and `validate` take `--limit` after their name: hdf5_chunks=100000 stops them at the cap
   the error names (exit 2 and 1), 1M lets them read the file.
Prints one line per check and `N passed, M failed`.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from tally import check
from peak_rss import run_measured

try:
    import h5py  # python3-h5py: scripts/setup.sh installs it with the test packages
except ImportError:
    print("SKIP: h5py does not import (Debian python3-h5py)")
    sys.exit(0)
import numpy as np

MiB = 1 << 20


def main():
    binary = os.path.abspath(sys.argv[1])
    rng = np.random.default_rng(31)
    with tempfile.TemporaryDirectory(prefix="ti-hdf5-chunks-") as tmp:
        path = os.path.join(tmp, "many.h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("dense", data=rng.standard_normal((655360, 4)).astype("f4"), chunks=(2, 4))
            d = f.create_dataset("sparse", shape=(655360, 4), dtype="f4", chunks=(2, 4), fillvalue=1.5)
            d[10:14] = np.arange(16, dtype="f4").reshape(4, 4)
            f.create_dataset("middle", data=rng.integers(-9, 9, (7, 5000, 9), dtype="i2"), chunks=(1, 1, 2))
            f.create_dataset("gzip", data=rng.standard_normal((301, 70, 11)), chunks=(2, 3, 4),
                             compression="gzip")
        # Chunked by column, larger than 16 MiB: read an element at a time in C order (hdf5_read.cpp).
        columns = os.path.join(tmp, "columns.h5")
        with h5py.File(columns, "w") as f:
            f.create_dataset("columns", data=rng.standard_normal((120000, 48)).astype("f4"), chunks=(120000, 1))
            f.create_dataset("columns_gzip", data=rng.standard_normal((120000, 48)).astype("f4"),
                             chunks=(120000, 1), compression="gzip")
        want, where = {}, {}
        for file in (path, columns):
            with h5py.File(file, "r") as f:
                for name in f:
                    want[name], where[name] = f[name][()], file
        for name, value in want.items():
            out = os.path.join(tmp, name + ".npy")
            p = subprocess.run([binary, "export", where[name], "--name", name, "-o", out], capture_output=True,
                               text=True, timeout=120)
            got = np.load(out) if p.returncode == 0 else None
            check(f"export of '{name}' {value.shape} equals h5py's array",
                  got is not None and got.dtype == value.dtype and got.shape == value.shape and
                  got.tobytes() == value.tobytes(), f"exit {p.returncode}: {p.stderr[-300:]}")
        out = os.path.join(tmp, "band.npy")
        status, _, err, peak = run_measured(binary, ["export", columns, "--name", "columns_gzip", "-e", "x[:20000]",
                                                     "-o", out], 60)
        got = np.load(out) if status == 0 else None
        check("export -e 'x[:20000]' of 'columns_gzip' ends inside 60 s, equal to h5py's rows, under 128 MiB",
              got is not None and got.tobytes() == want["columns_gzip"][:20000].tobytes() and peak < 128 * MiB,
              f"status {status}: {err[-300:]} peak {peak / MiB:.0f} MiB")
        # The cap the error names is raised where it says, after the subcommand as before it.
        for verb, code in (("export", 2), ("validate", 1)):
            args = [verb, path, "--limit", "hdf5_chunks=100000"] + (["-o", os.path.join(tmp, "o.npz"), "--all"]
                                                                     if verb == "export" else [])
            p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=120)
            check(f"{verb} --limit hdf5_chunks=100000 stops at the cap, exit {code}",
                  p.returncode == code and "raise it with --limit hdf5_chunks=N" in p.stdout + p.stderr,
                  f"exit {p.returncode}: {p.stdout[-200:]} {p.stderr[-200:]}")
            p = subprocess.run([binary] + [a.replace("100000", "1M") for a in args], capture_output=True, text=True,
                               timeout=120)
            check(f"{verb} --limit hdf5_chunks=1M reads the file, exit 0", p.returncode == 0,
                  f"exit {p.returncode}: {p.stderr[-300:]}")
        tiny = os.path.join(tmp, "tiny.h5")
        with h5py.File(tiny, "w") as f:
            f.create_dataset("x", data=np.ones((2, 3), "f4"), chunks=(1, 3))
        for args, file, what in ((["--stats"], path, "4 datasets of up to 655,360 chunks"),
                                 (["validate"], path, "4 datasets of up to 655,360 chunks"),
                                 (["--stats"], columns, "2 datasets chunked by column")):
            _, _, _, idle = run_measured(binary, args + [tiny] if args[0] == "validate" else [tiny] + args, 60)
            status, out, err, peak = run_measured(binary, args + [file] if args[0] == "validate" else [file] + args,
                                                  60)
            check(f"{' '.join(args)} of {what} ends, exit 0", status == 0, f"status {status}: {err[-300:]}")
            check(f"{' '.join(args)} of {what} peaks under idle + 128 MiB", peak < idle + 128 * MiB,
                  f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
    return tally.summary()


if __name__ == "__main__":
    tally.pass_details = True
    sys.exit(main())
