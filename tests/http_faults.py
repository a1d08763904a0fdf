#!/usr/bin/env python3
"""A fault-injecting HTTP server for tests/remote_http.py (Python's http.server).

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FaultHandler)   # FaultHandler.www = folder

Serves GET /MODE/FILE from FaultHandler.www with range requests, breaking them as MODE says.
"""
import http.server
import os
import socket
import threading


class FaultHandler(http.server.BaseHTTPRequestHandler):
    """GET /MODE/FILE of www: drop_once (first attempt of each range is cut off mid-body),
    drop (every attempt), truncate (Content-Length promised, body short), badrange (a wrong
    Content-Range), 404, 416 (every range refused), data200 (ranges after the first block
    answered 200 with the whole file), data404 (the first block is served, any
    other range is 404: a tensor's values fail after its header was read), dropdata (the same,
    with every other range cut off mid-body). Validators, for --cache: plain (no ETag nor
    Last-Modified), etagchange (ETag "v1" for the range from byte 0, "v2" for the others: the
    file replaced mid-read), weaketag (W/"w"), lastmod (Last-Modified only, and 304 for an
    If-Modified-Since equal to it)."""
    www = ""
    LAST_MODIFIED = "Tue, 01 Dec 2026 10:00:00 GMT"
    seen = set()
    lock = threading.Lock()
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        parts = self.path.split("/", 2)
        mode, name = parts[1], parts[2] if len(parts) > 2 else ""
        path = os.path.join(self.www, name)
        if mode == "404" or not os.path.isfile(path):
            return self.reply(404, b"not here")
        size = os.path.getsize(path)
        rng = self.headers.get("Range", "")
        if mode == "416" or (mode == "data404" and not rng.startswith("bytes=0-")):
            self.send_response(416 if mode == "416" else 404)
            if mode == "416":
                self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "lastmod" and self.headers.get("If-Modified-Since") == self.LAST_MODIFIED:
            self.send_response(304)
            self.send_header("Last-Modified", self.LAST_MODIFIED)
            self.end_headers()
            return
        first, last = rng.removeprefix("bytes=").split("-")
        first, last = int(first), min(int(last), size - 1)
        if mode == "data200" and first > 0:  # the whole file, streamed, until the client stops
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            try:
                with open(path, "rb") as f:
                    while chunk := f.read(1 << 20):
                        self.wfile.write(chunk)
            except OSError:
                self.close_connection = True
            return
        with open(path, "rb") as f:
            f.seek(first)
            body = f.read(last + 1 - first)
        data = range(size)  # only its length is used below
        key = (name, first, last)
        with self.lock:
            first_time = key not in self.seen
            self.seen.add(key)
        self.send_response(206)
        crange = f"bytes {first}-{last}/{len(data)}"
        if mode == "badrange":
            crange = f"bytes {first + 1}-{last + 1}/{len(data)}"
        self.send_header("Content-Range", crange)
        if mode == "etagchange":
            self.send_header("ETag", '"v1"' if first == 0 else '"v2"')
        elif mode == "weaketag":
            self.send_header("ETag", 'W/"w"')
        elif mode == "lastmod":
            self.send_header("Last-Modified", self.LAST_MODIFIED)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if mode == "truncate" or mode == "drop" or (mode == "drop_once" and first_time) or (mode == "dropdata" and
                                                                                            first > 0):
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(body)

    def reply(self, status, body):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
