#!/usr/bin/env python3
"""What a new user found in the command line, each rebuilt and checked from outside: paths the OS
refuses (1).
(Contradicting options are tests/cli_contradictions.py; completions, tests/shell_integration.py;
stats JSON keys, tests/json_kinds.py.)

    python3 tests/user_faults_cli.py path/to/tensor-inspect

Inputs are made here (NumPy, hand-built safetensors) in a temporary folder; what each check
expects is computed from those inputs, never copied from the tool's output. Closes with
`N passed, M failed`.
"""
import errno, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from user_faults_common import BIN, ROOT, MIXED, run, trouble, npy_bytes, safetensors_bytes, safetensors_header


def fault1_paths_the_os_refuses(tmp):
  """1. A symlink loop or a name over NAME_MAX said `internal error: filesystem error: status:
  ...` (code "internal"): now the one Io line `validate` already gave, in every mode."""
  loop1, loop2 = os.path.join(tmp, "l1.npy"), os.path.join(tmp, "l2.npy")
  os.symlink(loop2, loop1)
  os.symlink(loop1, os.path.join(tmp, "l2.npy"))
  eloop = os.strerror(errno.ELOOP)
  long_path = os.path.join(tmp, "a" * 300, "x.npy")
  toolong = os.strerror(errno.ENAMETOOLONG)
  for what, path, reason in (("a symlink loop", loop1, eloop), ("a name over NAME_MAX", long_path, toolong)):
    for args in ([path], [path, "--list"], [path, "--stats"], ["diff", path, path], ["diff", "[1]", path], ["validate", path]):
      shown = " ".join("PATH" if a == path else a for a in args)
      trouble(f"1: {what}, {shown}: one line naming the path and the OS's reason",
              args, [f"{path}: cannot open: {reason}"], [path])
      if args[0] != "validate":
        rc, out, err = run(args + ["--json"])
        code = json.loads(err)["error"]["code"] if rc == 2 and err.count("\n") == 1 else None
        tally.check(f"1: {what}, {shown} --json: code io, not internal", code == "io", f"{rc} {err[:200]!r}")


def main():
  with tempfile.TemporaryDirectory() as tmp:
    fault1_paths_the_os_refuses(tmp)
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
