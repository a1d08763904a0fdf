#!/usr/bin/env python3
"""Summaries and --header of a 1 GiB tensor touch a few pages, not the tensor.

    /usr/bin/python3 tests/large_summary.py build/tensor-inspect

Builds a sparse 1 GiB float32 .npy (2^28 values, a few known ones at the start, around
the middle and at the end, zeros elsewhere; it takes almost no disk space) and runs the
tool on it as a child process, measured as tests/large_files.py does (its helpers):
the file's pages in the page cache after the run (mincore, the file evicted before),
rchar, peak RSS. Each run must bring in at most a readahead window per printed region,
and the values must be the ones at NumPy's positions (computed here, independently, with
numpy.array2string over an index array of the same shape). The same holds for --view-as
(memoryview.cast) over a big-endian copy of the file: its cast bytes are the native ones.

Prints one line per check and a closing `N passed, M failed`; exits 0 when all passed.
"""
import os
import re
import struct
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import large_files as lf  # noqa: E402  (the measuring helpers)
import tally  # noqa: E402

COUNT = lf.GiB // 4


def positions(shape, edgeitems=3):
    """NumPy's folded layout for a summarized array of `shape`, over a small stand-in array
    of indices, and the map from a stand-in index to the flat index in the full array.

    An index array of the full shape would not fit in memory. Each axis of the stand-in
    keeps min(n, 2 * edgeitems + 1) items, which array2string elides exactly as it elides
    the full axis (both are longer than 2 * edgeitems, or both are kept whole)."""
    small = [min(n, 2 * edgeitems + 1) for n in shape]
    idx = np.arange(int(np.prod(small))).reshape(small)
    layout = re.sub(r"\s+", "", np.array2string(idx, threshold=idx.size - 1, edgeitems=edgeitems, separator=", ",
                                                max_line_width=sys.maxsize))

    def full_flat(k):
        out = 0
        for i, n, m in zip(np.unravel_index(k, small), shape, small):
            out = out * n + int(i if i < edgeitems or m == n else n - (m - i))
        return out

    return layout, full_flat


def expected_line(shape, values, offset=0):
    layout, full_flat = positions(shape)
    text = re.sub(r"\d+", lambda m: repr(values.get(full_flat(int(m.group())) + offset, 0.0)), layout)
    return text.replace(",", ", ")


class Native:
    """Elements of memoryview casts of data()'s bytes: float32 `values` (a dict by flat index,
    0.0 elsewhere) in native little-endian order, as NumPy's tobytes() gives them."""

    def __init__(self, values):
        self.values = values

    def bytes_at(self, first, n):
        out = b""
        for k in range(first // 4, (first + n + 3) // 4):
            out += struct.pack("<f", self.values.get(k, 0.0))
        return out[first % 4:first % 4 + n]

    def byte(self, k):
        return self.bytes_at(k, 1)[0]

    def bits(self, k):
        return struct.unpack("<i", self.bytes_at(4 * k, 4))[0]

    def half(self, k):
        return struct.unpack("<H", self.bytes_at(2 * k, 2))[0]


class Elements(dict):
    """What expected_line reads: element k from a function of k."""

    def __init__(self, element):
        super().__init__()
        self.element = element

    def get(self, k, default=None):
        return self.element(k)


def main():
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} <path to tensor-inspect>", file=sys.stderr)
        return 2
    tool = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ti-large-summary-") as tmp:
        ra = lf.readahead_bytes(tmp)
        with open(tool, "rb") as f:
            sanitized = b"__asan_init" in f.read()
        if sanitized:
            # ASan's runtime and shadow memory take some 35 MiB more, and its shadow pages
            # fault in: the limits double and quadruple. The file's pages are checked as before.
            lf.PEAK_RSS_LIMIT *= 2
            lf.EXTRA_FAULTS_LIMIT *= 4
            lf.note(f"sanitizer build: peak RSS limit {lf.mib(lf.PEAK_RSS_LIMIT)}, "
                    f"{lf.EXTRA_FAULTS_LIMIT} extra faults allowed")
        npy = os.path.join(tmp, "big.npy")
        # Known values at the first three, the middle three and the last three positions.
        values = {0: 1.5, 1: 2.5, 2: -3.0, COUNT // 2 - 1: 4.25, COUNT // 2: 5.5, COUNT // 2 + 1: 6.0,
                  COUNT - 3: 7.75, COUNT - 2: 8.0, COUNT - 1: -9.5}
        lf.write_npy(npy, COUNT, struct.pack("<3f", 1.5, 2.5, -3.0))
        with open(npy, "r+b") as f:
            data_start = os.path.getsize(npy) - 4 * COUNT
            for k, v in values.items():
                f.seek(data_start + 4 * k)
                f.write(struct.pack("<f", v))
            lf.finish(f)
        lf.note(f"readahead window {lf.mib(ra)}; big.npy {lf.mib(os.path.getsize(npy))}, "
                f"{lf.mib(os.stat(npy).st_blocks * 512)} on disk")

        cases = [
            # (name, extra args, shape of the printed tensor, offset of its first element, printed regions)
            ("1 GiB .npy, text summary", [], (COUNT,), 0, 2),
            ("1 GiB .npy as 16384x16384, text summary", ["-e", "x.reshape(16384, 16384)"], (16384, 16384), 0, 12),
            ("1 GiB .npy slice x[1:-1] * 2, text summary", ["-e", "x[1:-1] * 2"], (COUNT - 2,), 1, 2),
        ]
        # The faults of a run that reads the header only: what a summary may add to it is a
        # few pages per printed region (tests/large_files.py's limit), not 262144 pages.
        header_faults = lf.Run([tool, npy, "--header"], [npy]).faults
        for name, args, shape, offset, regions in cases:
            run = lf.Run([tool, npy, *args], [npy])
            lf.check_run(name, run, regions * ra + lf.MiB)
            extra = run.faults - header_faults
            lf.check(f"{name}: under {lf.EXTRA_FAULTS_LIMIT} "
                     f"page faults more than --header", extra < lf.EXTRA_FAULTS_LIMIT,
                     f"{run.faults} vs {header_faults} ({extra:+d})")
            got = next((line[len("tolist: "):] for line in run.out.splitlines() if line.startswith("tolist: ")), None)
            scale = 2.0 if "* 2" in name else 1.0
            want = expected_line(shape, {k - offset: v * scale for k, v in values.items()})
            lf.check(f"{name}: NumPy's elements, Python's values", got == want, f"got {got!r}, want {want!r}")

        run = lf.Run([tool, npy, "--json", "--threshold", "1000", "--edgeitems", "1"], [npy])
        lf.check_run("1 GiB .npy --json --edgeitems 1", run, 2 * ra + lf.MiB)
        doc = run.json() or {}
        lf.check(
            "1 GiB .npy --json --edgeitems 1: tolist and summary",
            doc.get("tolist") == [1.5, "...", -9.5] and doc.get("summary") == {
                "summarized": True,
                "shown": 2,
                "size": COUNT
            }, f"got {doc.get('tolist')}, {doc.get('summary')}")

        # --view-as (memoryview.cast) over a big-endian file: the shown elements of the cast
        # view are gathered from the stored bytes, as a summary of the file itself is, not
        # from a swapped copy of the whole 1 GiB (which it realized before: peak RSS 1 GiB).
        be = os.path.join(tmp, "big_be.npy")
        lf.write_npy(be, COUNT, b"", descr=">f4")
        with open(be, "r+b") as f:
            data_start = os.path.getsize(be) - 4 * COUNT
            for k, v in values.items():
                f.seek(data_start + 4 * k)
                f.write(struct.pack(">f", v))
            lf.finish(f)
        native = Native(values)  # data()'s bytes: the values in native (little-endian) order
        cases = [
            ("B", ["--view-as", "B"], (4 * COUNT,), native.byte, 2),
            ("B then i", ["--view-as", "B", "--view-as", "i"], (COUNT,), native.bits, 2),
            ("B then H:16384,32768", ["--view-as", "B", "--view-as", "H:16384,32768"], (16384, 32768), native.half, 12),
        ]
        for what, args, shape, element, regions in cases:
            name = f"1 GiB big-endian .npy --view-as {what}, text summary"
            run = lf.Run([tool, be, *args], [be])
            lf.check_run(name, run, regions * ra + lf.MiB)
            got = next((line[len("tolist: "):] for line in run.out.splitlines() if line.startswith("tolist: ")), None)
            want = expected_line(shape, Elements(element))
            lf.check(f"{name}: NumPy's elements of the cast bytes", got == want, f"got {got!r}, want {want!r}")
            same = lf.Run([tool, npy, *args], [npy])
            lf.check(f"{name}: the output of the same "
                     f"values stored little-endian", run.out == same.out and same.code == 0,
                     "equal" if run.out == same.out else f"{run.out[-200:]!r} vs {same.out[-200:]!r}")

        # --header reads the .npy header only, also through an expression (shaped, not run).
        for args, shape in (([], [COUNT]), (["-e", "(x.reshape(16384, 16384).T * 2).sum(axis=0)"], [16384])):
            run = lf.Run([tool, npy, "--header", "--json", *args], [npy])
            lf.check_run(f"1 GiB .npy --header {' '.join(args)}", run, ra + lf.MiB)
            doc = run.json() or {}
            got = (doc.get("shape"), doc.get("nbytes"), doc.get("format"), "tolist" in doc)
            lf.check(f"1 GiB .npy --header "
                     f"{' '.join(args)}: fields, no tolist", got == (shape, 4 * shape[0], "f", False), f"got {got}")

    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
