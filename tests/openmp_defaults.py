#!/usr/bin/python3
"""Threads that wait sleep rather than spin, unless the user asks otherwise.

Usage: python3 tests/openmp_defaults.py BUILD/tensor-inspect

tensor-inspect starts its OpenMP runtime with OMP_WAIT_POLICY=passive where the user set
neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT (app/openmp_defaults.cpp says why). libgomp
prints the spin count it settled on under OMP_DISPLAY_ENV=verbose; its manual gives the
values: 0 for PASSIVE, 300,000 when nothing is set, 30 billion for ACTIVE, and
GOMP_SPINCOUNT itself when given. Output must not change with the policy. A build on
another OpenMP runtime (LLVM's libomp in the sanitizer build) prints no GOMP_SPINCOUNT
line; the spin checks then say so and are skipped, the output check still runs.
Exit status 0 when all hold, 1 otherwise.
"""
import os
import re
import subprocess
import sys

import tally


def run(binary, env_extra, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env.update(env_extra)
    return subprocess.run([binary, *args], capture_output=True, text=True, env=env)


def spincount(stderr):
    m = re.search(r"GOMP_SPINCOUNT = '(\d+)'", stderr)
    return int(m.group(1)) if m else None


def main():
    binary = sys.argv[1]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sample = os.path.join(root, "samples", "weights_f32.npy")
    cases = (("nothing set", {}, 0),
             ("OMP_WAIT_POLICY=active", {"OMP_WAIT_POLICY": "active"}, 30_000_000_000),
             ("OMP_WAIT_POLICY=passive", {"OMP_WAIT_POLICY": "passive"}, 0),
             ("GOMP_SPINCOUNT=5000", {"GOMP_SPINCOUNT": "5000"}, 5000))
    plain = run(binary, {}, sample, "-e", "x.sum()")
    tally.check("a plain run succeeds", plain.returncode == 0 and plain.stdout, plain.stderr)
    for name, env, want in cases:
        r = run(binary, {**env, "OMP_DISPLAY_ENV": "verbose"}, sample, "-e", "x.sum()")
        tally.check(f"{name}: same output", r.returncode == 0 and r.stdout == plain.stdout, r.stderr[-300:])
        got = spincount(r.stderr)
        if got is None:
            print(f"SKIP {name}: this OpenMP runtime prints no GOMP_SPINCOUNT")
            continue
        tally.check(f"{name}: libgomp spins {want} times before it sleeps", got == want, f"got {got}")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
