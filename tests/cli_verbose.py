#!/usr/bin/python3
"""-v and -vv log what a user debugging a file wants, on stderr only (issue 9 fault 16).

Usage: python3 tests/cli_verbose.py BUILD/tensor-inspect

For a sample file and an expression: stdout is byte for byte the same with and without
-v/-vv; without them stderr is empty; -v (info) names the detected format, the tensor and
metadata counts and the file size, and the realized view with its timing; -vv (debug)
adds the bytes mapped, each kernel scheduled and the expression's build time. The file's
size comes from os.stat, independently of the tool. Exit status 0 when all hold, 1 otherwise.
"""
import os
import subprocess
import sys


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def main():
    binary = sys.argv[1]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sample = os.path.join(root, "samples", "weights_f32.npy")
    size = os.stat(sample).st_size
    failures = []
    args = [sample, "-e", "x[0] * 2"]
    quiet, info, debug = run(binary, *args), run(binary, "-v", *args), run(binary, "-vv", *args)
    for name, r in (("quiet", quiet), ("-v", info), ("-vv", debug)):
        if r.returncode != 0:
            failures.append(f"{name}: exit {r.returncode}: {r.stderr}")
    if not (quiet.stdout == info.stdout == debug.stdout) or not quiet.stdout:
        failures.append("stdout differs between quiet, -v and -vv (logs must go to stderr only)")
    if quiet.stderr:
        failures.append(f"without -v stderr must be empty, got {quiet.stderr!r}")
    want_info = [f"{sample}: npy format, 1 tensor, ", f"metadata entries, {size} bytes; header parsed in",
                 "data(): float32 (3,), 12 bytes, realized in"]
    for w in want_info:
        if w not in info.stderr:
            failures.append(f"-v: stderr lacks {w!r}: {info.stderr!r}")
        if w not in debug.stderr:
            failures.append(f"-vv: stderr lacks {w!r}: {debug.stderr!r}")
    for w in [f"mapped {size} bytes read-only", "realize: kernel 0: ", "expression: parsed and built in"]:
        if w not in debug.stderr:
            failures.append(f"-vv: stderr lacks {w!r}: {debug.stderr!r}")
        if w in info.stderr:
            failures.append(f"-v: {w!r} is debug output, shown only with -vv")
    if len(info.stderr.splitlines()) > 6:
        failures.append(f"-v should stay a few lines, got {len(info.stderr.splitlines())}")
    for f in failures:
        print(f)
    print("verbose logging: " + ("ok" if not failures else f"{len(failures)} problems"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
