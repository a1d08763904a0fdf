#!/usr/bin/env python3
"""--cache DIR / --cache-size for remote inputs, against nginx (Debian's nginx-light) on 127.0.0.1.

    /usr/bin/python3 tests/remote_cache.py build/tensor-inspect

Serves files made here (NumPy) and copies of samples/ through tests/nginx_server.py, plus
the fault-injecting server of tests/http_faults.py for validators nginx does not send.
Checks, from nginx's access log and du: a second run with the same --cache transfers 0 body
bytes (304 answers) and prints byte-identical output, for listings, values, --stats, -e,
diff, validate and a column walk read through a temporary copy; a file rewritten on the
server is fetched again and gives its new values; a file replaced between two ranges of one
run is an error, never mixed bytes; no ETag/Last-Modified, or a weak ETag, means nothing cached; Last-Modified alone is
revalidated; --cache-size bounds du of DIR and evicts the least recently used file first, and
a file larger than it keeps the blocks that fit; a malformed TI_CACHE_SIZE stops only a run
that uses the cache; --cache before diff/validate wins over TI_CACHE_DIR;
an unwritable DIR or a file-size limit still gives the right output and exit 0; damaged
entries give the right values; without --cache nothing is written in HOME, XDG_CACHE_HOME
or the working folder; the token and the URL's query string are in no cache file;
concurrent runs sharing a DIR agree. Prints one line per check and `N passed, M failed`.
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys

import tally
from tally import check

from nginx_server import servers
from remote_http import write_safetensors

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
KiB, MiB = 1 << 10, 1 << 20
TOKEN = "hf_CACHESECRET0123456789abcdef"
QUERY_SECRET = "QSECRET9876"



def run(binary, args, env=None, cwd=None, preexec=None):
    e = {k: v for k, v in os.environ.items() if k not in ("HF_TOKEN", "TI_CACHE_DIR", "TI_CACHE_SIZE")}
    e.update(env or {})
    p = subprocess.run([binary] + args, capture_output=True, env=e, timeout=120, cwd=cwd, preexec_fn=preexec)
    return p.returncode, p.stdout, p.stderr


def body_bytes(lines):
    """Body bytes of the answers that carried file content (206 and 200), from nginx's log."""
    return sum(int(line.split()[2]) for line in lines if line.split()[1] in ("200", "206"))


def du(path):
    """Allocated bytes of a folder, as du counts them."""
    return int(subprocess.run(["du", "-s", "--block-size=1", path], capture_output=True, text=True).stdout.split()[0])


def entries(cache):
    return sorted(n for n in os.listdir(cache) if os.path.isdir(os.path.join(cache, n))) if os.path.isdir(cache) else []


def make_files(www):
    for name in ("mixed.safetensors", "arrays_compressed.npz", "quants.gguf", "weights_f32.npy", "state_dict.pt"):
        shutil.copy(os.path.join(SAMPLES, name), www)
    rng = np.random.default_rng(4)
    tensors = {"small": rng.standard_normal((4, 4)).astype(np.float32),
               "mid": rng.standard_normal((512, 512)).astype(np.float32),           # 1 MiB
               "big": rng.standard_normal((1024, 1024)).astype(np.float32)}         # 4 MiB
    write_safetensors(os.path.join(www, "model.safetensors"),
                      [(n, "F32", t.shape, t.tobytes()) for n, t in tensors.items()])
    for k in range(4):  # files for the size bound: 2 MiB each
        np.save(os.path.join(www, f"part{k}.npy"), np.arange(k, k + 512 * 1024, dtype=np.float32))
    return tensors


def main():
    binary = os.path.abspath(sys.argv[1])
    with servers("ti-cache-") as (tmp, www, nginx, fault_url):
        checks(binary, nginx, fault_url, tmp, www, make_files(www))
    return tally.summary()


def twice(binary, nginx, cache, args, name, env=None):
    """A run with --cache, then the same again: same output as without a cache, then 0 bytes."""
    want = run(binary, args, env)
    first = run(binary, ["--cache", cache] + args, env)
    m = nginx.mark()
    second = run(binary, ["-v", "--cache", cache] + args, env)
    lines = nginx.lines_since(m)
    check(f"{name}: the first run with --cache "
          f"prints what a run without prints", first[:2] == want[:2] and want[0] in (0, 1),
          f"{first[0]} vs {want[0]}: {first[2][:300]!r}")
    check(f"{name}: a second run transfers "
          f"0 body bytes and prints the same", second[:2] == want[:2] and body_bytes(lines) == 0 and
          any(line.split()[1] == "304" for line in lines), f"{body_bytes(lines)} bytes; "
          f"{lines[:4]} {second[2][-300:]!r}")
    check(f"{name}: -v says the bytes came from the cache", b" bytes over the network" in second[2] and
          b", 0 bytes over the network" in second[2], second[2][-300:])


def checks(binary, nginx, fault_url, tmp, www, tensors):
    cache = os.path.join(tmp, "cache")
    model = nginx.url("files", "model.safetensors")
    # 1. A second look is local: listings, values, statistics, expressions, zip members, GGUF.
    walk = [model, "--name", "big", "-e", "(x + x.T).sum()", "--json", "--limit", "remote_memory_bytes=4M"]
    for args, name in [([model, "--list"], "listing"), ([model, "--name", "small", "--json"], "values"),
                       ([model, "--name", "mid", "--stats", "--json"], "--stats"),
                       ([model, "--name", "big", "-e", "x[::7, 3:9].sum()", "--json"], "-e slice"),
                       ([model, "--all", "--jsonl"], "--all --jsonl"),
                       ([nginx.url("files", "arrays_compressed.npz"), "--all", "--json"], "compressed npz"),
                       ([nginx.url("files", "quants.gguf"), "--meta", "--json"], "GGUF --meta"),
                       ([nginx.url("files", "quants.gguf"), "--name", "q4_k", "--stats"], "GGUF dequantized --stats"),
                       ([nginx.url("files", "state_dict.pt"), "--all", "--json"], "PyTorch zip"),
                       (["diff", os.path.join(www, "model.safetensors"), model, "--json"], "diff"),
                       (["validate", nginx.url("files", "mixed.safetensors")], "validate"),
                       ([nginx.url("redirect", "weights_f32.npy"), "--json"], "through a redirect"),
                       ([nginx.url("norange", "mixed.safetensors"), "--all"], "a server ignoring Range"),
                       (walk, "a column walk through a temporary copy")]:
        twice(binary, nginx, cache, args, name)
    # That walk's copy came from the cache: 4 MiB of 1,024 rows, more than a remote cache of 1 MiB
    # holds, streamed into the copy (buffer/spill_file.hpp) through the block cache, not fetched into
    # memory (remote/cached_stream.cpp).
    status, _, err = run(binary, ["-v", "--cache", cache] + walk)
    check("the column walk's -v says it read a temporary copy, all of it from the cache",
          status == 0 and b"copied to a temporary file" in err and b", 0 bytes over the network" in err, err[-400:])
    status, out, _ = run(binary, ["--cache", cache, model, "--name", "mid", "--json"])
    check("values from the cache are NumPy's", status == 0 and
          json.loads(out)["tolist"] == tensors["mid"].astype(np.float64).tolist())
    env_cache = os.path.join(tmp, "env-cache")
    run(binary, [model, "--name", "small"], {"TI_CACHE_DIR": env_cache})
    m = nginx.mark()
    status, out, _ = run(binary, [model, "--name", "small"], {"TI_CACHE_DIR": env_cache})
    check("TI_CACHE_DIR works as --cache", status == 0 and body_bytes(nginx.lines_since(m)) == 0 and
          len(entries(env_cache)) == 1)
    hf = {"TI_HF_ENDPOINT": f"http://127.0.0.1:{nginx.port}/hf"}
    twice(binary, nginx, cache, ["hf://org/repo/model.safetensors", "--name", "mid", "--json"], "hf:// (a redirect)",
          hf)

    # 2. A file rewritten on the server is fetched again; one replaced mid-read is an error.
    vals = os.path.join(www, "vals.npy")
    old = np.arange(300_000, dtype=np.float32)
    np.save(vals, old)
    os.utime(vals, (1_700_000_000, 1_700_000_000))
    url = nginx.url("files", "vals.npy")
    run(binary, ["--cache", cache, url, "-e", "x[-5:]", "--json"])
    new = old * 3 - 1
    np.save(vals, new)
    os.utime(vals, (1_700_000_100, 1_700_000_100))  # nginx's ETag is the mtime and the size
    m = nginx.mark()
    status, out, err = run(binary, ["-v", "--cache", cache, url, "-e", "x[-5:]", "--json"])
    check(
        "a file rewritten on the server: "
        "fetched again, its new values", status == 0 and body_bytes(nginx.lines_since(m)) > 0 and
        json.loads(out)["tolist"] == new[-5:].astype(np.float64).tolist() and b"the file changed on the server" in err,
        err[-300:])
    m = nginx.mark()
    status, out, _ = run(binary, ["--cache", cache, url, "-e", "x[-5:]", "--json"])
    check("... and cached again under its new ETag", status == 0 and body_bytes(nginx.lines_since(m)) == 0 and
          json.loads(out)["tolist"] == new[-5:].astype(np.float64).tolist())
    for args in ([], ["--cache", cache]):
        status, out, err = run(binary, args + [fault_url("etagchange", "model.safetensors"), "--name", "mid"])
        lines = err.decode(errors="replace").strip().splitlines()
        check(
            f"a file replaced between two ranges of one "
            f"run{' (--cache)' if args else ''}: exit 2, one line, nothing printed", status == 2 and not out and
            len(lines) == 1 and "changed on the server "
            "while it was read" in lines[0], repr(lines))

    # 3. Validators: none or weak means not cached; Last-Modified alone is revalidated.
    for mode in ("plain", "weaketag"):
        d = os.path.join(tmp, f"cache-{mode}")
        want = run(binary, [fault_url(mode, "mixed.safetensors"), "--all"])
        got = run(binary, ["-v", "--cache", d, fault_url(mode, "mixed.safetensors"), "--all"])
        check(
            f"{mode} validator: right output, "
            f"nothing cached, said at -v", got[:2] == want[:2] and got[0] == 0 and not entries(d) and
            b"neither a strong ETag nor Last-Modified" in got[2], got[2][-300:])
    d = os.path.join(tmp, "cache-lastmod")
    want = run(binary, [fault_url("lastmod", "model.safetensors"), "--name", "mid", "--stats"])
    run(binary, ["--cache", d, fault_url("lastmod", "model.safetensors"), "--name", "mid", "--stats"])
    got = run(binary, ["-v", "--cache", d, fault_url("lastmod", "model.safetensors"), "--name", "mid", "--stats"])
    check("Last-Modified alone: the second run is "
          "answered 304 and read from the cache", got[:2] == want[:2] and got[0] == 0 and
          b", 0 bytes over the network" in got[2], got[2][-300:])

    # 4. --cache-size: du of DIR stays under it; least recently used files go first.
    d = os.path.join(tmp, "cache-small")
    status, out, err = run(binary,
                           ["-v", "--cache", d, "--cache-size", "1M", model, "--name", "big", "--stats", "--json"])
    want = run(binary, [model, "--name", "big", "--stats", "--json"])
    check("a 4 MiB tensor and --cache-size "
          "1M: right output, du <= 1 MiB", status == 0 and out == want[1] and du(d) <= MiB and
          b"reached --cache-size" in err, f"{du(d)} bytes {err[-200:]!r}")
    # ... cached in part: the blocks that fit (1 MiB holds 16 of 64 KiB, less the entry's own
    # files), where the whole run of the tensor's blocks was refused and 64 KiB were kept.
    with open(os.path.join(d, entries(d)[0], "blocks"), "rb") as f:
        table = f.read()
    held = sum(1 for k in range(0, len(table), 8) if table[k:k + 8] != bytes(8))
    check("... cached in part: 12 to 15 blocks of 64 KiB kept", 12 <= held <= 15, f"{held} blocks")
    m = nginx.mark()
    status, out, err = run(binary, ["--cache", d, "--cache-size", "1M", model, "--name", "big", "--stats", "--json"])
    sent = body_bytes(nginx.lines_since(m))
    check("... and a second run fetches only the rest: 4 MiB less what was kept", status == 0 and out == want[1] and
          sent <= 4 * MiB - 11 * 64 * KiB and du(d) <= MiB, f"{sent} body bytes, {held} blocks kept")
    d = os.path.join(tmp, "cache-lru")
    sizes, ok = [], True
    for k in range(4):
        part = nginx.url("files", f"part{k}.npy")
        status, out, _ = run(binary, ["--cache", d, "--cache-size", "5M", part, "-e", "x.max()", "--json"])
        ok &= status == 0 and json.loads(out)["tolist"] == float(np.arange(k, k + 512 * 1024, dtype=np.float32).max())
        sizes.append(du(d))
    check("four 2 MiB files under --cache-size 5M: "
          "right maxima, du <= 5 MiB after each", ok and max(sizes) <= 5 * MiB and len(entries(d)) == 2,
          f"{sizes} {entries(d)}")
    m = nginx.mark()
    run(binary, ["--cache", d, "--cache-size", "5M", nginx.url("files", "part3.npy"), "-e", "x.max()"])
    kept = body_bytes(nginx.lines_since(m))
    m = nginx.mark()
    run(binary, ["--cache", d, "--cache-size", "5M", nginx.url("files", "part0.npy"), "-e", "x.max()"])
    check("the least recently used file "
          "was evicted, the newest kept", kept == 0 and body_bytes(nginx.lines_since(m)) >= 2 * MiB,
          f"{kept} {entries(d)}")
    for bad in ("12X", "-1", "0", "1.5G", "512K"):
        status, out, err = run(binary, ["--cache", d, "--cache-size", bad, model, "--list"])
        check(f"--cache-size {bad}: a usage error, exit 2", status == 2 and not out and b"--cache-size" in err, err)
    status, out, _ = run(binary, [model, "--list"], {"TI_CACHE_DIR": d, "TI_CACHE_SIZE": "2M"})
    check("TI_CACHE_SIZE bounds the cache too", status == 0 and du(d) <= 2 * MiB, f"{du(d)}")
    # A malformed TI_CACHE_SIZE matters only to a run that uses the cache: one line, exit 2,
    # before any request; the command line's --cache-size wins over it; without a cache it
    # is not read (it used to fail every run, literals included).
    d = os.path.join(tmp, "cache-badenv")
    m = nginx.mark()
    status, out, err = run(binary, [model, "--list"], {"TI_CACHE_DIR": d, "TI_CACHE_SIZE": "12X"})
    lines = err.decode(errors="replace").strip().splitlines()
    check(
        "a malformed TI_CACHE_SIZE with a cache: exit 2, one line "
        "naming it and its value, no request, nothing cached", status == 2 and not out and len(lines) == 1 and
        "TI_CACHE_SIZE" in lines[0] and "'12X'" in lines[0] and not nginx.lines_since(m) and not entries(d),
        f"{status} {lines} {nginx.lines_since(m)[:2]}")
    want = run(binary, [model, "--list"])
    got = run(binary, ["--cache-size", "2M", model, "--list"], {"TI_CACHE_DIR": d, "TI_CACHE_SIZE": "12X"})
    check("... --cache-size on the "
          "command line wins over it", got == (0, want[1], b"") and len(entries(d)) == 1, got[2][-300:])
    got = run(binary, [model, "--list"], {"TI_CACHE_SIZE": "12X"})
    check("... without a cache folder it is not used: the run goes on", got == (0, want[1], b""), got[2][-300:])
    # An option on the command line wins over the environment, also before a subcommand:
    # TI_CACHE_DIR used to win over `--cache DIR diff ...`.
    given, env_dir = os.path.join(tmp, "cache-given"), os.path.join(tmp, "cache-env")
    for sub in (["diff", model, os.path.join(www, "model.safetensors")], ["validate", model]):
        shutil.rmtree(given, ignore_errors=True)
        shutil.rmtree(env_dir, ignore_errors=True)
        status, out, err = run(binary, ["--cache", given] + sub, {"TI_CACHE_DIR": env_dir})
        check(f"--cache DIR {sub[0]} with TI_CACHE_DIR set: DIR is used, not the variable's", status == 0 and
              len(entries(given)) == 1 and not entries(env_dir), f"{status} {entries(given)} "
              f"{entries(env_dir)} {err[-200:]!r}")
        shutil.rmtree(given, ignore_errors=True)
        shutil.rmtree(env_dir, ignore_errors=True)
        status, out, err = run(binary, [sub[0], "--cache", given] + sub[1:], {"TI_CACHE_DIR": env_dir})
        check(f"{sub[0]} --cache DIR with TI_CACHE_DIR set: DIR is used", status == 0 and len(entries(given)) == 1 and
              not entries(env_dir), f"{status} {entries(given)} {entries(env_dir)} {err[-200:]!r}")
    status, out, err = run(binary, ["diff", model, model], {"TI_CACHE_DIR": env_dir})
    check("diff with only TI_CACHE_DIR: "
          "the variable's folder is used", status == 0 and len(entries(env_dir)) == 1, err[-200:])

    # 5. A cache that cannot be written never fails a run.
    blocker = os.path.join(tmp, "a-file")
    open(blocker, "w").close()
    want = run(binary, [model, "--name", "mid", "--stats"])

    def fsize_limit():  # the tool ignores SIGXFSZ with --cache, so writes past it fail with EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * KiB, 64 * KiB))

    for d, pre, name in [(blocker, None, "DIR is a file"), (os.path.join(blocker, "sub"), None, "DIR under a file"),
                         (os.path.join(tmp, "cache-fsize"), fsize_limit, "a file-size limit (as a full disk)")]:
        quiet = run(binary, ["--cache", d, model, "--name", "mid", "--stats"], preexec=pre)
        loud = run(binary, ["-v", "--cache", d, model, "--name", "mid", "--stats"], preexec=pre)
        check(f"{name}: right output, exit 0, nothing "
              f"on stderr without -v, one line at -v", quiet == (0, want[1], b"") and loud[:2] == (0, want[1]) and
              loud[2].count(b"without the cache") == 1, f"{quiet[0]} {quiet[2][:200]!r} "
              f"{loud[2][-300:]!r}")
    shared = os.path.join(tmp, "cache-shared-dir")
    os.mkdir(shared)
    os.chmod(shared, 0o777)  # mkdir's mode is cut by the umask
    if os.geteuid() == 0:
        theirs = os.path.join(tmp, "cache-theirs")
        os.mkdir(theirs, 0o700)
        os.chown(theirs, 65534, 65534)
    for d, name in [(shared, "a folder anyone may write")
                   ] + ([(theirs, "another user's folder")] if os.geteuid() == 0 else []):
        got = run(binary, ["-v", "--cache", d, model, "--name", "mid", "--stats"])
        check(f"{name}: not used (it could hold planted bytes); right output, exit 0", got[:2] == (0, want[1]) and
              not entries(d) and b"plant bytes" in got[2], got[2][-300:])
    if os.geteuid() != 0:  # root writes through permission bits
        d = os.path.join(tmp, "cache-ro")
        os.mkdir(d, 0o500)
        got = run(binary, ["--cache", d, model, "--name", "mid", "--stats"])
        check("a read-only DIR: right output, exit 0", got == (0, want[1], b""), got[2][:200])

    # 6. Damaged entries are discarded or their blocks refetched, never trusted.
    d = os.path.join(tmp, "cache-damage")
    # A slice fills a few blocks; the run after the damage reads them all, also those never
    # written (holes of zeros that garbage in `blocks` would claim).
    args = [model, "--all", "--json"]
    want = run(binary, args)
    for damage in ("truncate data", "garbage blocks", "garbage info", "no blocks", "zeroed data"):
        shutil.rmtree(d, ignore_errors=True)
        run(binary, ["--cache", d, model, "--name", "big", "-e", "x[100:103, ::256]"])
        entry = os.path.join(d, entries(d)[0])
        if damage == "truncate data":
            os.truncate(os.path.join(entry, "data"), 1000)
        elif damage == "garbage blocks":
            n = os.path.getsize(os.path.join(entry, "blocks"))
            with open(os.path.join(entry, "blocks"), "wb") as f:
                f.write(np.random.default_rng(1).bytes(n))
        elif damage == "garbage info":
            with open(os.path.join(entry, "info"), "wb") as f:
                f.write(b"\xff\xfe not an info file")
        elif damage == "no blocks":
            os.remove(os.path.join(entry, "blocks"))
        else:  # the bytes lost, the table kept: every block fails its hash
            size = os.path.getsize(os.path.join(entry, "data"))
            with open(os.path.join(entry, "data"), "wb") as f:
                f.truncate(size)
        got = run(binary, ["--cache", d] + args)
        m = nginx.mark()
        again = run(binary, ["--cache", d] + args)
        check(f"a damaged entry ({damage}): right values, then cached again", got[:2] == want[:2] and got[0] == 0 and
              again[:2] == want[:2] and body_bytes(nginx.lines_since(m)) == 0, f"{got[2][:300]!r}")

    # 7. Without --cache nothing is written; the token and query string never reach a cache file.
    home, xdg, work = (os.path.join(tmp, n) for n in ("home", "xdg", "work"))
    for p in (home, xdg, work):
        os.mkdir(p)
    env = {"HOME": home, "XDG_CACHE_HOME": xdg, "TMPDIR": work}
    for args in ([model, "--list"], [model, "--name", "mid", "--stats"], ["diff", model, model], ["validate", model]):
        run(binary, args, env, cwd=work)
    check("without --cache nothing is written (HOME, XDG_CACHE_HOME, TMPDIR, working folder)",
          not os.listdir(home) and not os.listdir(xdg) and not os.listdir(work))
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    d = os.path.join(tmp, "cache-token")
    signed = model + f"?X-Amz-Signature={QUERY_SECRET}"
    status, _, _ = run(binary, ["--token-file", token_file, "--cache", d, signed, "--name", "mid", "--stats"])
    status2, _, err = run(binary, ["-v", "--token-file", token_file, "--cache", d, signed, "--name", "mid", "--stats"])
    found = []
    for dirpath, _, files in os.walk(d):
        for n in files:
            with open(os.path.join(dirpath, n), "rb") as f:
                data = f.read()
            if TOKEN.encode() in data or TOKEN[3:15].encode() in data or QUERY_SECRET.encode() in data:
                found.append(n)
    check("a token and a signed URL's query: "
          "cached, and in no cache file", status == 0 and status2 == 0 and entries(d) and not found and
          b", 0 bytes over the network" in err, repr(found))

    # 8. Concurrent runs sharing one DIR agree with a run without the cache, and leave it sound.
    d = os.path.join(tmp, "cache-shared")
    args = [model, "--all", "--json"]
    want = run(binary, args)
    e = {k: v for k, v in os.environ.items() if k not in ("HF_TOKEN", "TI_CACHE_DIR", "TI_CACHE_SIZE")}
    procs = [
        subprocess.Popen([binary, "--cache", d] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    m = nginx.mark()
    again = run(binary, ["--cache", d] + args)
    check("four concurrent runs on one DIR: "
          "each right; the next run is local",
          all(o == (want[1], b"", 0) for o in outs) and again[:2] == want[:2] and body_bytes(nginx.lines_since(m)) == 0,
          repr([o[1][:200] for o in outs]))


if __name__ == "__main__":
    sys.exit(main())
