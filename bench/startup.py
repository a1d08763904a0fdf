#!/usr/bin/python3
"""Start-up of tensor-inspect next to its floor on this machine, in one alternating run.

    /usr/bin/python3 bench/startup.py build/tensor-inspect [--runs 300] [-- EXTRA ARGS]

Times whole processes, round-robin (each command once per round, RUNS rounds), with
posix_spawn and stdout/stderr to /dev/null:
  /bin/true                     the C floor: exec, ld.so and libc
  empty C++ with <iostream>     libstdc++ linked statically as ours is, std::cout, libm's exp
  empty C++ without <iostream>  the same without the stream and locale set-up
  tensor-inspect 5              our start-up (a literal, printed)
  tensor-inspect EXTRA ARGS     optional (e.g. --list FILE)
and prints the fastest and the median wall time of each and its ratio to /bin/true. The
two C++ programs are compiled here (g++, -O2, PIE) into a temporary folder. A measurement,
not a test: run it on a quiet machine.
"""
import argparse
import os
import sys
import shutil
import statistics
import subprocess
import tempfile
import time

WITH_IOSTREAM = r"""#include <cmath>
#include <cstdlib>
#include <iostream>
int main(int argc, char** argv) { std::cout << std::exp(argc > 5 ? std::atof(argv[1]) : 0.0) << '\n'; }
"""
WITHOUT_IOSTREAM = r"""#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  std::printf("%g\n", std::exp(argc > 5 ? std::atof(argv[1]) : 0.0) + static_cast<double>(args.size()));
}
"""


def compile_cpp(folder, name, text):
    src, exe = os.path.join(folder, name + ".cpp"), os.path.join(folder, name)
    with open(src, "w") as f:
        f.write(text)
    subprocess.run(["g++", "-O2", "-fPIE", "-pie", "-static-libstdc++", "-static-libgcc", src, "-o", exe], check=True)
    return exe


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--runs", type=int, default=300)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.extra = argv[cut + 1:]  # arguments of one more tensor-inspect run
    ti = os.path.abspath(args.binary)
    folder = tempfile.mkdtemp(prefix="ti-startup-")
    try:
        commands = [("/bin/true", ["/bin/true"]),
                    ("empty C++, <iostream>", [compile_cpp(folder, "with_iostream", WITH_IOSTREAM)]),
                    ("empty C++, no <iostream>", [compile_cpp(folder, "without_iostream", WITHOUT_IOSTREAM)]),
                    ("tensor-inspect 5", [ti, "5"])]
        if args.extra:
            commands.append(("tensor-inspect " + " ".join(args.extra), [ti, *args.extra]))
        null = os.open(os.devnull, os.O_RDWR)
        actions = [(os.POSIX_SPAWN_DUP2, null, fd) for fd in (0, 1, 2)]
        times = [[] for _ in commands]
        for _ in range(args.runs):
            for k, (_, argv) in enumerate(commands):
                start = time.perf_counter()
                pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
                _, status = os.waitpid(pid, 0)
                times[k].append(time.perf_counter() - start)
                if os.waitstatus_to_exitcode(status) != 0:
                    raise SystemExit(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
        base_min, base_med = min(times[0]), statistics.median(times[0])
        print(f"{args.runs} rounds; load average {os.getloadavg()[0]:.2f} at the end")
        print(f"{'command':44} {'fastest':>9} {'median':>9}  ratio to /bin/true (fastest, median)")
        for (label, _), t in zip(commands, times):
            print(f"{label[:44]:44} {min(t) * 1e3:7.3f}ms {statistics.median(t) * 1e3:7.3f}ms  "
                  f"{min(t) / base_min:5.2f}x {statistics.median(t) / base_med:5.2f}x")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
