#!/usr/bin/env python3
"""tests/stream_inputs.py BIN — endless or long streams given as input (/dev/zero, pipes)
stop as soon as their first bytes say what they are (a user saw /dev/zero read 1 GB, the
whole stream_bytes cap, before the error).

- bytes no format starts with (and, on standard input, no text for a literal) are refused
  after the first read, with peak RSS within 64 MiB of a run on a literal (the cap is 1 GiB);
- a .npy stream is read up to the end of the data its header declares, as np.load reads a
  stream, and the values are NumPy's;
- raw bytes of a given shape are read up to offset + nbytes; a byte more is the error a
  file of the wrong size gets;
- a stream that could be a file and never ends, or whose header declares more than the
  cap, names the cap (stream_bytes) and how to raise it;
- text on standard input is read only while it may be a literal: text no literal starts with
  is refused after the first read, and 300 MB of junk after a `[` (read whole before, 600 MB
  of RSS) past the literal cap, literal_bytes (64 MiB), named with how to raise it.
Expected values come from NumPy; RSS from GNU time.
"""
import io
import itertools, json, os, subprocess, sys, threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

BIN = os.path.abspath(sys.argv[1])
CAP_HINT = "(limit stream_bytes; raise it with --limit stream_bytes=N)"


def run(args, stdin_path=None):
    """(exit status, stdout, stderr, peak RSS KiB) with stdin from `stdin_path`."""
    with open(stdin_path or os.devnull, "rb") as f:
        p = subprocess.run(["/usr/bin/time", "-f", "%M", BIN, *args], stdin=f, capture_output=True, timeout=120)
    err = [l for l in p.stderr.decode().strip().splitlines() if not l.startswith("Command exited with non-zero status")]
    return p.returncode, p.stdout.decode(), "\n".join(err[:-1]), int(err[-1])


def _fed(argv, chunks):
    """(exit status, stdout bytes, stderr bytes) of `argv` with the byte strings of `chunks`
    written to a pipe on standard input, as long as the process reads them."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def feed():
        try:
            for chunk in chunks:
                p.stdin.write(chunk)
        except (BrokenPipeError, ValueError):
            pass
        finally:
            try:
                p.stdin.close()
            except BrokenPipeError:
                pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    out = p.stdout.read()  # the feeder owns stdin; stderr is a line or two
    err = p.stderr.read()
    p.wait(timeout=120)
    return p.returncode, out, err


def run_fed(args, head, endless=True):
    """(exit status, stdout, stderr) with `head` and then zeros (forever, or none) on a pipe."""
    zeros = itertools.repeat(bytes(1 << 16)) if endless else ()
    rc, out, err = _fed([BIN, *args], itertools.chain([head], zeros))
    return rc, out.decode(), err.decode().strip()


def run_piped(args, chunks):
    """(exit status, stdout, stderr, peak RSS KiB) with the byte strings of `chunks` written
    to a pipe on standard input, as long as the tool reads them."""
    rc, out, err = _fed(["/usr/bin/time", "-f", "%M", BIN, *args], chunks)
    err = [l for l in err.decode().strip().splitlines() if not l.startswith("Command exited with non-zero status")]
    return rc, out.decode(), "\n".join(err[:-1]), int(err[-1])


def npy_bytes(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


# Against the RSS of a run on a literal, so that a sanitizer's shadow memory counts on both sides.
BASE_KIB = run(["5"])[3]
SMALL_KIB = BASE_KIB + 64 * 1024

for args, stdin, name, said in ((["/dev/zero"], None, "/dev/zero", "not a recognised tensor file ("),
                                (["-"], "/dev/zero", "<stdin>", "not a recognised tensor file nor a literal ("),
                                (["validate", "/dev/zero"], None, "/dev/zero", "not a recognised tensor file ("),
                                (["validate", "-"], "/dev/zero", "<stdin>", "not a recognised tensor file ("),
                                (["/dev/zero", "--list"], None, "/dev/zero", "not a recognised tensor file (")):
    rc, out, err, rss = run(args, stdin)
    tally.check(
        f"{' '.join(args)}{' < ' + stdin if stdin else ''}: refused after its first read, in one line", rc == 2 and
        not out and len(err.splitlines()) == 1 and err.startswith(f"tensor-inspect: {name}: "
                                                                  f"{said}first bytes: 00 00"),
        f"{rc} {out[:80]!r} {err!r}")
    tally.check("... in little memory (the cap is 1 GiB)", rss < SMALL_KIB, f"{rss} KiB, {BASE_KIB} KiB for a literal")

a = np.arange(-3, 9, dtype="<i2").reshape(3, 4)
rc, out, err = run_fed(["-", "--json"], npy_bytes(a))
tally.check(".npy then endless zeros on a pipe: read to the end of its data, NumPy's values", rc == 0 and
            json.loads(out)["tolist"] == a.tolist() and json.loads(out)["shape"] == [3, 4],
            f"{rc} {out[:200]!r} {err!r}")
big = np.arange(300000, dtype=">f8")  # 2.4 MB: more than one read, big-endian
rc, out, err = run_fed(["-", "-e", "x.sum()", "--json"], npy_bytes(big))
tally.check("... a 2.4 MB one too (several reads)", rc == 0 and json.loads(out)["tolist"] == float(big.sum()),
            f"{rc} {out[:200]!r} {err!r}")
rc, out, err = run_fed(["-", "--json"], npy_bytes(a), endless=False)
tally.check("... and an ordinary .npy pipe", rc == 0 and json.loads(out)["tolist"] == a.tolist(), f"{rc} {err!r}")

rc, out, err = run_fed(["-", "--raw", "float32", "--shape", "2,2", "--json"],
                       np.array([1.5, -2, 3, 4], "<f4").tobytes(),
                       endless=False)
tally.check("raw float32 (2, 2) of exactly 16 bytes on a pipe: numpy.frombuffer's values",
            rc == 0 and json.loads(out)["tolist"] == [[1.5, -2.0], [3.0, 4.0]], f"{rc} {out[:200]!r} {err!r}")
rc, out, err, rss = run(["/dev/zero", "--raw", "float32", "--shape", "4"])
tally.check(
    "raw float32 (4,) of /dev/zero: more than its 16 bytes is the wrong size, said at once", rc == 2 and not out and
    err == "tensor-inspect: /dev/zero: shape (4,) of "
    "float32 needs 16 bytes, but more follow "
    "offset 0 (a stream: read no further)" and rss < SMALL_KIB, f"{rc} {err!r} {rss} KiB")

gguf_head = b"GGUF" + (3).to_bytes(4, "little") + (1).to_bytes(8, "little") + (0).to_bytes(8, "little")
rc, out, err = run_fed(["-", "--list", "--limit", "stream_bytes=1M"], gguf_head)
tally.check(
    "a GGUF head and endless zeros: the cap, named with how to raise it", rc == 2 and not out and
    err == "tensor-inspect: <stdin>: more than 1048576 "
    "bytes from a pipe or special file, which is "
    "read into memory " + CAP_HINT, f"{rc} {err!r}")
declared = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000,), }"
text = declared + b" " * (-(10 + len(declared) + 1) % 64) + b"\n"
npy_head = b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text
rc, out, err = run_fed(["-", "--limit", "stream_bytes=1M"], npy_head)
tally.check(
    "a .npy header declaring 4 MB over a 1 MiB cap: refused at once, naming the cap", rc == 2 and not out and
    err == f"tensor-inspect: <stdin>: its first bytes say "
    f"it holds {len(npy_head) + 4000000} bytes, "
    "over the 1048576 read into memory "
    "from a pipe or special file " + CAP_HINT, f"{rc} {err!r}")

rc, out, err = run_fed(["-", "--json"], b"[[1, 2], [3, 4]]\n", endless=False)
tally.check("a literal on standard "
            "input still reads", rc == 0 and json.loads(out)["tolist"] == [[1, 2], [3, 4]], f"{rc} {err!r}")

# Junk text on a pipe (a user piped 300 MB of it: 590 MB of RSS before the parser refused it).
MiB = 1 << 20
LITERAL_HINT = "(limit literal_bytes; raise it with --limit literal_bytes=N)"


def junk(first, unit, total=300 * MiB):
    yield first
    block = unit * (MiB // len(unit))
    for _ in range(total // len(block)):
        yield block


rc, out, err, rss = run_piped(["-"], junk(b"[", b"zq9, "))
tally.check(
    "300 MB of junk text after a '[' on a pipe: refused past the literal cap, in one line naming it", rc == 2 and
    not out and err == "tensor-inspect: <stdin>: not a recognised tensor file, and more than the "
    f"{64 * MiB} bytes of "
    f"text a literal may hold " + LITERAL_HINT, f"{rc} {out[:80]!r} {err!r}")
tally.check("... within the cap's memory "
            "(64 MiB), not the stream's", rss < SMALL_KIB + 32 * 1024, f"{rss} KiB, {BASE_KIB} "
            f"KiB for a literal")
rc, out, err, rss = run_piped(["-"], junk(b"", b"junk "))
tally.check(
    "300 MB of text no literal starts with: refused after the first read", rc == 2 and not out and
    len(err.splitlines()) == 1 and err.startswith("tensor-inspect: <stdin>: not a recognised tensor "
                                                  "file nor a literal (first bytes: 6a 75 6e 6b"),
    f"{rc} {out[:80]!r} {err!r}")
tally.check("... in little memory", rss < SMALL_KIB, f"{rss} KiB, {BASE_KIB} KiB for a literal")
text = b"[" + b", ".join(b"%d" % k for k in range(400)) + b"]"  # 1,890 bytes
rc, out, err = run_fed(["-", "--limit", "literal_bytes=1K"], text, endless=False)
tally.check(
    f"a {len(text)}-byte literal on a pipe over --limit literal_bytes=1K: refused, naming the cap", rc == 2 and
    not out and err.endswith(f"more than the 1024 bytes of text "
                             f"a literal may hold {LITERAL_HINT}"), f"{rc} {err!r}")
rc, out, err = run_fed(["-", "--json", "--limit", f"literal_bytes={len(text)}"], text, endless=False)
tally.check(f"... and read at --limit "
            f"literal_bytes={len(text)}", rc == 0 and json.loads(out)["tolist"] == list(range(400)), f"{rc} {err!r}")
rc, out, err = run_fed(["-", "--json"], b"  \n\t True", endless=False)
tally.check("a short literal after blanks "
            "on a pipe still reads", rc == 0 and json.loads(out)["tolist"] is True, f"{rc} {err!r}")
p = subprocess.run([BIN, "[1, 2, 3]", "--limit", "literal_bytes=4"], capture_output=True, text=True, timeout=60)
tally.check(
    "a literal argument over literal_bytes: the same cap, named", p.returncode == 2 and not p.stdout and
    p.stderr == f"tensor-inspect: literal: 9 bytes, more than the "
    f"4 of text a literal may hold {LITERAL_HINT}\n", repr(p.stderr))

sys.exit(tally.summary())
