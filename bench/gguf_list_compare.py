#!/usr/bin/python3
"""`tensor-inspect FILE --list` against antirez's gguf-tools `show FILE`, side by side in
one alternating run, with each one's peak RSS and our start-up floor beside them.

    /usr/bin/python3 bench/gguf_list_compare.py build/tensor-inspect GGUF_TOOLS FILE.gguf [FILE.gguf ...] [--runs 51]

GGUF_TOOLS is a gguf-tools binary built elsewhere (nothing is built or fetched here; see
../shared/bench/peers/README: `make` in a copy of its gguf-tools folder). The files are
typically ../shared/bench/peers/make_gguf_headers.py's llama3like.gguf (128,256-token
vocabulary, 280,147 merges, 291 tensors) and many.gguf (32,000 tokens, 2,000 tensors).

Times whole processes, round-robin (each command once per round, RUNS rounds), spawned
with posix_spawn, stdout/stderr to /dev/null; the peak RSS is GNU time's (`time -f %M`) of
one more run of each (a child spawned from Python reports Python's own RSS as its
ru_maxrss, so wait4's figure would be the interpreter's). Commands per file: `gguf-tools show
FILE`, `tensor-inspect FILE --list`, and, once, `tensor-inspect 5` (our start-up: a
literal printed; bench/startup.py puts it beside /bin/true). Prints the fastest and
median wall time of each and the median CPU time (user + sys, from wait4: the child's own),
`ratio` = gguf-tools median / tensor-inspect median (higher: tensor-inspect faster) and the
same of the fastest runs and of CPU time. A measurement, not a test: run it
on a quiet machine.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def peak_rss_kib(argv):
    """Peak RSS of one run of `argv` under GNU time, in KiB."""
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name, *argv], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        return int(out.read().split()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("gguf_tools")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=51)
    args = ap.parse_args()
    ti, gt = os.path.abspath(args.binary), os.path.abspath(args.gguf_tools)
    commands = [("tensor-inspect 5", [ti, "5"])]
    for path in args.files:
        name = os.path.basename(path)
        commands.append((f"gguf-tools show {name}", [gt, "show", path]))
        commands.append((f"tensor-inspect {name} --list", [ti, path, "--list"]))
    null = os.open(os.devnull, os.O_RDWR)
    actions = [(os.POSIX_SPAWN_DUP2, null, fd) for fd in (0, 1, 2)]
    times = [[] for _ in commands]
    cpu = [[] for _ in commands]
    rss = [peak_rss_kib(argv) for _, argv in commands]
    for _ in range(args.runs):
        for k, (_, argv) in enumerate(commands):
            start = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
            _, status, usage = os.wait4(pid, 0)
            times[k].append(time.perf_counter() - start)
            cpu[k].append(usage.ru_utime + usage.ru_stime)
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    print(f"{args.runs} rounds; load average {os.getloadavg()[0]:.2f} at the end")
    print(f"{'command':44} {'fastest':>9} {'median':>9} {'CPU med':>9} {'peak RSS':>10}")
    for (label, _), t, c, kib in zip(commands, times, cpu, rss):
        print(f"{label[:44]:44} {min(t) * 1e3:7.3f}ms {statistics.median(t) * 1e3:7.3f}ms "
              f"{statistics.median(c) * 1e3:7.3f}ms {kib / 1024:7.1f}MiB")
    for i in range(1, len(commands), 2):
        base, ours = times[i], times[i + 1]
        cpu_ratio = statistics.median(cpu[i]) / statistics.median(cpu[i + 1])
        print(f"ratio {os.path.basename(args.files[i // 2])}: {statistics.median(base) / statistics.median(ours):.2f} "
              f"(fastest {min(base) / min(ours):.2f}, CPU {cpu_ratio:.2f}); "
              f"peak RSS gguf-tools {rss[i] / 1024:.1f} MiB, "
              f"tensor-inspect {rss[i + 1] / 1024:.1f} MiB")


if __name__ == "__main__":
    sys.exit(main())
