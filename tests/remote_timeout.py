#!/usr/bin/env python3
"""tests/remote_timeout.py BIN — a server that never answers fails the run in --timeout
seconds, once, with one line naming the URL and what timed out (a user waited 122 s: a
30 s low-speed limit, retried three times).

Local sockets stand in for the servers: one accepts and sends nothing, one sends a 206
response's headers and a few body bytes and then nothing. Each counts the connections it
accepted: one connection means the timeout was not retried. One bound on time is checked,
because it is the option's contract, with seconds to spare: a stall after a few body bytes
ends within --timeout + 3.5 s (libcurl's own low-speed check averaged the speed over its
last seconds and ended it about 6 s late). Otherwise the subprocess timeout only guards
against a hang.
"""
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

BIN = os.path.abspath(sys.argv[1])


class SilentServer:
    """Accepts connections on 127.0.0.1 and keeps them open; `reply` (bytes) is sent on
    each after the request arrives, then nothing more."""

    def __init__(self, reply=b""):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.reply = reply
        self.accepted = 0
        self.conns = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.conns.append(c)
            if self.reply:
                threading.Thread(target=self.answer, args=(c,), daemon=True).start()

    def answer(self, c):
        data = b""
        while b"\r\n\r\n" not in data:
            got = c.recv(4096)
            if not got:
                return
            data += got
        c.sendall(self.reply)

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


def run(args, env=None):
    e = dict(os.environ)
    e.pop("TI_TIMEOUT", None)
    e.update(env or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=e, timeout=60)


def one_line(p):
    lines = p.stderr.strip().splitlines()
    return len(lines) == 1, lines[0] if lines else ""


silent = SilentServer()
url = f"http://127.0.0.1:{silent.port}/model.safetensors"
p = run([url, "--list", "--timeout", "1"])
single, line = one_line(p)
tally.check("a server that accepts and never "
            "answers: exit 2, stdout empty", p.returncode == 2 and not p.stdout, f"{p.returncode} {p.stdout!r}")
tally.check(
    "... one line naming the URL and what timed out", single and
    line == f"tensor-inspect: {url}: bytes 0-65535: the server "
    f"accepted the connection but sent no answer "
    "within 1 s (--timeout SECONDS waits longer)", p.stderr)
tally.check("... not retried: one connection", silent.accepted == 1, f"{silent.accepted} connections")

before = silent.accepted
p = run(["validate", url], env={"TI_TIMEOUT": "1"})
tally.check("TI_TIMEOUT sets it, for validate too", p.returncode == 2 and not p.stdout and
            "no answer within 1 s" in p.stderr and silent.accepted == before + 1, f"{p.returncode} {p.stderr.strip()} "
            f"{silent.accepted - before} connections")
silent.close()

# Headers of a 206 for the first block and 10 bytes of its body, then silence.
head = (b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-65535/1000000\r\nContent-Length: 65536\r\n"
        b"Content-Type: application/octet-stream\r\n\r\n" + b"\x93NUMPY\x01\x00\x76\x00")
stall = SilentServer(head)
url = f"http://127.0.0.1:{stall.port}/x.npy"
start = time.monotonic()
p = run([url, "--timeout", "2"])
took = time.monotonic() - start
single, line = one_line(p)
tally.check("a transfer that stalls mid-body: exit 2, one line saying so with the bytes it got",
            p.returncode == 2 and not p.stdout and single and
            line == f"tensor-inspect: {url}: bytes 0-65535: the transfer stalled: no byte for 2 s, "
                    "after 10 bytes of the body (--timeout SECONDS waits longer)", p.stderr)
tally.check("... within --timeout + 3.5 s, not libcurl's averaged 6 s late", took < 5.5, f"{took:.1f} s")
tally.check("... not retried: one connection", stall.accepted == 1, f"{stall.accepted} connections")
stall.close()

p = run(["--timeout", "0", url])
tally.check("--timeout 0 is a usage error", p.returncode == 2 and not p.stdout and "--timeout" in p.stderr, p.stderr)
p = run(["--help"])
tally.check("--help shows --timeout and its default", "--timeout SECONDS=20 (Env:TI_TIMEOUT)" in p.stdout, "")

sys.exit(tally.summary())
