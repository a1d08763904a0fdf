#!/usr/bin/env python3
"""What a new user found that surprised them, each fault rebuilt and checked from outside:
errors and exit statuses: an error names the file, the tensor and the place (fault 1), a 0-d
.T (2), one line for a missing shard (3), small usage faults (6), a file truncated while read,
an empty selection.

    python3 tests/user_faults_messages.py path/to/tensor-inspect

Inputs are made here (NumPy, zipfile, hand-built bytes) in a temporary folder; what each
check expects is computed from those inputs (headers read back with json/zipfile/zlib),
never copied from the tool's output. Trouble must be exit status 2, one line on stderr
naming the input and the place, nothing on stdout (user_faults_common.trouble). Closes
with `N passed, M failed`.
"""
import json, os, random, struct, subprocess, sys, tempfile, time, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from user_faults_common import (BIN, ROOT, MIXED, QUANTS, run, trouble, trouble_stdin, npy_bytes, safetensors_header,
                                safetensors_bytes)


def fault2_transpose_of_0d():
  """2. x.T of a 0-d tensor: tinygrad's transpose swaps items of list(range(ndim)) and fails
  with IndexError; ours is one line naming the method and the shape."""
  trouble("2: 5 -e x.T", ["5", "-e", "x.T"], ["T (transpose(1, 0)) of shape ()"])
  trouble("2: a 0-d .npy -e x.T", [os.path.join(ROOT, "samples", "scalar_f8.npy"), "-e", "x.T"],
          ["T (transpose(1, 0)) of shape ()"])
  rc, out, err = run(["[1, 2]", "-e", "x.transpose(-1, 0)", "--json"])
  tally.check("2: a 1-d transpose(-1, 0) is the tensor (list(range(1)) swaps item -1 with 0)",
              rc == 0 and json.loads(out)["tolist"] == [1, 2], f"{rc} {out[:100]!r} {err!r}")


def fault1_errors_name_the_tensor(tmp):
  """1. With several tensors in play, an error while one is evaluated, realized, loaded or
  printed names the file and the tensor."""
  header = safetensors_header(MIXED)
  prod = lambda s: eval("*".join(map(str, s)) or "1")
  # The first tensor in file order that x.reshape(2, 3) cannot take (not 6 elements).
  bad = next(n for n, e in header.items() if prod(e["shape"]) != 6)
  want = f"{MIXED}: tensor '{bad}': "
  for mode in ([], ["--json"], ["--jsonl"]):
    trouble(f"1: --all -e reshape {mode} "
            f"names tensor {bad!r}", [MIXED, "--all", "-e", "x.reshape(2, 3)", *mode], [want], [MIXED],
            json_mode=bool(mode))
  trouble("1: --name glob --name "
          "exact -e names the tensor", [MIXED, "--name", "w*", "--name", "ids", "-e", "x.reshape(2, 3)"],
          [f"{MIXED}: tensor 'ids': "], [MIXED])
  trouble("1: --all --stats -e names the tensor", [MIXED, "--all", "--stats", "-e", "x.reshape(2, 3)"], [want], [MIXED])
  trouble("1: --all --assert names the tensor", [MIXED, "--all", "--assert", "x.reshape(2, 3).sum() > -1"], [want],
          [MIXED])
  trouble("1: --all --expect with "
          "-e names the tensor", [MIXED, "--all", "--expect", "ndim=2", "-e", "x.reshape(2, 3)"], [want], [MIXED])
  # Realizing: the first tensor whose x + 1 needs a buffer over 16 bytes (tinygrad promotes
  # bool + int to int32, so itemsize 4 there).
  item = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8, "BOOL": 4}
  big = next(n for n, e in header.items() if prod(e["shape"]) * item[e["dtype"]] > 16)
  trouble(f"1: --all -e 'x + 1' over "
          f"buffer_bytes names {big!r}", [MIXED, "--all", "-e", "x + 1", "--limit", "buffer_bytes=16"],
          [f"{MIXED}: tensor '{big}': ", "buffer_bytes"], [MIXED])
  trouble("1: --strict --all names "
          "the bfloat16 tensor", [MIXED, "--all", "--strict"], [f"{MIXED}: tensor 'bf16': "], [MIXED])
  trouble("1: GGUF --all names the "
          "type it cannot dequantize", [QUANTS, "--all"], [f"{QUANTS}: tensor 'q8_1'"], [QUANTS])
  rc, out, err = run([QUANTS, "--stats"])
  tally.check("1: --stats over a file warns of the skipped tensor naming it once", rc == 0 and
              err.count("tensor 'q8_1'") == 1 and err.count(QUANTS) == 1 and len(err.splitlines()) == 1, repr(err))
  # A member whose header reads but whose deflate stream is damaged further in: the
  # failure comes while its values are read, in every mode that reads them.
  import numpy as np
  rnd = random.Random(0)
  good, broken = os.path.join(tmp, "good.npz"), os.path.join(tmp, "broken.npz")
  with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("a.npy", npy_bytes(np.arange(4, dtype=np.float32)))
    z.writestr("b.npy", npy_bytes(np.array([rnd.randrange(10) for _ in range(200000)], dtype=np.int8)))
  data = bytearray(open(good, "rb").read())
  info = zipfile.ZipFile(good).getinfo("b.npy")
  name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
  at = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
  for k in range(64): data[at + k] ^= 0x5A
  open(broken, "wb").write(bytes(data))
  want_b = f"{broken}: tensor 'b': member 'b.npy'"
  for args in (["--all"], ["--all", "--json"], ["--stats"], ["--stats", "--json"], ["--name", "*", "--stats"],
               ["--all", "--assert", "x.sum() > -1"]):
    trouble(f"1: damaged member, "
            f"{args}: names tensor 'b'", [broken, *args], [want_b], [broken],
            json_mode="--json" in args)
  trouble("1: diff with the damaged side as A names it", ["diff", broken, good], [want_b], [broken])
  trouble("1: diff with the damaged "
          "side as B names it", ["diff", good, broken, "--json"], [want_b], [broken],
          json_mode=True)


def fault3_missing_shard_one_line(tmp):
  """3. An index whose shard file is missing: a run that fails prints its one error line
  (not the shard warning too); a run that succeeds still warns, once."""
  d = os.path.join(tmp, "sharded")
  os.mkdir(d)
  with open(os.path.join(d, "s1.safetensors"), "wb") as f: f.write(safetensors_bytes({"a": [1.0, 2.0]}))
  index = os.path.join(d, "model.safetensors.index.json")
  with open(index, "w") as f:
    json.dump({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors", "c": "s2.safetensors"}}, f)
  want = [f"tensor 'b' is in shard 's2.safetensors'", "No such file or directory"]
  for args in (["--name", "b"], ["--name", "b", "--json"], ["--all"], ["--all", "--jsonl"], ["--stats"],
               ["--name", "*", "--stats"], ["--name", "b", "--expect", "ndim=1"]):
    trouble(f"3: missing shard, {args}: one line", [index, *args],
            want if "--name" in args and "b" in args else ["s2.safetensors"],
            json_mode="--json" in args or "--jsonl" in args)
  trouble("3: missing shard through the folder: one line", [d, "--name", "b"], want)
  for args in ([], ["--list", "--json"], ["--name", "a"], ["--name", "a", "--expect", "ndim=2"]):
    rc, out, err = run([index, *args])
    lines = err.splitlines()
    tally.check(
        f"3: missing shard, {args}: still warned, once", rc in (0, 1) and out and len(lines) == 1 and
        "warning:" in lines[0] and "shard 's2.safetensors' of "
        "2 tensors cannot be read" in lines[0], f"{rc} {err!r}")


def fault6_small_ones(tmp):
  """6. --raw with --format is a usage error; --plot into a missing folder says the OS's
  reason and the path; validate - reads standard input."""
  import errno
  raw = os.path.join(ROOT, "samples", "raw_f32.bin")
  trouble("6: --raw float32 --format "
          "npy is a usage error", [raw, "--raw", "float32", "--format", "npy"], ["--raw", "--format"])
  rc, out, err = run([raw, "--raw", "float32", "--format", "npy", "--json"])
  tally.check("6: ... and says usage in JSON", rc == 2 and json.loads(err)["error"]["code"] == "usage", err)
  png = os.path.join(tmp, "no_such_folder", "x.png")
  trouble("6: --plot into a missing folder "
          "names the path and the OS's reason", [os.path.join(ROOT, "samples", "float32.npy"), "--plot", png],
          [png, os.strerror(errno.ENOENT)])
  npy = open(os.path.join(ROOT, "samples", "int8.npy"), "rb").read()
  rc, out, err = run(["validate", "-", "--json"], stdin=npy)
  j = json.loads(out) if rc == 0 else {}
  tally.check("6: validate - reads standard input: a clean .npy", rc == 0 and j["files"][0]["file"] == "<stdin>" and
              j["files"][0]["format"] == "npy" and not j["files"][0]["findings"], f"{rc} {out[:300]!r} {err!r}")
  # the header length field says more than the 100 bytes given hold (computed from the header)
  header_len = struct.unpack_from("<H", npy, 8)[0]
  rc, out, err = run(["validate", "-"], stdin=npy[:100])
  tally.check("6: validate - of a cut "
              ".npy is a finding (exit 1)", rc == 1 and "<stdin>" in out and str(header_len) in out,
              f"{rc} {out!r} {err!r}")
  trouble_stdin("6: validate - - is a usage error", ["validate", "-", "-"], npy, ["standard input"])
  trouble_stdin("6: validate - of text is not a tensor file", ["validate", "-"], b"hello\n", ["<stdin>"])
  trouble_stdin("empty standard input says so", ["-"], b"", ["<stdin>", "empty input"])


def truncated_while_read(tmp):
  """A file cut short while the tool reads it (`cp new.npy x.npy` over it): one line naming
  the file and exit 2, not a bus error (SIGBUS, exit -7). The run is held on a full pipe
  while the file is truncated, so the read past the new end is certain."""
  import numpy as np
  path = os.path.join(tmp, "shrinks.npy")
  with open(path, "wb") as f:
    f.write(npy_bytes(np.arange(20_000_000, dtype=np.float32)))
  for args in (["--full", path], ["--json", path]):
    p = subprocess.Popen([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.read(1000)  # it prints; the pipe fills and the run waits on it
    time.sleep(0.3)
    os.truncate(path, 100_000)
    p.stdout.read()
    err = p.stderr.read().decode("utf-8", "replace")
    rc = p.wait()
    tally.check(f"truncated while read ({' '.join(args[:-1])}): exit 2, one line naming the file",
                rc == 2 and len(err.splitlines()) == 1 and path in err and "shorter" in err, f"exit {rc}: {err!r}")
    with open(path, "wb") as f:
      f.write(npy_bytes(np.arange(20_000_000, dtype=np.float32)))


def empty_selection(tmp):
  """--all over a file of no tensors selects nothing: exit 0 and an empty result naming the
  file, as the listing, --stats and diff of it give (it said 'nothing to inspect: give an
  INPUT', exit 2)."""
  path = os.path.join(tmp, "none.safetensors")
  with open(path, "wb") as f:
    f.write(struct.pack("<Q", 2) + b"{}")
  rc, out, err = run([path, "--all"])
  tally.check("empty --all: exit 0, nothing printed", rc == 0 and out == "" and err == "", f"{rc} {out!r} {err!r}")
  rc, out, err = run([path, "--all", "--json"])
  doc = json.loads(out) if rc == 0 else {}
  tally.check("empty --all --json: "
              "tensors [] of the file", rc == 0 and doc.get("tensors") == [] and doc.get("file") == path,
              f"{rc} {out!r} {err!r}")
  rc, out, err = run([path, "--all", "--stats", "--json"])
  doc = json.loads(out) if rc == 0 else {}
  tally.check("empty --all --stats --json: "
              "no rows, the file named", rc == 0 and doc.get("tensors") == [] and doc.get("file") == path,
              f"{rc} {out!r} {err!r}")


def option_messages():
  """Small messages a user found wrong, each now one line naming the option and the value,
  exit 2: --offset -3 printed a 309-digit bound (and --offset 1e30 wrapped to 2^64 - 1); a
  one-value option given twice said CLI11's "At Most 1 required but received 2"; -v=2 said
  "-=2" was not expected (and -v2 took 2 for INPUT); an empty INPUT said "nothing to inspect:
  give an INPUT" (and with --raw read standard input, with -e ran the expression alone)."""
  import re
  raw = os.path.join(ROOT, "samples", "raw_f32.bin")
  with open(raw, "rb") as f:
    floats = struct.unpack("<4f", f.read())
  for bad in ("-3", "abc", "1e3", "1.5", "99999999999999999999999"):
    message = trouble(f"--offset {bad}: names the option, the value and a non-negative byte count",
                      [raw, "--raw", "float32", "--offset", bad], ["--offset", f"'{bad}'", "non-negative", "bytes"])
    longest = max((len(d) for d in re.findall(r"\d+", message.replace(bad, ""))), default=0)
    tally.check(f"--offset {bad}: no number longer than 2^64's 20 digits", longest <= 20, message)
  rc, out, err = run([raw, "--raw", "float32", "--offset", "4", "--json"])
  tally.check("--offset 4 still skips 4 "
              "bytes: the last three floats", rc == 0 and json.loads(out)["tolist"] == list(floats[1:]),
              f"{rc} {out!r} {err!r}")
  repeated = [
      (["--dtype", "float32", "--dtype", "int8", "[1]"], "--dtype", ["'float32'", "'int8'"]),
      (["[1]", "--threshold", "5", "--threshold", "6"], "--threshold", ["'5'", "'6'"]),
      (["[1]", "-e", "x", "-e", "x + 1"], "--expr", ["'x'", "'x + 1'"]),
      ([raw, "--format", "npy", "--format", "gguf"], "--format", ["'npy'", "'gguf'"]),
      (["[1]", "--graph", "--graph"], "--graph", []),
      (["[1]", "--default-int", "int8", "--default-int", "int16", "--default-int",
        "int64"], "--default-int", ["3 times"]),
      (["diff", "[1]", "[1]", "--rtol", "1", "--rtol", "2"], "--rtol", ["diff: ", "'1'", "'2'"]),
  ]
  for args, option, values in repeated:
    message = trouble(f"{' '.join(args)}: one line naming "
                      f"{option} given more than once", args, [option, "given", *values])
    tally.check(f"{' '.join(args)}: not CLI11's 'At Most 1 required'", "At Most" not in message and
                ("given twice" in message or "given 3 times" in message), message)
  rc, out, err = run(["[1]", "--dtype", "int8", "--dtype", "int8", "--json"])
  tally.check(
      "a repeated option with --json: a usage error object", rc == 2 and out == "" and
      json.loads(err)["error"]["code"] == "usage" and "--dtype given twice" in json.loads(err)["error"]["message"], err)
  for args in (["[1, 2]", "--view-as", "B", "--view-as", "h"], [MIXED, "--name", "weight", "--name",
                                                                "ids"], ["[1]", "--json", "--json"]):
    rc, out, err = run(args)
    tally.check(f"{' '.join(args)}: repeatable options and flags still run", rc == 0 and out, f"{rc} {err!r}")
  for word in ("-v=2", "-v2", "-vv=1", "-v=0"):
    trouble(f"{word}: -v takes no value, named with -vv", [word, "[1]"], [f"'{word}'", "-v (info)", "-vv (debug)"])
  rc, out, err = run(["-vv", "[1]"])
  tally.check("-vv still logs on stderr "
              "(info and debug lines)", rc == 0 and "tolist: [1]" in out and "info:" in err, f"{rc} {err!r}")
  empty = [([""], "INPUT"), (["", "--json"], "INPUT"), (["", "-e", "Tensor.arange(3)"], "INPUT"),
           (["diff", "", "[1]"], "diff: empty input name: A"),
           (["diff", "[1]", ""], "diff: empty input name: B"), (["validate", ""], "validate: empty input name: FILE")]
  for args, name in empty:
    trouble(f"{args}: one line saying "
            f"the input name is empty",
            args, ["empty input name", name, "''"],
            json_mode="--json" in args)
  trouble_stdin("--raw float32 '': the input name "
                "is empty (standard input is '-')", ["--raw", "float32", ""], b"\0" * 8,
                ["empty input name", "INPUT", "''"])
  rc, out, err = run([])
  tally.check("no INPUT at all still says nothing to inspect", rc == 2 and "nothing to inspect" in err, f"{rc} {err!r}")


def main():
  fault2_transpose_of_0d()
  with tempfile.TemporaryDirectory() as tmp:
    fault1_errors_name_the_tensor(tmp)
    fault3_missing_shard_one_line(tmp)
    fault6_small_ones(tmp)
    truncated_while_read(tmp)
    empty_selection(tmp)
  option_messages()
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
