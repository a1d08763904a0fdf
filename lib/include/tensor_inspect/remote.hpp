// tensor_inspect/remote.hpp — inputs over HTTP(S): `http://`, `https://` and `hf://` URLs.
//
// MappedFile::open(url) gives a file whose bytes() span the remote file; nothing is read
// until a reader asks (MappedFile::fetch, fetch_bytes), and then only the 64 KiB blocks it
// touches arrive, through HTTP range requests (remote_file.cpp). This header holds what the
// CLI sets up before opening files:
//
//   ti::RemoteOptions r;
//   r.token = read_token_file("token.txt");       // sent as "Authorization: Bearer ..."
//   ti::set_remote_options(r);
//   auto f = ti::MappedFile::open("hf://org/model/model.safetensors");
#pragma once

#include <string>
#include <string_view>

namespace tensor_inspect {

/// Credentials and switches for remote inputs. The token is sent only in the
/// Authorization header; it never appears in a file name, an error, a log line or output.
struct RemoteOptions {
  /// Bearer token for every URL (`--token-file`); empty: none, or HF_TOKEN for hf:// URLs.
  std::string token;
};

/// The options in force (none until set). Not thread-safe: call before opening files.
void set_remote_options(const RemoteOptions& options);
const RemoteOptions& remote_options();

/// True for an input that names a remote file: it starts with `http://`, `https://` or
/// `hf://` (scheme matched case-insensitively).
bool is_url(std::string_view input);

/// The URL to request for `input`: `hf://ORG/REPO[@REV]/FILE` becomes
/// `ENDPOINT/ORG/REPO/resolve/REV/FILE` (REV defaults to `main`; ENDPOINT is
/// `https://huggingface.co` or the environment's TI_HF_ENDPOINT); http(s) URLs are
/// returned as given. Throws Error(Usage) naming the input for an hf:// URL without a file.
std::string resolve_url(std::string_view input);

/// `url` as it may be shown: user information (`user:password@`) and the query string
/// (signed URLs carry credentials there) are replaced by `...`.
std::string display_url(std::string_view url);

/// The bearer token to send for `input`: RemoteOptions::token, else for hf:// inputs the
/// environment's HF_TOKEN, else empty.
std::string token_for(std::string_view input);

}  // namespace tensor_inspect
