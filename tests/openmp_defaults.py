#!/usr/bin/python3
"""Threads that wait sleep rather than spin, and workers keep to CPUs of their own, unless
the user asks otherwise.

Usage: python3 tests/openmp_defaults.py BUILD/tensor-inspect

tensor-inspect starts its OpenMP runtime (app/term/openmp_defaults.cpp says why) with
- OMP_WAIT_POLICY=passive where the user set neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT.
  libgomp prints the spin count it settled on under OMP_DISPLAY_ENV=verbose; its manual
  gives the values: 0 for PASSIVE, 300,000 when nothing is set, 30 billion for ACTIVE, and
  GOMP_SPINCOUNT itself when given;
- OMP_PROC_BIND=close over the places {every allowed CPU},{c},{c},... where the user set
  none of OMP_PLACES, OMP_PROC_BIND, GOMP_CPU_AFFINITY, KMP_AFFINITY and more than one CPU
  is allowed: the first place holds all of os.sched_getaffinity, the others one CPU each,
  every allowed CPU but one (the one the process started on). Under `taskset` to one CPU
  nothing is bound, and the user's OMP_PLACES or OMP_PROC_BIND stand;
- OMP_THREAD_LIMIT of 8 threads per allowed CPU (at least 64) where the user set none, so
  that OMP_NUM_THREADS=100000 runs (it crashed libgomp).
Output must not change with any of these. A build on another OpenMP runtime (LLVM's
libomp in the sanitizer build) prints no GOMP_SPINCOUNT line and its own place syntax; the
runtime checks then say so and are skipped, the output checks still run.
Exit status 0 when all hold, 1 otherwise.
"""
import os
import re
import subprocess
import sys

import tally


def run(binary, env_extra, *args, cpus=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_"))}
    env.update(env_extra)
    preexec = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    return subprocess.run([binary, *args], capture_output=True, text=True, env=env, preexec_fn=preexec)


def places(stderr):
    """libgomp's OMP_PLACES line as a list of CPU sets ('{0:2},{3}' -> [{0, 1}, {3}]), or None."""
    m = re.search(r"OMP_PLACES = '([^']*)'", stderr)
    if not m:
        return None
    out = []
    for place in re.findall(r"\{([^}]*)\}", m.group(1)):
        cpus = set()
        for part in place.split(","):
            nums = [int(x) for x in part.split(":")]
            start, length, stride = (nums + [1, 1])[:3]
            cpus.update(start + i * stride for i in range(length))
        out.append(cpus)
    return out


def proc_bind(stderr):
    m = re.search(r"OMP_PROC_BIND = '([A-Z]+)", stderr)
    return m.group(1) if m else None


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

    allowed = os.sched_getaffinity(0)
    display = {"OMP_DISPLAY_ENV": "verbose"}
    r = run(binary, display, sample, "-e", "x.sum()")
    tally.check("default placement: same output", r.returncode == 0 and r.stdout == plain.stdout, r.stderr[-300:])
    got = places(r.stderr)
    if spincount(r.stderr) is None:
        print("SKIP placement: this OpenMP runtime is not libgomp")
    elif len(allowed) < 2:
        print(f"SKIP default placement: this process may use only CPU {sorted(allowed)}")
    else:
        workers = got[1:] if got else []
        tally.check("default placement: OMP_PROC_BIND is close", proc_bind(r.stderr) == "CLOSE", r.stderr[-400:])
        tally.check(f"default placement: the first place is every allowed CPU {sorted(allowed)}",
                    bool(got) and got[0] == allowed, f"{got}")
        tally.check("default placement: then one place per allowed CPU but one",
                    len(workers) == len(allowed) - 1 and all(len(w) == 1 for w in workers) and
                    len(set().union(*workers)) == len(workers) and set().union(*workers) < allowed, f"{got}")
        one = {min(allowed)}
        r1 = run(binary, display, sample, "-e", "x.sum()", cpus=one)
        tally.check(
            "under taskset to one CPU: nothing bound, same output", r1.returncode == 0 and r1.stdout == plain.stdout and
            proc_bind(r1.stderr) == "FALSE" and places(r1.stderr) == [], r1.stderr[-400:])
        for name, env in (("OMP_PROC_BIND=false", {
                "OMP_PROC_BIND": "false"
        }), ("OMP_PLACES=cores", {
                "OMP_PLACES": "cores"
        })):
            ru = run(binary, {**display, **env}, sample, "-e", "x.sum()")
            mine = places(ru.stderr)
            tally.check(f"{name}: the user's setting stands, same output",
                        ru.returncode == 0 and ru.stdout == plain.stdout and not (mine and mine[0] == allowed) and
                        (proc_bind(ru.stderr) == "FALSE") == (name == "OMP_PROC_BIND=false"), ru.stderr[-400:])
    # An absurd thread count: libgomp crashed (SIGSEGV) or exited 1 before the thread limit.
    many = run(binary, {"OMP_NUM_THREADS": "100000"}, sample, "-e", "x.sum()")
    tally.check("OMP_NUM_THREADS=100000: same output, exit 0", many.returncode == 0 and many.stdout == plain.stdout,
                f"exit {many.returncode}: {many.stderr[-300:]}")
    limit = re.search(r"OMP_THREAD_LIMIT = '(\d+)'", run(binary, display, sample).stderr)
    if limit:
        tally.check("the thread limit is 8 per "
                    "allowed CPU, at least 64",
                    int(limit.group(1)) == max(64, 8 * len(allowed)), limit.group(0))
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
