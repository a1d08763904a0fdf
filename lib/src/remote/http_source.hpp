// remote/http_source.hpp — HTTP range requests for one remote file, through libcurl.
//
// probe() learns the file's size, its validator (ETag, Last-Modified) and its first bytes
// from one GET with a Range header, made conditional when a cached copy exists; fetch()
// then reads byte ranges straight into memory, several at once (curl's multi interface),
// each answer checked (status 206, Content-Range, length, the same ETag as the probe's) and
// retried with back-off on transient failures (a timeout is not one). Errors are Error(Io) naming the URL as
// display_url() shows it, never the token.
//
//   HttpSource src("https://host/m.safetensors", "https://host/m.safetensors", auth, 20);  // RequestAuth
//   HttpSource::Probe p = src.probe(65536);           // p.size, p.head (the first bytes)
//   src.fetch({{4096, 8192, dest}});                  // bytes [4096, 12288) into dest
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "buffer/byte_source.hpp"
#include "remote/request_auth.hpp"

namespace tensor_inspect {

class HttpSource {
 public:
  /// `url` is requested, `name` shown in messages and logs, `auth` proves who asks (a
  /// bearer token, a SigV4 signature, or nothing); a transfer fails after `timeout_seconds`
  /// without connecting, or under 1 byte a second for as long (RemoteOptions::timeout_seconds),
  /// and is not retried.
  HttpSource(std::string url, std::string name, RequestAuth auth, long timeout_seconds);
  HttpSource(const HttpSource&) = delete;
  HttpSource& operator=(const HttpSource&) = delete;
  ~HttpSource();

  /// What the first request learnt.
  struct Probe {
    std::uint64_t size = 0;         ///< the file's length in bytes
    std::vector<std::byte>
        head;  ///< its first min(size, first_bytes) bytes (all of it if whole); empty when not_modified
    std::string etag;               ///< the response's ETag header, as sent (`"abc"`, `W/"abc"`), or empty
    std::string last_modified;      ///< its Last-Modified header, or empty
    bool not_modified = false;      ///< 304: the copy named by the condition is current
  };
  /// A cached copy the probe asks about (RFC 9110 §13.1): `header` is `If-None-Match: ETAG`
  /// or `If-Modified-Since: DATE`; a 304 answer means the file is still `size` bytes.
  struct Condition {
    std::string header;
    std::uint64_t size = 0;
  };
  /// GET bytes 0..first_bytes-1 (with `condition`'s header when it has one). A 206 gives the
  /// size from Content-Range; a 304 (only when conditional) the condition's size and no
  /// bytes; a 416 with `bytes */0` an empty file; a 200 (the server ignores Range) is
  /// accepted only for a file of at most Limits::remote_whole_bytes, read whole. Throws
  /// Error(Io) otherwise.
  Probe probe(std::uint64_t first_bytes, const Condition& condition);

  /// One range to read: bytes [offset, offset + length) of the file into dest, or, with a
  /// sink, handed to it as they arrive (restart() at each attempt) and not kept.
  struct Range {
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    std::byte* dest = nullptr;
    RangeSink* sink = nullptr;
  };
  /// Reads every range (at most 8 transfers at once), checking each answer against the
  /// size and the ETag (else Last-Modified) learnt by probe(). Throws Error(Io) naming the
  /// URL, the range and the status; a different ETag is "the file changed on the server
  /// while it was read", not retried: bytes of two versions are never mixed.
  void fetch(std::span<const Range> ranges);

  /// The URL as messages show it.
  const std::string& name() const { return name_; }
  /// Bytes received in bodies so far (for -vv).
  std::uint64_t bytes_received() const { return received_; }

  /// One transfer's state (http_source.cpp); public for libcurl's C callbacks.
  struct Transfer;

 private:
  void setup(Transfer& t);
  void run(std::vector<Transfer>& transfers);
  std::string url_;
  std::string name_;
  RequestAuth auth_;
  long timeout_;  ///< seconds, for CURLOPT_CONNECTTIMEOUT and CURLOPT_LOW_SPEED_TIME
  std::uint64_t size_ = 0;
  std::string etag_;           ///< the probe's validator, which every later answer must carry
  std::string last_modified_;  ///< ... when the server sends no ETag
  std::uint64_t received_ = 0;
  void* multi_ = nullptr;  ///< CURLM*: keeps connections alive between fetches
};

}  // namespace tensor_inspect
