#!/usr/bin/env python3
"""A proxy in front of an S3-compatible server (s3rver) that verifies AWS Signature V4.

s3rver checks a request's shape but not its V4 signature, so this proxy does, computed
here with hmac and hashlib from AWS's "Create a signed AWS API request" (SigV4): the
canonical request (method, the path percent-decoded and encoded again as S3 does,
the sorted query, the signed headers' lower-cased names and trimmed values, the payload
hash), the string to sign, the signing key chained from "AWS4" + secret over date, region,
service and "aws4_request". verify_self() pins this code to AWS's published test vectors
(aws-c-auth tests/aws-signing-test-suite/v4/get-vanilla and get-vanilla-with-session-token).

A request is refused as S3 refuses it (403 with an XML <Error><Code>): an unknown access
key (InvalidAccessKeyId), a wrong signature (SignatureDoesNotMatch), an x-amz-* header or
Host left unsigned, a missing x-amz-content-sha256, a date 15 minutes off, a wrong session
token (InvalidToken). A request without Authorization passes unsigned (a public bucket).
Verified requests go on to the server without their credentials; the proxy counts the
body bytes it sends back and records each request (method, path, status, body bytes,
signed or not, the credential scope) for the test to read.

    proxy = SigV4Proxy(upstream_port, keys={"AKID": ("secret", None)})   # (secret, session token)
    proxy.port, proxy.log, proxy.body_bytes(); proxy.stop()
"""
import datetime
import hashlib
import hmac
import http.client
import http.server
import re
import threading
import urllib.parse

EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
AUTH_RE = re.compile(r"^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                     r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$")


def canonical_uri(raw_path):
    """S3's canonical URI: the key's bytes, each but A-Z a-z 0-9 - . _ ~ and / as %XX, once."""
    return urllib.parse.quote(urllib.parse.unquote_to_bytes(raw_path), safe="/~")


def canonical_query(raw_query):
    pairs = urllib.parse.parse_qsl(raw_query, keep_blank_values=True)
    enc = lambda s: urllib.parse.quote(s, safe="~")
    return "&".join(f"{enc(k)}={enc(v)}" for k, v in sorted(pairs))


def signature(secret, method, raw_path, raw_query, headers, signed, amz_date, scope, payload=None):
    """The hex SigV4 signature. headers: lower-case name -> value; signed: names in order."""
    canon_headers = "".join(f"{h}:{' '.join(headers[h].split())}\n" for h in signed)
    payload = payload or headers.get("x-amz-content-sha256", EMPTY_SHA256)
    creq = "\n".join([method, canonical_uri(raw_path), canonical_query(raw_query), canon_headers,
                      ";".join(signed), payload])
    sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, "/".join(scope) + "/aws4_request",
                     hashlib.sha256(creq.encode()).hexdigest()])
    key = ("AWS4" + secret).encode()
    for part in list(scope) + ["aws4_request"]:
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return hmac.new(key, sts.encode(), hashlib.sha256).hexdigest()


def presign(url_base, path, key, secret, region, amz_date, expires=3600):
    """A presigned GET URL (query-string SigV4, host signed, UNSIGNED-PAYLOAD), as boto3's
    generate_presigned_url makes it."""
    host = urllib.parse.urlsplit(url_base).netloc
    scope = (amz_date[:8], region, "s3")
    params = {"X-Amz-Algorithm": "AWS4-HMAC-SHA256", "X-Amz-Credential": f"{key}/{'/'.join(scope)}/aws4_request",
              "X-Amz-Date": amz_date, "X-Amz-Expires": str(expires), "X-Amz-SignedHeaders": "host"}
    query = urllib.parse.urlencode(params, quote_via=urllib.parse.quote)
    sig = signature(secret, "GET", path, query, {"host": host}, ["host"], amz_date, scope, "UNSIGNED-PAYLOAD")
    return f"{url_base}{path}?{query}&X-Amz-Signature={sig}"


def verify_self():
    """This module's signer against AWS's published vectors; True when both match."""
    secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
    scope = ("20150830", "us-east-1", "service")
    h = {"host": "example.amazonaws.com", "x-amz-date": "20150830T123600Z"}
    vanilla = signature(secret, "GET", "/", "", h, ["host", "x-amz-date"], "20150830T123600Z", scope)
    h["x-amz-security-token"] = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
    token = signature(secret, "GET", "/", "", h, ["host", "x-amz-date", "x-amz-security-token"], "20150830T123600Z",
                      scope)
    return (vanilla == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" and
            token == "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8")


def s3_error(code, message):
    xml = f"<Error><Code>{code}</Code><Message>{message}</Message></Error>"
    return ('<?xml version="1.0" encoding="UTF-8"?>' + xml).encode()


class SigV4Proxy:
    def __init__(self, upstream_port, keys):
        self.upstream_port = upstream_port
        self.keys = keys  # access key -> (secret, session token or None)
        self.log = []     # dicts: method, path, status, bytes, signed, scope
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                proxy.handle(self)

            def do_HEAD(self):
                proxy.handle(self)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def body_bytes(self):
        with self.lock:
            return sum(e["bytes"] for e in self.log)

    def check(self, req):
        """None when the request may pass, else (code, message); and the credential scope."""
        headers = {k.lower(): v for k, v in req.headers.items()}
        auth = headers.get("authorization")
        path, _, query = req.path.partition("?")
        if "X-Amz-Signature=" in query:
            return self.check_presigned(req.command, path, query, headers)
        if auth is None:
            return None, None
        m = AUTH_RE.match(auth)
        if not m:
            return ("AuthorizationHeaderMalformed", "malformed Authorization"), None
        key, date, region, service, signed, sig = m.groups()
        scope = (date, region, service)
        signed = signed.split(";")
        if key not in self.keys:
            return ("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records."), scope
        secret, token = self.keys[key]
        if signed != sorted(signed) or "host" not in signed:
            return ("AccessDenied", "SignedHeaders must be sorted and hold host"), scope
        unsigned = [h for h in headers if h.startswith("x-amz-") and h not in signed]
        if unsigned:
            return ("AccessDenied", f"There were headers present in the "
                    f"request which were not signed: {unsigned}"), scope
        if "x-amz-content-sha256" not in headers:
            return ("InvalidRequest", "Missing required header for this request: x-amz-content-sha256"), scope
        amz_date = headers.get("x-amz-date", "")
        try:
            when = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
        except ValueError:
            return ("AccessDenied", "bad x-amz-date"), scope
        if abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) > 900 or date != amz_date[:8]:
            return ("RequestTimeTooSkewed", "The difference between the request time "
                    "and the current time is too large."), scope
        if token is not None and headers.get("x-amz-security-token") != token:
            return ("InvalidToken", "The provided token is malformed or otherwise invalid."), scope
        path, _, query = req.path.partition("?")
        want = signature(secret, req.command, path, query, headers, signed, amz_date, scope)
        if not hmac.compare_digest(want, sig):
            return ("SignatureDoesNotMatch", "The request signature we calculated does "
                    "not match the signature you provided."), scope
        return None, scope

    def check_presigned(self, method, path, query, headers):
        q = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
        key, date, region, service, _ = q.get("X-Amz-Credential", "////").split("/", 4)
        scope = (date, region, service)
        if key not in self.keys:
            return ("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records."), scope
        rest = "&".join(p for p in query.split("&") if not p.startswith("X-Amz-Signature="))
        signed = q.get("X-Amz-SignedHeaders", "").split(";")
        want = signature(self.keys[key][0], method, path, rest, headers, signed, q.get("X-Amz-Date", ""), scope,
                         "UNSIGNED-PAYLOAD")
        if not hmac.compare_digest(want, q["X-Amz-Signature"]):
            return ("SignatureDoesNotMatch", "The request signature we calculated does not match."), scope
        return None, scope + ("presigned",)

    def record(self, entry):
        # Before the answer is written: once the client has it, the client may exit and the
        # test read the log, which must already hold this request.
        with self.lock:
            self.log.append(entry)

    def handle(self, req):
        refused, scope = self.check(req)
        entry = {"method": req.command, "path": req.path, "signed": "Authorization" in req.headers, "scope": scope}
        if refused:
            body = s3_error(*refused)
            self.record(dict(entry, status=403, bytes=0, refused=refused[0]))
            req.send_response(403)
            req.send_header("Content-Type", "application/xml")
            req.send_header("Content-Length", str(len(body)))
            req.end_headers()
            req.wfile.write(body)
            return
        drop = {"authorization", "x-amz-security-token", "x-amz-date", "x-amz-content-sha256", "host"}
        fwd = {k: v for k, v in req.headers.items() if k.lower() not in drop}
        conn = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=60)
        path, _, query = req.path.partition("?")  # a presigned URL's X-Amz-* parameters stay here too
        rest = "&".join(p for p in query.split("&") if p and not p.startswith("X-Amz-"))
        conn.request(req.command, path + ("?" + rest if rest else ""), headers=fwd)
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        self.record(dict(entry, status=resp.status, bytes=len(body) if req.command != "HEAD" else 0))
        req.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length", "date", "server"):
                req.send_header(k, v)
        req.send_header("Content-Length", str(len(body)))
        req.end_headers()
        if req.command != "HEAD":
            req.wfile.write(body)
