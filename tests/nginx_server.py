#!/usr/bin/env python3
"""nginx (Debian's nginx-light) for the remote-input tests, in the foreground on 127.0.0.1.

    nginx = Nginx(tmp, www)        # config, logs and temp folders in tmp; www served
    nginx.url("files", "x.npy")    # http://127.0.0.1:PORT/files/x.npy
    m = nginx.mark(); ...; nginx.bytes_since(m), nginx.lines_since(m)
    nginx.stop()

    with servers("ti-remote-") as (tmp, www, nginx, fault_url):   # both servers, cleaned up after
        fault_url("drop", "x.npy")     # the fault-injecting server of http_faults.py

Locations: /files/ (ranges), /redirect/ (302 to /files/), /norange/ (max_ranges 0: ranges
ignored) and /hf/ORG/REPO/resolve/REV/ (302 to /files/, for hf:// through TI_HF_ENDPOINT).
Each access-log line is `URI STATUS BODY_BYTES BYTES "RANGE" "AUTHORIZATION" "IF-NONE-MATCH"`.
"""
import contextlib
import http.server
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from http_faults import FaultHandler


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


NGINX_CONF = """
daemon off;
master_process off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log;
events {{ worker_connections 256; }}
http {{
  log_format ranges '$uri $status $body_bytes_sent $bytes_sent "$http_range" "$http_authorization"'
                    ' "$http_if_none_match"';
  access_log {tmp}/access.log ranges;
  client_body_temp_path {tmp}/body;
  proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/fastcgi;
  uwsgi_temp_path {tmp}/uwsgi;
  scgi_temp_path {tmp}/scgi;
  default_type application/octet-stream;
  server {{
    listen 127.0.0.1:{port};
    location /files/ {{ alias {www}/; }}
    location /norange/ {{ alias {www}/; max_ranges 0; }}
    location /redirect/ {{ rewrite ^/redirect/(.*)$ /files/$1 redirect; }}
    location /hf/ {{ rewrite ^/hf/[^/]+/[^/]+/resolve/[^/]+/(.*)$ /files/$1 redirect; return 404; }}
  }}
}}
"""


class Nginx:
    def __init__(self, tmp, www):
        self.tmp, self.port = tmp, free_port()
        conf = os.path.join(tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(NGINX_CONF.format(tmp=tmp, www=www, port=self.port))
        self.log = os.path.join(tmp, "access.log")
        self.proc = subprocess.Popen(["/usr/sbin/nginx", "-c", conf, "-p", tmp, "-e", os.path.join(tmp, "error.log")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nginx did not start: " + open(os.path.join(tmp, "error.log")).read())

    def url(self, loc, name):
        return f"http://127.0.0.1:{self.port}/{loc}/{name}"

    def mark(self):
        """The access log's length once it has settled: nginx writes a request's line when the
        response ends, which can be just after the client, holding every byte, has exited; a
        previous run's late line must not land in the next run's window."""
        size = -1
        for _ in range(40):
            now = os.path.getsize(self.log) if os.path.exists(self.log) else 0
            if now == size:
                return now
            size = now
            time.sleep(0.05)
        return size

    def lines_since(self, mark):
        time.sleep(0.05)  # nginx writes its log line as the response ends
        with open(self.log, "rb") as f:
            f.seek(mark)
            return f.read().decode(errors="replace").splitlines()

    def bytes_since(self, mark):
        return sum(int(line.split()[3]) for line in self.lines_since(mark))

    def stop(self):
        self.proc.send_signal(signal.SIGQUIT)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def servers(prefix):
    """A temporary folder TMP with TMP/www served by nginx and by the fault-injecting server
    (http_faults.FaultHandler); yields (TMP, WWW, nginx, fault_url) where fault_url(MODE, NAME)
    is the fault server's URL of NAME under MODE. Both servers stop and TMP goes on the way
    out, also on failure."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    www = os.path.join(tmp, "www")
    os.mkdir(www)
    nginx = fault = None
    try:
        nginx = Nginx(tmp, www)
        FaultHandler.www = www
        fault = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FaultHandler)
        threading.Thread(target=fault.serve_forever, daemon=True).start()
        port = fault.server_address[1]
        yield tmp, www, nginx, lambda mode, name: f"http://127.0.0.1:{port}/{mode}/{name}"
    finally:
        if nginx:
            nginx.stop()
        if fault:
            fault.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
