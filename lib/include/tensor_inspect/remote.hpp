// tensor_inspect/remote.hpp — inputs over HTTP(S): `http://`, `https://` and `hf://` URLs,
// and objects of S3 and Cloud Storage (`s3://`, `gs://`: docs/remote.md).
//
// MappedFile::open(url) gives a file whose bytes() span the remote file; nothing is read
// until a reader asks (MappedFile::fetch, fetch_bytes), and then only the 64 KiB blocks it
// touches arrive, through HTTP range requests (remote_file.cpp). This header holds what the
// CLI sets up before opening files:
//
//   ti::RemoteOptions r;
//   r.token = read_token_file("token.txt");       // sent as "Authorization: Bearer ..."
//   r.cache_dir = "/var/cache/ti";                 // keep fetched blocks for the next run
//   ti::set_remote_options(r);
//   auto f = ti::MappedFile::open("hf://org/model/model.safetensors");
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tensor_inspect {

/// Credentials and switches for remote inputs. The token is sent only in the
/// Authorization header; it never appears in a file name, an error, a log line or output.
struct RemoteOptions {
  /// Bearer token for every URL (`--token-file`); empty: none, or HF_TOKEN for hf:// URLs.
  std::string token;
  /// Folder of the block cache (`--cache DIR`, TI_CACHE_DIR): fetched 64 KiB blocks are kept
  /// there, keyed by the URL and the server's validator (strong ETag, else Last-Modified), and
  /// a later run asks the server with a conditional request (304: nothing travels) before it
  /// reads them. Empty: no cache, nothing written anywhere. A folder that cannot be written
  /// never fails a run: it goes on uncached (said at -v). remote/block_cache.hpp has the layout.
  std::string cache_dir;
  /// Bytes the cache folder may occupy on disk, as du counts them (allocated blocks), in
  /// bytes (`--cache-size`, TI_CACHE_SIZE; default 10 GiB). Least recently used files are
  /// evicted whole to make room; a file that alone would pass it is cached in part.
  std::uint64_t cache_size = std::uint64_t{10} << 30;
  /// Seconds a transfer may wait on the server (`--timeout`, TI_TIMEOUT; default 20): to
  /// connect, for the answer (curl's low-speed check), and then for each next byte (our own
  /// check, about once a second: curl's averages the speed and ran 6 s late). A transfer that waits longer fails the
  /// run, naming the URL and what it waited for, and is not retried: a server silent this long is down, and three
  /// retries made a silent server cost 122 s. Answers that are faults (5xx, 429, a cut connection) are still retried
  /// three times, with 0.1, 0.4 and 1.6 s of back-off.
  long timeout_seconds = 20;
  /// Why a setting taken from the environment is unusable (a malformed TI_CACHE_SIZE or
  /// TI_TIMEOUT), kept for the run that uses it: opening a URL throws Error(Usage) with
  /// `timeout_error`, and, when cache_dir is set, with `cache_size_error`, before any
  /// request. A run that opens no URL never fails on them. Empty: nothing wrong.
  std::string cache_size_error, timeout_error;
  /// `--no-sign-request`: s3:// and gs:// requests go unsigned (public buckets), as the AWS
  /// CLI's option of that name; no credentials are looked for.
  bool no_sign_request = false;
};

/// Checks a --cache-size value: N bytes, or N with a K, M or G suffix (KiB, MiB, GiB, any
/// case), at least 1 MiB (below it no cache entry fits). On success replaces `text` by the
/// byte count in decimal ("500M" -> "524288000") and returns ""; else returns what is wrong
/// ("at least 1M, not '4K'"), leaving `text` as it was.
std::string parse_cache_size(std::string& text);

/// Checks a --timeout value: whole seconds from 1 to 86400. Returns "" when it is one, else
/// what is wrong ("expected whole seconds from 1 to 86400, not '0'").
std::string check_timeout_seconds(const std::string& text);

/// `options` with the environment standing in for the settings the command line did not give
/// (`*_given` false): TI_CACHE_DIR, TI_CACHE_SIZE (as parse_cache_size reads it) and
/// TI_TIMEOUT (as check_timeout_seconds); unset or empty variables change nothing. A malformed
/// one sets cache_size_error or timeout_error instead, for the run that uses it.
RemoteOptions with_remote_environment(RemoteOptions options, bool cache_dir_given, bool cache_size_given,
                                      bool timeout_given);

/// The bearer token of a --token-file: its first line without surrounding blanks. Throws
/// Error(Io) naming the file (never its content) when it cannot be read or that line is empty.
std::string read_token_file(const std::string& path);

/// Sets the options of the process default Context (none until set). Not thread-safe: call
/// before opening files; a thread that needs options of its own installs a Context
/// (context.hpp) instead.
void set_remote_options(const RemoteOptions& options);
/// The options in force on this thread: its ContextScope's, else the process default's.
const RemoteOptions& remote_options();

/// Logs, for every remote file still open, the bytes it read from the cache and over the
/// network (`-v` with a cache, `-vv` otherwise), as closing the file would. For a process
/// that ends without running destructors (std::_Exit); each file logs once either way.
void log_remote_transfers();

/// True for an input that names a remote file: it starts with `http://`, `https://`,
/// `hf://`, `s3://` or `gs://` (scheme matched case-insensitively).
bool is_url(std::string_view input);

/// The URL to request for `input`: `hf://ORG/REPO[@REV]/FILE` becomes
/// `ENDPOINT/ORG/REPO/resolve/REV/FILE` (REV defaults to `main`; ENDPOINT is
/// `https://huggingface.co` or the environment's TI_HF_ENDPOINT); `s3://BUCKET/KEY` and
/// `gs://BUCKET/KEY` become their store's HTTPS URL (remote/object_store.hpp: endpoint and
/// region from the environment and ~/.aws/config); http(s) URLs are returned as given.
/// Throws Error(Usage) naming the input for an hf://, s3:// or gs:// URL without a file.
std::string resolve_url(std::string_view input);

/// `url` as it may be shown: user information (`user:password@`) and the query string
/// (signed URLs carry credentials there) are replaced by `...`.
std::string display_url(std::string_view url);

/// An input as outputs and messages name it: display_url() of a URL (is_url), any other
/// input (a path, `-`, a literal) as given. Every place that shows the input uses it, so a
/// password or a signed query string never reaches stdout, stderr or a JSON "file" key.
std::string input_name(std::string_view input);

/// The bearer token to send for `input`: RemoteOptions::token, else for hf:// inputs the
/// environment's HF_TOKEN, else empty. (s3:// and gs:// inputs take their credentials from
/// remote/object_store.hpp instead.)
std::string token_for(std::string_view input);

}  // namespace tensor_inspect
