#!/usr/bin/python3
"""Reductions over huge lazy (broadcast) tensors: flat memory, and no run of hours.

    /usr/bin/python3 tests/large_reductions.py build/tensor-inspect

A sum over a broadcast view computes every element of it but stores none: the reduction
folds blocks of 2048 elements and combines their partials in a fixed tree. Those partials
were all kept until the end (8 bytes a block: 16 MiB for 2**32 elements, 4 GiB for 2**40);
they are now combined a batch at a time in the same tree, so the peak RSS stays flat. The
value is checked against what the broadcast holds (every element 1: the count, exact in
float32 here). Peak RSS is /usr/bin/time's report for the tool alone; sanitizer builds skip
the bound (ASan's shadow memory). No time is asserted.

A kernel that would compute more than `compute_elements` (2**34) elements is refused before
it starts, naming the cap (a sum over a 2**40 broadcast ran for hours); --limit raises it,
and products that BLAS runs are not counted. What runs long shows its progress when stderr
is a terminal (a pseudo-terminal here): one line, cleared when the kernel ends; through a
pipe, stderr stays empty.

Prints one line per check and a closing `N passed, M failed`; exit 0 when all passed.
"""
import os
import subprocess
import sys

import tally
import terminal
from peak_rss import run_measured
from tally import check

tally.pass_details = True
MiB = 1 << 20


def run(binary, args, timeout=600):
    """(exit status, stdout, stderr, peak RSS in bytes) of one run; status None on timeout."""
    return run_measured(binary, args, timeout)


def run_on_terminal(binary, args, timeout=120):
    """(exit status, stdout, what the tool wrote to stderr) with stderr a pseudo-terminal."""
    status, out, err = terminal.run_on_terminal([binary, *args], capture_stdout=True, timeout=timeout)
    return status, out.decode(), err.decode()


def main():
    binary = os.path.abspath(sys.argv[1])
    with open(binary, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    # 2**32 elements, 2**21 blocks: 16 MiB of partials when all are kept.
    expr = "Tensor.ones(2**12).contiguous().reshape(1, -1).expand(2**20, 2**12).sum()"
    status, out, err, rss = run(binary, ["-e", expr])
    check(f"{expr} is 4294967296.0 "
          f"in under 12 MiB", status == 0 and "tolist: 4294967296.0" in out and (sanitized or 0 < rss < 12 * MiB),
          f"peak RSS {rss / MiB:.1f} MiB, exit {status} {err.strip()}")
    # Refused at once: exit 2, one line naming the cap and how to raise it, nothing on stdout.
    huge = "Tensor.arange(2**20).float().reshape(1, -1).expand(2**20, 2**20).sum()"
    status, out, err, _ = run(binary, ["-e", huge], timeout=60)
    check(f"{huge} is refused, naming compute_elements", status == 2 and out == "" and err.count("\n") == 1 and
          "REDUCE_SUM over shape (1048576, 1048576): 1099511627776 elements to compute, more than 17179869184 "
          "(limit compute_elements; raise it with --limit compute_elements=N)" in err, f"exit {status} {err.strip()}")
    small = "Tensor.ones(2**11).contiguous().reshape(1, -1).expand(2**10, 2**11).sum()"  # 2**21 elements
    status, out, err, _ = run(binary, ["-e", small, "--limit", "compute_elements=1M"])
    check("--limit compute_elements=1M "
          "refuses a sum of 2**21 elements", status == 2 and "compute_elements" in err, err.strip())
    status, out, err, _ = run(binary, ["-e", small, "--limit", "compute_elements=2M"])
    check("--limit compute_elements=2M lets it run: 2097152.0", status == 0 and "tolist: 2097152.0" in out, err.strip())
    product = "(Tensor.ones(128, 128).contiguous() @ Tensor.ones(128, 128).contiguous())[0, :2]"  # M*N*K = 2**21
    status, out, err, _ = run(binary, ["-e", product, "--limit", "compute_elements=1M"])
    check("a float32 product BLAS runs is not counted", status == 0 and "tolist: [128.0, 128.0]" in out, err.strip())
    # Progress: four batches of 4096 blocks, a line drawn at the first and cleared at the end.
    expr = "Tensor.ones(2**12).contiguous().reshape(1, -1).expand(2**13, 2**12).sum()"
    status, out, err = run_on_terminal(binary, ["-e", expr])
    check("on a terminal, a sum of 2**25 elements draws its progress and clears it",
          status == 0 and "tolist: 33554432.0" in out and err.startswith("\rtensor-inspect: computing: 25%, ")
          and err.endswith("\r\x1b[K") and "\n" not in err, repr(err))
    status, out, err, _ = run(binary, ["-e", expr])
    check("through a pipe, stderr stays empty", status == 0 and "tolist: 33554432.0" in out and err == "", repr(err))
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
