#!/usr/bin/env python3
"""A program embedding the library prints nothing (issue 23 part 8): the library logs through
its own logger to stderr at warn, never through spdlog's default logger at info, which put
"data(): ... realized in ..." lines on the program's stdout. Asked for info, the same program
gets those lines on stderr only (the check that the library does log, and where).
  embed_quiet.py EMBED_BINARY ROOT"""
import subprocess, sys

EMBED, ROOT = sys.argv[1], sys.argv[2]
failures = 0


def check(what, ok, detail=""):
  global failures
  print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail}"))
  failures += 0 if ok else 1


for sample in ("weights_f32.npy", "mixed.safetensors", "arrays.npz"):
  p = subprocess.run([EMBED, f"{ROOT}/samples/{sample}"], capture_output=True)
  check(f"{sample}: exit 0, nothing on stdout or stderr", p.returncode == 0 and p.stdout == b"" and p.stderr == b"",
        (p.returncode, p.stdout[:200], p.stderr[:200]))
p = subprocess.run([EMBED, f"{ROOT}/samples/weights_f32.npy", "info"], capture_output=True)
err = p.stderr.decode(errors="replace")
check("asked for info: 'data(): ... realized' on stderr, stdout still empty", p.returncode == 0 and p.stdout == b"" and
      "tensor_inspect: info: data(): float32" in err, (p.returncode, p.stdout[:200], err[:300]))
sys.exit(1 if failures else 0)
