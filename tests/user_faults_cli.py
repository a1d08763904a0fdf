#!/usr/bin/env python3
"""What a new user found in the command line, each rebuilt and checked from outside: paths the
OS refuses (1), {name} in --plot (3), write errors of --help (5), exact names holding glob
characters (6), --all --graph (8), counts of one (9), empty tensors' shape in text (10).
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
    for args in ([path], [path, "--list"], [path, "--stats"], ["diff", path, path], ["diff", "[1]",
                                                                                     path], ["validate", path]):
      shown = " ".join("PATH" if a == path else a for a in args)
      trouble(f"1: {what}, {shown}: one line naming the path and the OS's reason",
              args, [f"{path}: cannot open: {reason}"], [path])
      if args[0] != "validate":
        rc, out, err = run(args + ["--json"])
        code = json.loads(err)["error"]["code"] if rc == 2 and err.count("\n") == 1 else None
        tally.check(f"1: {what}, {shown} --json: code io, not internal", code == "io", f"{rc} {err[:200]!r}")


def fault5_help_to_a_full_disk():
  """5. --help, diff --help, validate --help and --version to /dev/full exited 0 with the page
  lost: now exit 2 and one line, as any other output to a full disk; to a pipe they still
  print and exit 0."""
  enospc = os.strerror(errno.ENOSPC)
  for args in (["--help"], ["-h"], ["diff", "--help"], ["validate", "--help"], ["--version"], ["--help", "--json"]):
    with open("/dev/full", "wb") as full:
      p = subprocess.run([BIN] + args, stdout=full, stderr=subprocess.PIPE, timeout=60)
    lines = p.stderr.decode("utf-8", "replace").splitlines()
    message = lines[0] if lines else ""
    if "--json" in args and len(lines) == 1:
      message = json.loads(message)["error"]["message"]
    tally.check(f"5: {' '.join(args)} > /dev/full: exit 2, one line saying the write failed", p.returncode == 2 and
                len(lines) == 1 and "write error" in message and enospc in message, f"{p.returncode} {lines!r}")
  for args in (["--help"], ["diff", "--help"], ["validate", "--help"], ["--version"]):
    rc, out, err = run(args)
    tally.check(f"5: {' '.join(args)} to a "
                f"pipe: exit 0, the page printed", rc == 0 and out and not err, f"{rc} {err!r}")


def safetensors_f32(path, tensors):
  """A safetensors file of {name: float32 list}, names as they are (control characters too)."""
  with open(path, "wb") as f:
    f.write(safetensors_bytes(tensors))
  return path


def fault3_plot_name(tmp):
  """3. `{name}` in --plot was left as is for one tensor (h-{name}.png); names kept newlines
  and ESC in file names (only '/' was replaced). Now always substituted, with '/' and the
  control characters (NUL to 0x1f, DEL) written '_'."""
  out = os.path.join(tmp, "plots")
  os.mkdir(out)
  rc, _, err = run([MIXED, "--name", "weight", "--plot", os.path.join(out, "h-{name}.png")])
  tally.check("3: one tensor: {name} becomes its name", rc == 0 and sorted(os.listdir(out)) == ["h-weight.png"],
              f"{rc} {os.listdir(out)} {err!r}")
  names = {
      "new\nline": [1.0, 2.0],
      "esc\x1b[31mred": [3.0, 4.0],
      "sl/ash": [5.0, 6.0],
      "del\x7f": [7.0, 8.0],
      "tab\tbed": [9.0, 10.0]
  }
  path = safetensors_f32(os.path.join(tmp, "controls.safetensors"), names)
  safe = lambda n: "".join("_" if c == "/" or ord(c) < 0x20 or ord(c) == 0x7f else c for c in n)
  for args, chosen in ((["--all"], list(names)), (["--name", "new\nline"], ["new\nline"]),
                       (["--name", "esc\x1b[31mred"], ["esc\x1b[31mred"])):
    for f in os.listdir(out): os.remove(os.path.join(out, f))
    rc, _, err = run([path, *args, "--plot", os.path.join(out, "p-{name}.png")])
    want = sorted(f"p-{safe(n)}.png" for n in chosen)
    got = sorted(os.listdir(out))
    pngs = all(open(os.path.join(out, f), "rb").read(8) == b"\x89PNG\r\n\x1a\n" for f in got)
    tally.check(f"3: {args!r}: one PNG per tensor, "
                f"control characters and '/' written '_'", rc == 0 and got == want and pngs,
                f"{rc} {got} != {want} {err!r}")


def fault6_exact_names(tmp):
  """6. A --name that is a tensor's exact name holding glob characters was taken as a glob
  (`--name "['a.b']"` gave "kind": "tensors"): it is that tensor; a glob still selects several."""
  dotted = os.path.join(ROOT, "samples",
                        "dotted_names.pt")  # {"a.b": [1.5, -2.0], "a": {"b": [3, 4, 5]}} (samples/README.md)
  for name, values in (("['a.b']", [1.5, -2.0]), ("['a']['b']", [3, 4, 5])):
    rc, out, err = run([dotted, "--name", name, "--json"])
    doc = json.loads(out) if rc == 0 else {}
    tally.check(f"6: --name {name}: the one tensor",
                doc.get("kind") == "tensor" and doc.get("name") == name and doc.get("tolist") == values,
                f"{rc} {out[:200]!r} {err!r}")
  rc, out, err = run([dotted, "--name", "[[]*", "--json"])  # no tensor's name: a glob ('[[]' is a literal '[')
  doc = json.loads(out) if rc == 0 else {}
  tally.check("6: a glob that is no name still selects several", doc.get("kind") == "tensors" and
              [t["name"] for t in doc.get("tensors", [])] == ["['a.b']", "['a']['b']"], f"{rc} {out[:300]!r} {err!r}")
  path = safetensors_f32(os.path.join(tmp, "stars.safetensors"), {"w*": [1.0], "w1": [2.0], "w2": [3.0]})
  order = list(safetensors_header(path))
  rc, out, err = run([path, "--name", "w*", "--json"])
  doc = json.loads(out) if rc == 0 else {}
  tally.check("6: --name 'w*' when a tensor is named "
              "w*: that tensor, not the glob's three",
              doc.get("kind") == "tensor" and doc.get("name") == "w*" and doc.get("tolist") == [1.0],
              f"{rc} {out[:200]!r}")
  rc, out, err = run([path, "--name", "w?", "--json"])  # fnmatch: '?' matches the '*' of "w*" too
  doc = json.loads(out) if rc == 0 else {}
  tally.check("6: --name 'w?' (no tensor's name) is a glob: all three in file order", doc.get("kind") == "tensors" and
              [t["name"] for t in doc.get("tensors", [])] == order, f"{rc} {out[:300]!r}")
  rc, out, err = run([path, "--name", "w*", "--stats", "--json"])
  doc = json.loads(out) if rc == 0 else {}
  tally.check("6: --name 'w*' --stats: "
              "one stats object",
              doc.get("kind") == "stats" and doc.get("min") == 1.0, f"{rc} {out[:200]!r}")
  rc, out, err = run(["diff", path, path, "--name", "w*", "--json"])
  doc = json.loads(out) if rc == 0 else {}
  tally.check("6: diff --name 'w*': the "
              "pair of that name only", [t["name_a"] for t in doc.get("tensors", [])] == ["w*"], f"{rc} {out[:300]!r}")


def fault8_graph_labels():
  """8. --all --graph printed one graph per tensor on stderr, not saying whose: each now
  follows an `== name ==` line, in file order, as stdout's blocks do."""
  names = list(safetensors_header(MIXED))
  rc, out, err = run([MIXED, "--all", "--graph"])
  heads = [line[3:-3] for line in err.splitlines() if line.startswith("== ") and line.endswith(" ==")]
  follows = all(err.split(f"== {n} ==\n", 1)[-1].startswith("graph:\n") for n in names)
  tally.check("8: --all --graph: each graph under "
              "its tensor's name, in file order", rc == 0 and heads == names and follows and
              err.count("graph:\n") == len(names), f"{rc} {heads} {err[:300]!r}")
  rc, out, err = run([MIXED, "--name", "weight", "--graph"])
  tally.check("8: one tensor's graph has no heading", rc == 0 and err.startswith("graph:\n") and "== " not in err,
              err[:200])


def fault9_counts_of_one(tmp):
  """9. "1 tensors", "all 1 checks passed", "1 of 1 checks failed", "the shard of 1 tensors":
  a count of one takes the singular, everywhere."""
  import re
  one = safetensors_f32(os.path.join(tmp, "one.safetensors"), {"alpha": [0.0]})
  index_dir = os.path.join(tmp, "index_one")
  os.mkdir(index_dir)
  safetensors_f32(os.path.join(index_dir, "s1.safetensors"), {"a": [1.0]})
  with open(os.path.join(index_dir, "model.safetensors.index.json"), "w") as f:
    json.dump({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}}, f)
  cases = [
    (["[1]", "--expect", "ndim=1"], 0, "1 check passed on 1 tensor"),
    (["[1]", "--expect", "ndim=2"], 1, "1 check failed on 1 tensor"),
    (["[1, 0]", "--assert", "x > 0"], 1, "1 of 2 elements is False, at [1]"),
    (["[1, 2]", "--assert", "x > 5"], 1, "2 of 2 elements are False, first at [0]"),
    (["[0.0]", "--fail-on", "nan"], 0, "ok, 1 of 1 tensor checked"),
    (["[0.0]", "--fail-on", "zero-tensor"], 1, "1 of 1 tensor fails"),
    (["[1.0, 2.0]", "--hist=1"], 0, "histogram: 1 bin over"),
    ([one, "--all", "--stats"], 0, "total: 1 tensor, 1 parameter, 4 bytes; float32: 1 tensor, 1 parameter, 4 bytes"),
    ([one, "--name", "zzzzzzzzzzzzzzzz"], 2, "(1 tensor; --list shows them)"),
    (["validate", os.path.join(index_dir, "model.safetensors.index.json")], 1, "the shard of 1 tensor cannot be read"),
    (["diff", "[1]", "[1]"], 0, "0 of 1 compared tensors differ,"),
    (["diff", "[1]", "[2]"], 1, "1 of 1 compared tensors differs,"),
    (["[5]", "--threshold", "0", "--edgeitems", "0"], 0, "summary: 1 of 1 element shown"),
  ]
  plural_of_one = re.compile(r"(?<![\d.])1 "
                             r"(tensors|checks|bins|elements|parameters|bytes|files|errors|warnings|entries)\b|all 1 ")
  for args, code, want in cases:
    rc, out, err = run(args)
    text = out + err
    tally.check(f"9: {' '.join(a if len(a) < 40 else '...' for a in args)}: says {want!r}, no plural of one",
                rc == code and want in text and not plural_of_one.search(text), f"{rc} {text[-300:]!r}")


def fault10_empty_shape_in_text(tmp):
  """10. Text showed an empty tensor's memoryview, `shape: (0,)`, and only JSON said the
  tensor's own (5, 0, 3): text now adds `tensor_shape:` where the two differ."""
  import numpy as np
  path = os.path.join(tmp, "empty_5x0x3.npy")
  np.save(path, np.zeros((5, 0, 3), np.float32))
  for mode in ([], ["--header"]):
    rc, out, err = run([path, *mode])
    lines = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    tally.check(f"10: empty (5, 0, 3) {mode}: shape (0,) "
                f"and tensor_shape (5, 0, 3) in text", rc == 0 and lines.get("shape") == "(0,)" and
                lines.get("tensor_shape") == "(5, 0, 3)", out)
    rc, out, err = run([path, *mode, "--json"])
    doc = json.loads(out)
    tally.check(f"10: ... the same facts as JSON {mode}", doc["shape"] == [0] and doc["tensor_shape"] == [5, 0, 3], out)
  rc, out, err = run(["[1.0]", "--view-as", "B"])
  lines = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
  tally.check("10: --view-as B of one float32: "
              "shape (4,), tensor_shape (1,)",
              lines.get("shape") == "(4,)" and lines.get("tensor_shape") == "(1,)", out)
  rc, out, err = run([os.path.join(ROOT, "samples", "weights_f32.npy")])
  tally.check("10: a tensor whose view has "
              "its shape: no tensor_shape line", rc == 0 and "tensor_shape" not in out, out[:200])


def main():
  with tempfile.TemporaryDirectory() as tmp:
    fault1_paths_the_os_refuses(tmp)
    fault3_plot_name(tmp)
    fault6_exact_names(tmp)
    fault9_counts_of_one(tmp)
    fault10_empty_shape_in_text(tmp)
  fault5_help_to_a_full_disk()
  fault8_graph_labels()
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
