#!/usr/bin/env python3
"""Large-file behaviour of tensor-inspect: headers only for listings, only the bytes printed.

    /usr/bin/python3 tests/large_files.py build/tensor-inspect

Builds sparse files in a temporary directory (deleted afterwards; they take almost no disk
space): a 1 GiB safetensors file with one 1 GiB float32 tensor and one small tensor at its
end, a sharded checkpoint (index + two 512 MiB shards) and a 1 GiB .npy. Then runs the tool
on them as a child process and measures, per run:

  rchar      bytes the child read with read(2) and friends (/proc/<pid>/io, read while
             the child is a zombie, before it is reaped). The tool maps files, so
             this mostly counts the dynamic loader reading shared libraries.
  peak RSS   ru_maxrss of the child from wait4. NOTE: Linux carries the parent's peak
             into a child across fork + exec, so this number has a floor: the RSS of
             this script (printed as the launcher floor). Mapped file pages the child
             touched count in its RSS, so touching the whole file would show here.
  faults     minor + major page faults of the child (wait4).
  file cache bytes of the file(s) in the page cache after the run, counted with mincore
             after evicting them (fsync + POSIX_FADV_DONTNEED) before the run. This is
             what the run brought in, including the kernel's readahead around each
             touched page (read_ahead_kb of the device, often 128 KiB, sometimes MiBs).

Prints one line per check and a closing `N passed, M failed`; exits 0 when all passed.
No timing is checked here: timings belong to bench/.
"""
import ctypes
import json
import mmap
import os
import struct
import subprocess
import sys

import tally
from tally import check
import tempfile

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
PEAK_RSS_LIMIT = 64 * MiB
RCHAR_LIMIT = 1 * MiB
# Extra page faults allowed for printing one small tensor over those of a listing: at most
# 16 pages of a mapping are filled per fault, so this caps the file bytes touched at ~16 MiB.
EXTRA_FAULTS_LIMIT = 256

tally.pass_details = True


def note(text):
    print(f"# {text}", flush=True)


def mib(n):
    return f"{n / MiB:.1f} MiB"


# --- files ------------------------------------------------------------------------------

def finish(f):
    """Flushes a file to disk so that its pages are clean and can be evicted."""
    f.flush()
    os.fsync(f.fileno())


def write_safetensors(path, tensors, tail=b""):
    """Writes a safetensors header for (name, shape, nbytes) tensors, data left as a hole,
    with `tail` as the last bytes of the data section. Returns the data section's start."""
    header, offset = {}, 0
    for name, shape, nbytes in tensors:
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        start = f.tell()
        f.truncate(start + offset)
        f.seek(start + offset - len(tail))
        f.write(tail)
        finish(f)
    return start


def write_npy(path, count, head, descr="<f4"):
    """Writes a float32 .npy of `count` values: `head` first, then a hole of zeros."""
    text = ("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, count)).encode()
    text += b" " * (-(10 + len(text) + 1) % 64) + b"\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text)
        start = f.tell()
        f.write(head)
        f.truncate(start + 4 * count)
        finish(f)


def f32(*values):
    """The values as float32 rounds them, widened back to Python floats (what tolist gives)."""
    return list(struct.unpack(f"<{len(values)}f", struct.pack(f"<{len(values)}f", *values)))


# --- measurements -----------------------------------------------------------------------

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def cached_bytes(path):
    """Bytes of the file in the page cache (mincore over a mapping that is never touched)."""
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        p = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    finally:
        os.close(fd)
    if p in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), f"mmap {path}")
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    vec = ctypes.create_string_buffer(pages)
    try:
        if libc.mincore(p, size, vec) != 0:
            raise OSError(ctypes.get_errno(), f"mincore {path}")
    finally:
        libc.munmap(p, size)
    return sum(b & 1 for b in vec.raw) * mmap.PAGESIZE


def readahead_bytes(path):
    """The device's readahead window for the file (read_ahead_kb), or 8 MiB if unknown."""
    dev = os.stat(path).st_dev
    base = f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}"
    for q in (f"{base}/queue/read_ahead_kb", f"{base}/../queue/read_ahead_kb"):
        try:
            with open(q) as f:
                return int(f.read()) * KiB
        except (OSError, ValueError):
            pass
    return 8 * MiB


class Run:
    """One child process: exit status, stdout, stderr and what it cost."""

    def __init__(self, argv, files=()):
        for path in files:
            evict(path)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            child = subprocess.Popen(argv, stdout=out, stderr=err)
            # Wait without reaping: /proc/<pid>/io of a zombie still holds its totals.
            os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
            with open(f"/proc/{child.pid}/io") as f:
                io = {k: int(v) for k, v in (line.split(": ") for line in f.read().splitlines())}
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = self.code = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            self.out = out.read().decode(errors="replace")
            self.err = err.read().decode(errors="replace")
        self.rchar = io["rchar"]
        self.read_bytes = io["read_bytes"]
        self.peak_rss = usage.ru_maxrss * KiB
        self.faults = usage.ru_minflt + usage.ru_majflt
        self.majflt = usage.ru_majflt
        self.cached = sum(cached_bytes(p) for p in files)

    def costs(self):
        return (f"rchar {self.rchar / KiB:.1f} KiB, read_bytes {self.read_bytes / KiB:.1f} KiB, "
                f"peak RSS {mib(self.peak_rss)}, faults {self.faults} ({self.majflt} major), "
                f"file cache {mib(self.cached)}")

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError:
            return None


def check_run(name, run, cache_limit):
    """The checks every run gets: exit 0, small reads, small peak memory, few file pages."""
    check(f"{name}: exit status 0", run.code == 0,
          f"got {run.code}" + (f", stderr: {run.err.strip()}" if run.code else ""))
    check(f"{name}: rchar under {mib(RCHAR_LIMIT)}", run.rchar < RCHAR_LIMIT, run.costs())
    check(f"{name}: peak RSS under {mib(PEAK_RSS_LIMIT)}", run.peak_rss < PEAK_RSS_LIMIT, mib(run.peak_rss))
    check(f"{name}: file pages brought in under {mib(cache_limit)}", run.cached < cache_limit, mib(run.cached))


# --- the checks -------------------------------------------------------------------------

def main():
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} <path to tensor-inspect>", file=sys.stderr)
        return 2
    tool = os.path.abspath(sys.argv[1])
    if not os.access(tool, os.X_OK):
        print(f"{tool}: not an executable", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="ti-large-") as tmp:
        ra = readahead_bytes(tmp)
        note(f"readahead window {mib(ra)}; launcher floor of peak RSS {mib(Run(['/bin/true']).peak_rss)}")

        # 1 GiB safetensors: "big" (1 GiB of float32, a hole) then "small" (2x3) at the end.
        st = os.path.join(tmp, "big.safetensors")
        small = f32(1.5, -2.0, 3.25, 0.0, 1e-3, 7.0)
        start = write_safetensors(st, [("big", [GiB // 4], GiB), ("small", [2, 3], 24)],
                                  tail=struct.pack("<6f", *small))
        size = os.path.getsize(st)
        disk = os.stat(st).st_blocks * 512
        note(f"big.safetensors: {size} bytes, {mib(disk)} on disk")
        check("big.safetensors is sparse", disk < 16 * MiB, f"{mib(disk)} on disk for {mib(size)}")

        run = Run([tool, st, "--list"], [st])
        check_run("safetensors --list", run, ra + MiB)
        rows = [line.split()[:2] for line in run.out.splitlines()]
        check("safetensors --list shows both tensors", ["big", "float32"] in rows and ["small", "float32"] in rows,
              run.out.strip().replace("\n", " | "))

        run = Run([tool, st, "--list", "--json"], [st])
        check_run("safetensors --list --json", run, ra + MiB)
        got = [(t.get("name"), t.get("shape"), t.get("nbytes"), t.get("offset"))
               for t in (run.json() or {}).get("tensors", [])]
        want = [("big", [GiB // 4], GiB, start), ("small", [2, 3], 24, start + GiB)]
        check("safetensors --list --json: names, shapes, sizes, offsets", got == want, f"got {got}, want {want}")

        listing_faults = run.faults
        run = Run([tool, st, "--name", "small", "--json"], [st])
        # Two regions are touched: the header at the start and the tensor at the end.
        check_run("safetensors --name small --json", run, 2 * ra + MiB)
        extra = run.faults - listing_faults
        check(f"safetensors --name small: under {EXTRA_FAULTS_LIMIT} page faults more than a listing",
              extra < EXTRA_FAULTS_LIMIT, f"{run.faults} vs {listing_faults} ({extra:+d})")
        doc = run.json() or {}
        got = (doc.get("format"), doc.get("shape"), doc.get("nbytes"), doc.get("tolist"))
        want = ("f", [2, 3], 24, [small[:3], small[3:]])
        check("safetensors --name small: values", got == want, f"got {got}, want {want}")

        # Sharded checkpoint: an index and two 512 MiB shards, each with a weight and a bias.
        shards = []
        weight_map = {}
        for i in range(2):
            shard = f"model-{i + 1:05d}-of-00002.safetensors"
            path = os.path.join(tmp, shard)
            bias = f32(4.0 + i, -0.5 - i)
            write_safetensors(path, [(f"layer.{i}.weight", [128 * KiB, 1024], 512 * MiB), (f"layer.{i}.bias", [2], 8)],
                              tail=struct.pack("<2f", *bias))
            shards.append((shard, path, bias))
            weight_map[f"layer.{i}.weight"] = shard
            weight_map[f"layer.{i}.bias"] = shard
        index = os.path.join(tmp, "model.safetensors.index.json")
        with open(index, "w") as f:
            json.dump({"metadata": {"total_size": 2 * (512 * MiB + 8)}, "weight_map": weight_map}, f)
            finish(f)
        paths = [index] + [p for _, p, _ in shards]

        run = Run([tool, index, "--list", "--json"], paths)
        check_run("sharded --list --json", run, 2 * ra + MiB)
        tensors = (run.json() or {}).get("tensors", [])
        got = sorted((t.get("name"), t.get("shape"), t.get("nbytes"), shard in t.get("note", ""))
                     for t in tensors for shard, _, _ in shards if weight_map.get(t.get("name")) == shard)
        want = sorted([(f"layer.{i}.weight", [128 * KiB, 1024], 512 * MiB, True) for i in range(2)]
                      + [(f"layer.{i}.bias", [2], 8, True) for i in range(2)])
        check("sharded --list --json: both shards' tensors, each with its shard", got == want and len(tensors) == 4,
              f"got {got}")

        run = Run([tool, index, "--list"], paths)
        check_run("sharded --list", run, 2 * ra + MiB)
        check("sharded --list names both shards", all(shard in run.out for shard, _, _ in shards),
              run.out.strip().splitlines()[-1] if run.out.strip() else "no output")

        run = Run([tool, index, "--name", "layer.1.bias", "--json"], paths)
        check_run("sharded --name layer.1.bias --json", run, 3 * ra + MiB)
        got = (run.json() or {}).get("tolist")
        check("sharded --name layer.1.bias: values from the second shard", got == shards[1][2],
              f"got {got}, want {shards[1][2]}")

        # 1 GiB .npy with an expression that keeps two values.
        npy = os.path.join(tmp, "big.npy")
        head = f32(1.5, 2.5, -3.0)
        write_npy(npy, GiB // 4, struct.pack("<3f", *head))
        probe = Run([tool, "-e", "x + 1", "[1]"])
        if probe.code != 0 and "not built in" in probe.err:
            note(f"skipping the .npy expression checks: -e is not built in ({probe.err.strip()})")
        else:
            run = Run([tool, npy, "-e", "x[:2]", "--json"], [npy])
            check_run(".npy -e 'x[:2]' --json", run, ra + MiB)
            doc = run.json() or {}
            got = (doc.get("shape"), doc.get("tolist"))
            check(".npy -e 'x[:2]': values", got == ([2], head[:2]), f"got {got}, want {([2], head[:2])}")

            run = Run([tool, npy, "-e", "x[-3:]", "--json"], [npy])
            check_run(".npy -e 'x[-3:]' --json", run, 2 * ra + MiB)
            got = (run.json() or {}).get("tolist")
            check(".npy -e 'x[-3:]': values", got == [0.0, 0.0, 0.0], f"got {got}")

            # Big-endian: the byte swap must stay lazy too, so slicing touches two values.
            # 64 MiB is enough to tell: a full swap would bring in and copy all of it.
            be = os.path.join(tmp, "big_endian.npy")
            write_npy(be, 16 * MiB, struct.pack(">3f", *head), descr=">f4")
            run = Run([tool, be, "-e", "x[:2]", "--json"], [be])
            check_run("big-endian .npy (64 MiB) -e 'x[:2]' --json", run, ra + MiB)
            got = (run.json() or {}).get("tolist")
            check("big-endian .npy -e 'x[:2]': values", got == head[:2], f"got {got}, want {head[:2]}")

    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
