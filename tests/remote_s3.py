#!/usr/bin/env python3
"""s3:// and gs:// against a real S3-compatible server on 127.0.0.1: s3rver (npm, pinned by
scripts/install_s3rver.sh into .test-deps/) behind tests/sigv4_proxy.py, which verifies
every request's AWS Signature V4 with its own signer (pinned to AWS's published vectors)
and counts the body bytes served.

    /usr/bin/python3 tests/remote_s3.py build/tensor-inspect

Checks: the samples and a sharded checkpoint give the same stdout and exit status through
s3:// as through their paths (listings, --all values, --stats, JSON; shards found beside
the index; a key prefix ending in / as the local folder, listed and diffed);
gs:// with HMAC keys (TI_GS_ENDPOINT) and AWS_PROFILE with ~/.aws files do
too; --no-sign-request goes unsigned; listing a 16 MiB file transfers < 1 MiB, --stats of
it about its size; a wrong access key, a wrong secret (a refused signature), a wrong session
token and a missing object each exit 2 with one stderr line naming the s3:// URL and
nothing on stdout; no secret appears in any output, with -vv too. Exits 77 (skipped) when
s3rver is not installed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import numpy as np

import tally
from tally import check
from nginx_server import free_port
from remote_http import write_safetensors
from sigv4_proxy import SigV4Proxy, presign, verify_self

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
S3RVER = os.path.join(ROOT, ".test-deps", "s3rver", "node_modules", "s3rver", "bin", "s3rver.js")
MiB = 1 << 20
KEY, SECRET, TOKEN = "AKIATESTKEY0000", "s3cr3t/TEST+key=0123456789abcdefXYZ", "SESSIONtokenSECRET0123"
GS_KEY, GS_SECRET = "GOOG1TESTHMAC", "gsSECRETvalue/0123456789"
SECRETS = (SECRET, TOKEN, GS_SECRET)


def start_s3rver(data):
    port = free_port()
    p = subprocess.Popen(["node", S3RVER, "-d", data, "-a", "127.0.0.1", "-p", str(port), "--silent",
                          "--configure-bucket", "ckpt"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/ckpt", timeout=1).read()
            return p, port
        except OSError:
            time.sleep(0.05)
    p.kill()
    raise RuntimeError("s3rver did not start")


def upload(port, key, path):
    with open(path, "rb") as f:
        data = f.read()
    quoted = urllib.parse.quote(key, safe="/")
    req = urllib.request.Request(f"http://127.0.0.1:{port}/ckpt/{quoted}", data=data, method="PUT")
    urllib.request.urlopen(req, timeout=30).read()


def make_files(www):
    names = []
    for name in sorted(os.listdir(SAMPLES)):
        if os.path.isfile(os.path.join(SAMPLES, name)) and not name.endswith((".py", ".md", ".json")):
            shutil.copy(os.path.join(SAMPLES, name), www)
            names.append(name)
    shutil.copytree(os.path.join(SAMPLES, "sharded"), os.path.join(www, "sharded"))
    mid = np.random.default_rng(5).standard_normal((4, MiB)).astype(np.float32)  # 16 MiB
    write_safetensors(os.path.join(www, "mid.safetensors"), [("small", "F32", (2, 2), mid[0, :4].tobytes()),
                                                            ("mid", "F32", mid.shape, mid.tobytes())])
    os.mkdir(os.path.join(www, "dir with space"))
    shutil.copy(os.path.join(SAMPLES, "float32.npy"), os.path.join(www, "dir with space", "a+b=c.npy"))
    return names


def run(binary, args, env):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GS_", "GOOGLE_", "TI_GS_"))}
    e["HOME"] = env.pop("HOME", "/nonexistent")
    e.update(env)
    p = subprocess.run([binary] + args, capture_output=True, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr


def no_secret(*outs):
    return not any(s.encode() in o for o in outs for s in SECRETS)


def main():
    binary = os.path.abspath(sys.argv[1])
    if not os.path.exists(S3RVER) or shutil.which("node") is None:
        print("SKIP: s3rver is not installed (scripts/install_s3rver.sh)")
        return 77
    check("the proxy's own SigV4 signer matches AWS's test vectors (get-vanilla, with-session-token)", verify_self())
    with tempfile.TemporaryDirectory(prefix="ti-s3-") as tmp:
        www = os.path.join(tmp, "www")
        os.mkdir(www)
        names = make_files(www)
        server, s3_port = start_s3rver(os.path.join(tmp, "s3"))
        proxy = SigV4Proxy(s3_port, {KEY: (SECRET, None), GS_KEY: (GS_SECRET, None)})
        try:
            for root, _, files in os.walk(www):
                for f in files:
                    path = os.path.join(root, f)
                    upload(s3_port, os.path.relpath(path, www), path)
            checks(binary, tmp, www, names, proxy)
        finally:
            proxy.stop()
            server.kill()
            server.wait()
    return tally.summary()


def checks(binary, tmp, www, names, proxy):
    endpoint = f"http://127.0.0.1:{proxy.port}"
    env = lambda **more: {"AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_ENDPOINT_URL": endpoint,
                          "AWS_REGION": "eu-west-3", **more}

    def same_as_local(n, args, url=None, e=None, what="s3://"):
        url = url or f"s3://ckpt/{n}"
        want = run(binary, [os.path.join(www, n)] + args, {})
        got = run(binary, [url] + args, e or env())
        out = got[1].replace(url.encode(), os.path.join(www, n).encode())
        check(f"{n} {' '.join(args)} through {what} equals the local output", got[0] == want[0] and out == want[1] and
              no_secret(got[1], got[2]), f"status {got[0]} vs {want[0]}; stderr {got[2][:300]!r}")

    # 1. Every sample and the sharded checkpoint: the local output, byte for byte.
    for n in names:
        raw = n.endswith(".bin")
        base = ["--raw", "float32"] if n == "raw_f32.bin" else ["--raw", "int16", "--byte-order", "big"] if raw else []
        for args in ([], ["--all", "--json"] if not raw else ["--json"]):
            same_as_local(n, base + args)
    for n, args in [("sharded/model.safetensors.index.json", ["--list"]),
                    ("sharded/model.safetensors.index.json", ["--all"]),
                    ("sharded/model.safetensors.index.json", ["--stats", "--jsonl"]),
                    ("quants.gguf", ["--stats", "--json"]), ("arrays.npz", ["--stats"]),
                    ("mixed.safetensors", ["--meta", "--json"]), ("dir with space/a+b=c.npy", ["--all"])]:
        same_as_local(n, args)
    status, out, err = run(binary,
                           ["diff", os.path.join(www, "state_dict.pt"), "s3://ckpt/state_dict.pt", "--json"], env())
    check("diff of a local file and its s3:// copy: nothing differs", status == 0 and
          json.loads(out)["summary"].get("differs", 1) == 0, repr(err[:300]))
    # A folder (a key prefix ending in /) opens as the local folder does: its index, its shards.
    local_dir = os.path.join(www, "sharded")
    want = run(binary, [local_dir, "--list"], {})
    got = run(binary, ["s3://ckpt/sharded/", "--list"], env())
    check("s3://ckpt/sharded/ --list equals the local folder's", got[0] == 0 and want[0] == 0 and
          got[1].replace(b"s3://ckpt/sharded/", (local_dir + "/").encode()).replace(
              b"s3://ckpt/sharded", local_dir.encode()) == want[1], f"{got[1][:300]!r} {got[2][:300]!r}")
    status, out, err = run(binary, ["diff", "s3://ckpt/sharded/", local_dir, "--json"], env())
    check("diff of an s3:// folder and the local folder: every tensor compared, none differs", status == 0 and
          json.loads(out)["summary"].get("differs", 1) == 0 and json.loads(out)["summary"].get("compared", 0) > 0,
          repr(err[:300]) + repr(out[:300]))
    scopes = {tuple(e["scope"][1:]) for e in proxy.log if e["scope"]}
    check("every request was signed for the "
          "region AWS_REGION names, service s3", scopes == {("eu-west-3", "s3")}, repr(scopes))

    # 2. Bytes served.
    tally.pass_details = True
    before = proxy.body_bytes()
    status, out, _ = run(binary, ["s3://ckpt/mid.safetensors", "--list"], env())
    listed = proxy.body_bytes() - before
    check("listing a 16 MiB object "
          "transfers < 1 MiB", status == 0 and b"mid" in out and listed < MiB, f"{listed} bytes")
    before = proxy.body_bytes()
    same_as_local("mid.safetensors", ["--stats"])
    stats = proxy.body_bytes() - before
    size = os.path.getsize(os.path.join(www, "mid.safetensors"))
    check("--stats of it reads it about once", size <= stats <= size + MiB, f"{stats} bytes for a {size}-byte file")
    tally.pass_details = False

    # 3. Other ways to credentials: a session token, AWS_PROFILE with ~/.aws files, gs:// HMAC keys, unsigned.
    proxy.keys["ASIATEMP"] = ("tempsecret", TOKEN)
    same_as_local("mixed.safetensors", ["--all"],
                  e=env(AWS_ACCESS_KEY_ID="ASIATEMP", AWS_SECRET_ACCESS_KEY="tempsecret", AWS_SESSION_TOKEN=TOKEN),
                  what="s3:// with a session token")
    home = os.path.join(tmp, "home")
    os.makedirs(os.path.join(home, ".aws"))
    with open(os.path.join(home, ".aws", "credentials"), "w") as f:
        f.write(f"[default]\naws_access_key_id = WRONG\naws_secret_access_key = wrong\n\n[ml]\n"
                f"aws_access_key_id = {KEY}\naws_secret_access_key = {SECRET}\n")
    with open(os.path.join(home, ".aws", "config"), "w") as f:
        f.write(f"[profile ml]\nregion = ap-south-2\ns3 =\n  endpoint_url = {endpoint}\n  addressing_style = path\n")
    mark = len(proxy.log)
    same_as_local("quants.gguf", ["--all"], e={"HOME": home, "AWS_PROFILE": "ml"}, what="s3:// with AWS_PROFILE")
    check("the profile's region from ~/.aws/config signs", {e["scope"][1] for e in proxy.log[mark:]} == {"ap-south-2"})
    mark = len(proxy.log)
    same_as_local("sharded/model.safetensors.index.json", ["--all"],
                  url="gs://ckpt/sharded/model.safetensors.index.json",
                  e={
                      "GS_ACCESS_KEY_ID": GS_KEY,
                      "GS_SECRET_ACCESS_KEY": GS_SECRET,
                      "TI_GS_ENDPOINT": endpoint
                  },
                  what="gs:// with HMAC keys")
    check("gs:// HMAC requests are "
          "signed for region auto", {tuple(e["scope"][1:]) for e in proxy.log[mark:]} == {("auto", "s3")})
    mark = len(proxy.log)
    got = run(binary, ["s3://ckpt/float32.npy", "--all", "--no-sign-request"], {"AWS_ENDPOINT_URL": endpoint})
    want = run(binary, [os.path.join(www, "float32.npy"), "--all"], {})
    check("--no-sign-request reads without credentials, unsigned", got[0] == 0 and
          got[1].replace(b"s3://ckpt/float32.npy", os.path.join(www, "float32.npy").encode()) == want[1] and
          proxy.log[mark:] and not any(e["signed"] for e in proxy.log[mark:]), repr(got[2][:300]))

    # A presigned URL is plain HTTPS (here HTTP): its query carries the signature, never shown.
    mark = len(proxy.log)
    now = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    url = presign(endpoint, "/ckpt/mixed.safetensors", KEY, SECRET, "eu-west-3", now)
    sig = url.rsplit("=", 1)[1]
    got = run(binary, [url, "--all", "-vv"], {})
    want = run(binary, [os.path.join(www, "mixed.safetensors"), "--all"], {})
    shown = f"{endpoint}/ckpt/mixed.safetensors?..."
    check("a presigned URL reads as plain HTTP(S), verified by the proxy, its signature never shown",
          got[0] == 0 and got[1].replace(shown.encode(), os.path.join(www, "mixed.safetensors").encode()) == want[1] and
          sig.encode() not in got[1] + got[2] and proxy.log[mark:] and
          all(e["scope"] and e["scope"][-1] == "presigned" for e in proxy.log[mark:]), repr(got[2][-300:]))

    # 4. Faults: one line naming the URL, exit 2, nothing on stdout, no secret (also with -vv).
    faults = [("a wrong access key", "s3://ckpt/mixed.safetensors", env(AWS_ACCESS_KEY_ID="AKIAWRONG"),
               "HTTP status 403 (InvalidAccessKeyId)"),
              ("a refused signature (wrong secret)", "s3://ckpt/mixed.safetensors",
               env(AWS_SECRET_ACCESS_KEY=SECRET + "x"), "HTTP status 403 (SignatureDoesNotMatch)"),
              ("a wrong session token", "s3://ckpt/mixed.safetensors",
               env(AWS_ACCESS_KEY_ID="ASIATEMP", AWS_SECRET_ACCESS_KEY="tempsecret",
                   AWS_SESSION_TOKEN=TOKEN + "x"), "HTTP status 403 (InvalidToken)"),
              ("a missing object", "s3://ckpt/nothing/here.safetensors", env(), "HTTP status 404 (NoSuchKey)"),
              ("a folder with no checkpoint", "s3://ckpt/nothing/", env(), "model.safetensors.index.json"),
              ("no credentials at all", "s3://ckpt/mixed.safetensors", {
                  "AWS_ENDPOINT_URL": endpoint
              }, "no AWS credentials")]
    for what, url, e, needle in faults:
        for verbose in ([], ["-vv"]):
            status, out, err = run(binary, [url, "--all"] + verbose, dict(e))
            lines = [l for l in err.decode(errors="replace").splitlines() if l.strip()]
            last = lines[-1] if lines else ""
            ok = status == 2 and out == b"" and url in last and needle in last and no_secret(out, err)
            if not verbose:
                ok = ok and len(lines) == 1
            check(f"{what} {' '.join(verbose)}: exit 2, one line naming the URL, no secret", ok,
                  f"status {status}, stdout {out[:80]!r}, stderr {err[-400:]!r}")


if __name__ == "__main__":
    sys.exit(main())
