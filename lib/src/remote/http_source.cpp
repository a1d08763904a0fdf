// remote/http_source.cpp — range requests through libcurl's multi interface, each answer
// checked, transient failures retried with back-off (see http_source.hpp).
#include "remote/http_source.hpp"

#include "log/log.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <deque>
#include <thread>

#include "remote/content_range.hpp"
#include "remote/curl_api.hpp"
#include "remote/object_store.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

constexpr int kAttempts = 4;            // one try and three retries
constexpr long kFirstBackoffMs = 100;   // then 400, 1600
constexpr std::size_t kParallel = 8;    // transfers at once
constexpr long kReceiveBuffer = 512L << 10;  // CURLOPT_BUFFERSIZE, bytes

bool transient_curl(CURLcode c) {
  switch (c) {
    case CURLE_COULDNT_CONNECT: case CURLE_RECV_ERROR: case CURLE_SEND_ERROR: case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING: case CURLE_HTTP2: case CURLE_HTTP2_STREAM:  // a timeout is not retried
      return true;
    default:
      return false;
  }
}

bool transient_status(long s) { return s >= 500 || s == 429 || s == 408; }

std::string range_text(std::uint64_t offset, std::uint64_t length) {
  return std::to_string(offset) + "-" + std::to_string(offset + length - 1);
}

}  // namespace

struct HttpSource::Transfer {
  Range range;
  bool probe = false;
  std::uint64_t cap = 0;            ///< probe: body bytes accepted when the server answers 200
  std::string condition;            ///< probe: an If-None-Match / If-Modified-Since header line, or empty
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  long status = 0;                  ///< of the last response (after redirects)
  std::string content_range;
  std::string etag, last_modified;  ///< of the last response
  std::uint64_t got = 0;
  std::vector<std::byte> body;      ///< probe only
  std::string error_body;           ///< the first 4 KiB of a 3xx-5xx answer's body (an S3 <Error>)
  bool refused = false;             ///< the write callback stopped the body
  int attempts = 0;
  std::chrono::steady_clock::time_point retry_at{};
  std::chrono::steady_clock::time_point last_byte{};  ///< when a header or body byte last arrived
  long stall_after = 0;             ///< seconds without a byte, once an answer started, that end it
  bool stalled = false;             ///< the progress callback ended it for that
  char error[CURL_ERROR_SIZE] = {};
};

namespace {

/// The value of header `line` if its name is `name` (case-insensitive, with the colon), trimmed.
bool header_value(std::string_view line, std::string_view name, std::string& out) {
  if (line.size() <= name.size() || strncasecmp(line.data(), name.data(), name.size()) != 0) return false;
  std::string_view v = line.substr(name.size());
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ' || v.back() == '\t'))
    v.remove_suffix(1);
  out = std::string(v);
  return true;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<HttpSource::Transfer*>(user);
  t.last_byte = std::chrono::steady_clock::now();
  const std::string_view line(data, size * n);
  if (line.substr(0, 5) == "HTTP/") {  // a new response (after a redirect, or 100 Continue)
    t.content_range.clear();
    t.error_body.clear();
    t.etag.clear();
    t.last_modified.clear();
    const std::size_t sp = line.find(' ');
    t.status = sp == std::string_view::npos ? 0 : std::atol(std::string(line.substr(sp + 1, 3)).c_str());
  } else if (!header_value(line, "content-range:", t.content_range) && !header_value(line, "etag:", t.etag)) {
    header_value(line, "last-modified:", t.last_modified);
  }
  return size * n;
}

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<HttpSource::Transfer*>(user);
  t.last_byte = std::chrono::steady_clock::now();
  const std::size_t bytes = size * n;
  if (t.status >= 300 && t.error_body.size() < 4096)
    t.error_body.append(data, std::min(bytes, 4096 - t.error_body.size()));
  if (t.probe) {
    if (t.status != 206 && t.status != 200) return bytes;  // an error page: dropped
    const std::uint64_t cap = t.status == 200 ? t.cap : t.range.length;
    if (t.body.size() + bytes > cap) return t.refused = true, 0;
    t.body.insert(t.body.end(), reinterpret_cast<const std::byte*>(data),
                  reinterpret_cast<const std::byte*>(data) + bytes);
  } else {
    // A whole file where a range was asked for is stopped at once; an error page is dropped.
    if (t.status != 206) return t.status == 200 ? 0 : bytes;
    if (t.got + bytes > t.range.length) return t.refused = true, 0;
    if (t.range.sink) t.range.sink->consume({reinterpret_cast<const std::byte*>(data), bytes});
    else std::memcpy(t.range.dest + t.got, data, bytes);
  }
  t.got += bytes;
  return bytes;
}

// NOTE: libcurl's own low-speed check (CURLOPT_LOW_SPEED_TIME) averages the speed over its
// last few seconds, so a stall right after a burst of data ran up to about 6 s past
// --timeout (measured: --timeout 1 took 7 s). libcurl calls this about once a second, also
// while nothing arrives: a transfer whose answer has started and then sent nothing for
// stall_after seconds ends here, on time. Before any answer, libcurl's check is exact.
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto& t = *static_cast<HttpSource::Transfer*>(user);
  if (t.status == 0 || std::chrono::steady_clock::now() - t.last_byte < std::chrono::seconds(t.stall_after)) return 0;
  t.stalled = true;
  return 1;
}

}  // namespace

HttpSource::HttpSource(std::string url, std::string name, RequestAuth auth, long timeout_seconds)
    : url_(std::move(url)), name_(std::move(name)), auth_(std::move(auth)), timeout_(timeout_seconds) {
  multi_ = curl_api().multi_init();
  if (!multi_) throw Error(ErrorCode::Io, name_ + ": cannot start libcurl");
}

HttpSource::~HttpSource() {
  if (multi_) curl_api().multi_cleanup(static_cast<CURLM*>(multi_));
}

void HttpSource::setup(Transfer& t) {
  const CurlApi& c = curl_api();
  if (!t.easy) {
    t.easy = c.easy_init();
    if (!t.easy) throw Error(ErrorCode::Io, name_ + ": cannot start a libcurl transfer");
    t.headers = append_auth_headers(c, nullptr, auth_);
    if (!t.condition.empty()) t.headers = c.slist_append(t.headers, t.condition.c_str());
  }
  t.status = 0;
  t.content_range.clear();
  t.got = 0;
  t.body.clear();
  t.error_body.clear();
  t.refused = false;
  t.stalled = false;
  t.stall_after = timeout_;
  t.last_byte = std::chrono::steady_clock::now();
  t.error[0] = '\0';
  if (t.range.sink) t.range.sink->restart();  // a retry's bytes start from the range's first again
  CURL* e = t.easy;
  c.easy_setopt(e, CURLOPT_URL, url_.c_str());
  c.easy_setopt(e, CURLOPT_RANGE, range_text(t.range.offset, t.range.length).c_str());
  c.easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
  c.easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
  c.easy_setopt(e, CURLOPT_MAXREDIRS, 10L);
  c.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  c.easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  c.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  c.easy_setopt(e, CURLOPT_CONNECTTIMEOUT, timeout_);
  c.easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);  // no answer: under 1 byte a second for timeout_ s (then on_progress)
  c.easy_setopt(e, CURLOPT_LOW_SPEED_TIME, timeout_);
  c.easy_setopt(e, CURLOPT_USERAGENT, "tensor-inspect/" TI_VERSION);
  c.easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  c.easy_setopt(e, CURLOPT_HEADERDATA, &t);
  c.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  c.easy_setopt(e, CURLOPT_WRITEDATA, &t);
  c.easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  c.easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
  c.easy_setopt(e, CURLOPT_XFERINFODATA, &t);
  c.easy_setopt(e, CURLOPT_ERRORBUFFER, t.error);
  set_auth_options(c, e, auth_);
  // Fewer, larger writes into the file's memory: curl's default is 16 KiB.
  c.easy_setopt(e, CURLOPT_BUFFERSIZE, kReceiveBuffer);
}

namespace {

/// What one finished attempt means.
struct Outcome {
  bool ok = false;
  bool retry = false;
  std::string why;
};

}  // namespace

void HttpSource::run(std::vector<Transfer>& transfers) {
  const CurlApi& c = curl_api();
  auto* multi = static_cast<CURLM*>(multi_);
  std::deque<Transfer*> waiting;
  for (Transfer& t : transfers) waiting.push_back(&t);
  std::vector<Transfer*> active;
  // Every handle leaves the multi handle and is freed on the way out, error or not.
  struct Cleanup {
    const CurlApi& c;
    CURLM* multi;
    std::vector<Transfer>& all;
    ~Cleanup() {
      for (Transfer& t : all) {
        if (t.easy) c.multi_remove_handle(multi, t.easy), c.easy_cleanup(t.easy);
        if (t.headers) c.slist_free_all(t.headers);
        t.easy = nullptr, t.headers = nullptr;
      }
    }
  } cleanup{c, multi, transfers};

  auto judge = [&](Transfer& t, CURLcode result) -> Outcome {
    const std::string what = "bytes " + range_text(t.range.offset, t.range.length);
    if (t.probe && t.status == 200 && (result == CURLE_OK || t.refused)) {
      if (t.refused)
        return {false, false,
                what +
                    ": the server ignores Range requests (status 200 with the whole file), and the file is over the " +
                    std::to_string(t.cap) + " bytes that are read whole" + limit_hint("remote_whole_bytes")};
      return {true, false, {}};
    }
    if (t.probe && t.status == 304 && !t.condition.empty() && result == CURLE_OK) return {true, false, {}};
    if (t.probe && t.status == 416) {
      ContentRange cr;
      if (parse_content_range(t.content_range, cr) && cr.unsatisfied && cr.size == 0) return {true, false, {}};
    }
    if (!t.probe && t.status == 200)
      return {false, false, what + ": the server ignores Range requests (status 200 with the whole file)"};
    if (result == CURLE_OPERATION_TIMEDOUT ||
        (result == CURLE_ABORTED_BY_CALLBACK && t.stalled)) {  // not retried: see RemoteOptions::timeout_seconds
      curl_off_t connected = 0;
      c.easy_getinfo(t.easy, CURLINFO_CONNECT_TIME_T, &connected);
      const std::string secs = std::to_string(timeout_) + " s";
      const std::string waited =
          connected == 0 ? "could not connect to the server within " + secs
          : t.status == 0
              ? "the server accepted the connection but sent no answer within " + secs
              : "the transfer stalled: no byte for " + secs + ", after " + std::to_string(t.got) + " bytes of the body";
      return {false, false, what + ": " + waited + " (--timeout SECONDS waits longer)"};
    }
    if (result != CURLE_OK && !(t.refused && t.status == 206)) {
      std::string text = t.error[0] ? t.error : c.easy_strerror(result);
      if (t.status != 0 && t.status != 206 && t.status != 200)
        text = "HTTP status " + std::to_string(t.status) + store_error_suffix(t.error_body);
      return {false, transient_curl(result) || transient_status(t.status), what + ": " + text};
    }
    if (t.status != 206)
      return {false, transient_status(t.status),
              what + ": HTTP status " + std::to_string(t.status) + store_error_suffix(t.error_body)};
    ContentRange cr;
    const bool parsed = parse_content_range(t.content_range, cr) && !cr.unsatisfied;
    const std::uint64_t want_last = t.range.offset + t.range.length - 1;
    bool fits = false;
    if (parsed && cr.first == t.range.offset && cr.size_known) {
      if (t.probe) fits = cr.last <= want_last && (cr.last == want_last || cr.last + 1 == cr.size);
      else fits = cr.last == want_last && cr.size == size_;
    }
    if (!fits)
      return {false, true, what + ": the server answered Content-Range '" + t.content_range + "'" +
                               (t.probe ? "" : " (file of " + std::to_string(size_) + " bytes)")};
    const std::uint64_t expect = cr.last - cr.first + 1;
    if (t.refused || t.got != expect)
      return {false, true, what + ": " + std::to_string(t.got) + (t.refused ? "+" : "") + " bytes of a body of " +
                               std::to_string(expect)};
    // A server that sent a validator with the probe sends it with every range of that
    // version (RFC 9110 §15.3.7); another one means the file was replaced mid-read.
    const bool changed = !t.probe && (!etag_.empty() ? !t.etag.empty() && t.etag != etag_
                                                     : !last_modified_.empty() && !t.last_modified.empty() &&
                                                           t.last_modified != last_modified_);
    if (changed)
      return {false, false,
              what + ": the file changed on the server while it was read (" +
                  (!etag_.empty() ? "ETag " + etag_ + ", now " + t.etag
                                  : "Last-Modified " + last_modified_ + ", now " + t.last_modified) +
                  ")"};
    return {true, false, {}};
  };

  while (!waiting.empty() || !active.empty()) {
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < waiting.size() && active.size() < kParallel;) {
      Transfer* t = waiting[i];
      if (t->retry_at > now) { ++i; continue; }
      waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(i));
      setup(*t);
      ++t->attempts;
      lib_log().debug("{}: GET bytes {}{}", name_, range_text(t->range.offset, t->range.length),
                    t->attempts > 1 ? " (attempt " + std::to_string(t->attempts) + ")" : "");
      c.multi_add_handle(multi, t->easy);
      active.push_back(t);
    }
    if (active.empty()) {  // only retries, waiting for their back-off
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    int running = 0;
    c.multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* msg = c.multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      auto it = std::find_if(active.begin(), active.end(), [&](Transfer* t) { return t->easy == msg->easy_handle; });
      if (it == active.end()) continue;
      Transfer& t = **it;
      const CURLcode result = msg->data.result;
      c.multi_remove_handle(multi, t.easy);
      active.erase(it);
      received_ += t.got;
      const Outcome o = judge(t, result);
      if (o.ok) continue;
      if (o.retry && t.attempts < kAttempts) {
        long delay = kFirstBackoffMs;
        for (int k = 1; k < t.attempts; ++k) delay *= 4;
        lib_log().info("{}: {}; retrying in {} ms", name_, o.why, delay);
        t.retry_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay);
        waiting.push_back(&t);
        continue;
      }
      throw Error(ErrorCode::Io, name_ + ": " + o.why +
                                     (t.attempts > 1 ? " (after " + std::to_string(t.attempts) + " attempts)" : ""));
    }
    if (running > 0) c.multi_poll(multi, nullptr, 0, 100, nullptr);
  }
}

HttpSource::Probe HttpSource::probe(std::uint64_t first_bytes, const Condition& condition) {
  std::vector<Transfer> one(1);
  one[0].probe = true;
  one[0].condition = condition.header;
  one[0].range = {0, first_bytes, nullptr};
  one[0].cap = limits().remote_whole_bytes;
  run(one);
  Transfer& t = one[0];
  Probe p;
  p.etag = t.etag;
  p.last_modified = t.last_modified;
  if (t.status == 304) {
    p.not_modified = true;
    p.size = condition.size;
    // A 304 should repeat the validator (RFC 9110 §15.4.5); when it does not, the condition's holds.
    if (p.etag.empty() && p.last_modified.empty()) {
      constexpr std::string_view kEtag = "If-None-Match: ", kDate = "If-Modified-Since: ";
      if (condition.header.rfind(kEtag, 0) == 0) p.etag = condition.header.substr(kEtag.size());
      else if (condition.header.rfind(kDate, 0) == 0) p.last_modified = condition.header.substr(kDate.size());
    }
  } else if (t.status == 416) {
    return p;  // an empty file
  } else if (t.status == 200) {
    p.size = t.body.size();
    lib_log().info("{}: the server ignores Range requests; read whole ({} bytes)", name_, p.size);
  } else {
    ContentRange cr;
    parse_content_range(t.content_range, cr);
    p.size = cr.size;
  }
  size_ = p.size;
  etag_ = p.etag;
  last_modified_ = p.last_modified;
  p.head = std::move(t.body);
  if (p.head.size() > p.size) p.head.resize(static_cast<std::size_t>(p.size));
  return p;
}

void HttpSource::fetch(std::span<const Range> ranges) {
  std::vector<Transfer> transfers(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) transfers[i].range = ranges[i];
  run(transfers);
}

}  // namespace tensor_inspect
