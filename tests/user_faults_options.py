#!/usr/bin/env python3
"""What a user tester found in options and on a terminal, each rebuilt and checked from outside:
tuples compared in --assert (1), --fail-on 'nan, inf' (2), --strict with statistics (3), one
--limit cap given twice (4), warnings on a terminal (5), --plot's temporary files on SIGINT and
SIGTERM (6).

    python3 tests/user_faults_options.py path/to/tensor-inspect

What each check expects is computed here (CPython evaluates the same comparisons; inputs are
written by hand or NumPy in a temporary folder), never copied from the tool's output. Closes
with `N passed, M failed`.
"""
import os, sys, tempfile, types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
import terminal
from user_faults_common import BIN, ROOT, run, trouble

F32 = os.path.join(ROOT, "samples", "float32.npy")  # shape (11,): nan, +inf and -inf among its values


def fault1_tuple_comparisons():
  """1. --assert 'x.shape == (3,4)' exited 2 ("unsupported operand type(s) for ==: 'tuple' and
  'tuple'"): now Python's bool, so exit 0 when CPython says True and 1 when False; ordering a
  tuple against a list or an int is CPython's TypeError, exit 2 with its words."""
  import numpy as np
  x = types.SimpleNamespace(shape=np.load(F32).shape)  # what CPython compares: a tuple of ints
  for expr in ("x.shape == (11,)", "x.shape == (3,4)", "x.shape != (2,)", "x.shape != (11,)", "x.shape == (11.0,)",
               "x.shape == [11]", "x.shape != [11]", "x.shape == 11", "x.shape < (12,)", "x.shape <= (11,)",
               "x.shape > (11, 0)", "x.shape >= (10, 99)", "(x.shape, 1) == ((11,), 1)"):
    want = eval(expr, {"x": x})
    rc, out, err = run([F32, "--assert", expr])
    tally.check(f"1: --assert {expr!r}: exit "
                f"{0 if want else 1}, as CPython says {want}", rc == (0 if want else 1) and not err, f"{rc} {err!r}")
  for expr in ("x.shape < [11]", "x.shape > 11"):
    try:
      eval(expr, {"x": x})
      words = "(no TypeError)"
    except TypeError as e:
      words = str(e)
    trouble(f"1: --assert {expr!r}: exit 2 with CPython's TypeError words", [F32, "--assert", expr], [words])


def fault2_fail_on_spaces():
  """2. --fail-on 'nan, inf' said "unknown check ' inf'": spaces around each item are now
  dropped, as people type lists; unknown names and empty items are still refused."""
  for spec in ("nan, inf", " nan ,inf ", "inf,\tnan", "zero-tensor , nan"):
    rc, out, err = run([F32, "--fail-on", spec])
    tally.check(f"2: --fail-on {spec!r}: exit 1 (the file holds nan and inf)", rc == 1 and not err, f"{rc} {err!r}")
  rc, out, err = run([F32, "--fail-on", " zero-tensor "])
  tally.check("2: --fail-on ' zero-tensor ': exit 0 (the file is not all zero)", rc == 0 and not err, f"{rc} {err!r}")
  trouble("2: --fail-on 'nan, bogus': the "
          "unknown name, without its spaces", [F32, "--fail-on", "nan, bogus"], ["unknown check 'bogus'"])
  trouble("2: --fail-on 'nan inf': one unknown name", [F32, "--fail-on", "nan inf"], ["unknown check 'nan inf'"])
  for spec, words in (("nan,", "check 2 is empty"), ("nan, ,inf", "check 2 is empty"), (",nan", "check 1 is empty"),
                      ("", "no check given"), ("  ", "no check given")):
    trouble(f"2: --fail-on {spec!r}: refused, {words}", [F32, "--fail-on", spec], [f"--fail-on '{spec}'", words])


def fault3_strict_with_statistics():
  """3. --stats --strict ran as if --strict were not there, and --help said only that --strict
  fails where Tensor.data() fails, which statistics never call. It is not a contradiction:
  --strict also refuses a file that warns (pickle globals torch.load(weights_only=True)
  refuses), in every mode. Each mode on such a file: exit 0 without --strict, and with it exit
  2 naming the first global; --help says so."""
  pt = os.path.join(ROOT, "samples", "whole_model.pt")  # pickles torch.nn.modules.container.Sequential
  first = "global 'torch.nn.modules.container.Sequential'"
  with tempfile.TemporaryDirectory(prefix="ti_strict_") as tmp:
    png = os.path.join(tmp, "p.png")
    for mode in (["--stats"], ["--fail-on", "nan"], ["--name", "0.weight",
                                                     "--hist"], ["--name", "0.weight", "--plot",
                                                                 png], ["--list"], ["--meta"], ["--all", "--stats"]):
      shown = " ".join("P.png" if a == png else a for a in mode)
      rc, out, err = run([pt, *mode])
      tally.check(f"3: {shown} on a file that "
                  f"warns: exit 0 without --strict", rc == 0 and (out or os.path.exists(png)), f"{rc} {err!r}")
      if os.path.exists(png): os.unlink(png)
      trouble(f"3: {shown} --strict on a file that warns: refused, naming the global", [pt, *mode, "--strict"],
              [f"{pt}: ", first, "(--strict)"])
      if png in mode: tally.check(f"3: {shown} --strict: no PNG written", not os.path.exists(png))
  rc, out, err = run(["--help"])
  line = next((l for l in out.splitlines() if l.strip().startswith("--strict")), "")
  tally.check("3: --help's --strict line says it "
              "refuses a file that warns, in every mode", "every mode" in line and "warns" in line, line)


def fault4_limit_twice():
  """4. --limit stream_bytes=1G --limit stream_bytes=2G ran with the last value, said nowhere:
  one cap given twice is now a usage error naming the cap and both specs, in the main command
  and diff; different caps still combine."""
  for prefix in ([F32], ["diff", F32, F32]):
    for a, b in (("stream_bytes=1G", "stream_bytes=2G"), ("broadcast_pairs=5", "broadcast_pairs=5")):
      trouble(f"4: {prefix[0] if prefix[0] == 'diff' else 'inspect'} --limit {a} --limit {b}: refused naming the cap",
              [*prefix, "--limit", a, "--limit", b], [f"--limit {a.split('=')[0]} given twice ('{a}' and '{b}')"])
    rc, out, err = run([*prefix, "--limit", "stream_bytes=2G", "--limit", "json_depth=100"])
    tally.check(f"4: {prefix[0] if prefix[0] == 'diff' else 'inspect'} "
                f"with two different caps: exit 0", rc == 0 and out and not err, f"{rc} {err!r}")
  # Standard input past a cap of 100 bytes: the cap in force is the one given (a 172-byte .npy).
  with open(F32, "rb") as f:
    data = f.read()
  rc, out, err = run(["-", "--limit", "stream_bytes=100"], stdin=data)
  tally.check("4: --limit stream_bytes=100 once still caps standard input (exit 2 naming it)",
              rc == 2 and "stream_bytes" in err and len(data) > 100, f"{rc} {err!r}")


def run_on_terminal(args):
  """(exit status, stderr bytes) of a run whose stderr is a pseudo-terminal (stdout discarded)."""
  status, _, err = terminal.run_on_terminal([BIN, *args], cwd=ROOT, timeout=60)
  return status, err


def screen(data):
  """The lines a terminal shows for `data`: carriage return to column 0, ESC [ K erases to the
  end of the line, a newline starts the next, anything else is written over what was there."""
  lines, line, col, i = [], [], 0, 0
  text = data.decode("utf-8", "replace")
  while i < len(text):
    c = text[i]
    if text.startswith("\x1b[K", i):
      del line[col:]
      i += 3
      continue
    if c == "\r": col = 0
    elif c == "\n":
      lines.append("".join(line))
      line, col = [], 0
    else:
      if col < len(line): line[col] = c
      else: line.append(c)
      col += 1
    i += 1
  if line: lines.append("".join(line))
  return lines


def fault5_warnings_on_a_terminal():
  """5. On a terminal, a tensor skipped half-way through a file's --stats scan warned at the end
  of the progress line ("... 0.00 GB/stensor-inspect: warning: ..."), which stayed on screen;
  and diff of a file with itself said each of the file's warnings twice. Now the warning erases
  the progress line and stands alone, once; through a pipe stderr is plain lines as before."""
  gguf = os.path.join(ROOT, "samples", "quants.gguf")  # tensor 'q8_1': a type the tool cannot dequantize
  skipped = ("warning: samples/quants.gguf: tensor 'q8_1' is Q8_1, which this tool cannot "
             "dequantize: ggml and gguf-py have no dequantization for it (skipped)")
  for mode in (["--stats"], ["--stats", "--json"], ["--stats", "--jsonl"], ["--all", "--stats"]):
    rc, data = run_on_terminal(["samples/quants.gguf", *mode])
    shown = [l for l in screen(data) if l.strip()]
    tally.check(f"5: {' '.join(mode)} on a terminal: the skipped tensor's warning on a line of its own, once",
                rc == 0 and shown == ["tensor-inspect: " + skipped], f"{rc} {shown!r} {data[:300]!r}")
  rc, out, err = run([gguf, "--stats"])
  tally.check(
      "5: --stats through a pipe: "
      "the warning is one plain line", rc == 0 and
      err == f"tensor-inspect: warning: {gguf}" + skipped[len("warning: samples/quants.gguf"):] + "\n", repr(err))
  pt = os.path.join(ROOT, "samples", "whole_model.pt")  # three pickled globals outside torch.load's allow-list
  for args in (["diff", pt, pt], ["diff", pt, pt, "--json"], [pt, "--stats"]):
    rc, data = run_on_terminal(args)
    warnings = [l for l in screen(data) if "warning:" in l]
    tally.check(
        f"5: {' '.join(os.path.basename(a) for a in args)} on a "
        f"terminal: three warnings, each once, each a line of its own", rc == 0 and len(warnings) == 3 and
        len(set(warnings)) == 3 and all(l.startswith("tensor-inspect: warning: ") for l in warnings),
        f"{rc} {warnings!r}")
  rc, out, err = run(["diff", pt, os.path.join(ROOT, "samples", "checkpoint.pt")])
  tally.check("5: diff of two files that warn: each file's warnings, both files named", err.count("warning:") == 4 and
              err.count("whole_model.pt:") == 3 and err.count("checkpoint.pt:") == 1, repr(err))


def slow_plot_input(tmp):
  """A safetensors file of tensor 'a' (4 floats), then 'b' (2**30 float32 zeros, a 4 GiB hole
  of a sparse file): --all --plot stages a's PNG, then scans b for seconds."""
  import json, struct
  n = 1 << 30
  header = json.dumps({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                       "b": {"dtype": "F32", "shape": [n], "data_offsets": [16, 16 + 4 * n]}}).encode()
  header += b" " * (-len(header) % 8)
  path = os.path.join(tmp, "slow.safetensors")
  with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header + struct.pack("<4f", 1, 2, 3, 4))
    f.truncate(8 + len(header) + 16 + 4 * n)
  return path


def fault6_plot_temporaries_on_signals():
  """6. --plot draws each PNG into PATH.tmp-PID-N and renames it when every tensor is done; a
  run ended by SIGINT or SIGTERM meanwhile left the temporary file behind. Now it is removed,
  and the process still ends by that signal (a shell sees 130 for Ctrl-C). A signal the run was
  started ignoring (nohup, a script's background job) stays ignored."""
  import signal, subprocess, time
  with tempfile.TemporaryDirectory(prefix="ti_plot_signal_") as tmp:
    src = slow_plot_input(tmp)
    out_dir = os.path.join(tmp, "out")
    os.mkdir(out_dir)
    pattern = os.path.join(out_dir, "p-{name}.png")

    def start(ignore=None):
      pre = (lambda: signal.signal(ignore, signal.SIG_IGN)) if ignore else None
      p = subprocess.Popen([BIN, src, "--all", "--plot", pattern],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE,
                           preexec_fn=pre)
      deadline = time.time() + 30
      while time.time() < deadline and p.poll() is None and not any(".tmp-" in f for f in os.listdir(out_dir)):
        time.sleep(0.005)
      return p, sorted(os.listdir(out_dir))

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
      p, staged = start()
      p.send_signal(sig)
      err = p.communicate(timeout=60)[1]
      left = sorted(os.listdir(out_dir))
      tally.check(f"6: {sig.name} while a's PNG is staged: the process ends by {sig.name}, nothing left in the folder",
                  len(staged) == 1 and staged[0].startswith("p-a.png.tmp-") and p.returncode == -sig and left == [],
                  f"staged {staged}, exit {p.returncode}, left {left}, {err[-200:]!r}")
    p, staged = start(ignore=signal.SIGINT)
    p.send_signal(signal.SIGINT)
    time.sleep(0.3)
    alive = p.poll() is None
    p.terminate()
    p.communicate(timeout=60)
    left = sorted(os.listdir(out_dir))
    tally.check("6: started with SIGINT ignored, SIGINT stays ignored; SIGTERM then removes the temporary file",
                len(staged) == 1 and alive and p.returncode == -signal.SIGTERM and left == [],
                f"staged {staged}, alive "
                f"{alive}, left {left}")


def main():
  fault1_tuple_comparisons()
  fault2_fail_on_spaces()
  fault3_strict_with_statistics()
  fault4_limit_twice()
  fault5_warnings_on_a_terminal()
  fault6_plot_temporaries_on_signals()
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
