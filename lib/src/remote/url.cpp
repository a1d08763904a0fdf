// remote/url.cpp — which inputs are URLs, hf:// resolution, and URLs safe to show.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "remote/object_store.hpp"
#include "tensor_inspect/context.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"

namespace tensor_inspect {
namespace {


bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         });
}

}  // namespace

void set_remote_options(const RemoteOptions& options) { default_context().remote = options; }
const RemoteOptions& remote_options() { return current_context().remote; }

bool is_url(std::string_view input) {
  return starts_with_nocase(input, "http://") || starts_with_nocase(input, "https://") ||
         starts_with_nocase(input, "hf://") || is_object_store_url(input);
}

std::string resolve_url(std::string_view input) {
  if (is_object_store_url(input)) return object_request(input, false).url;
  if (!starts_with_nocase(input, "hf://")) return std::string(input);
  // hf://ORG/REPO[@REV]/FILE, as huggingface_hub's HfFileSystem spells it.
  const std::string_view rest = input.substr(5);
  const std::size_t org_end = rest.find('/');
  const std::size_t repo_end = org_end == std::string_view::npos ? org_end : rest.find('/', org_end + 1);
  if (org_end == 0 || repo_end == std::string_view::npos || repo_end == org_end + 1 || repo_end + 1 >= rest.size())
    throw Error(ErrorCode::Usage, std::string(input) + ": an hf:// URL names ORG/REPO[@REV]/FILE");
  std::string_view repo = rest.substr(0, repo_end);
  std::string rev = "main";
  if (const std::size_t at = repo.find('@'); at != std::string_view::npos) {
    rev = std::string(repo.substr(at + 1));
    repo = repo.substr(0, at);
    if (rev.empty()) throw Error(ErrorCode::Usage, std::string(input) + ": empty revision after '@'");
  }
  const char* env = std::getenv("TI_HF_ENDPOINT");
  std::string endpoint = env && *env ? env : "https://huggingface.co";
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  return endpoint + "/" + std::string(repo) + "/resolve/" + rev + "/" + std::string(rest.substr(repo_end + 1));
}

std::string display_url(std::string_view url) {
  std::string out(url);
  if (const std::size_t q = out.find_first_of("?#"); q != std::string::npos) out = out.substr(0, q) + "?...";
  const std::size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const std::size_t host = scheme + 3;
    const std::size_t path = std::min(out.find('/', host), out.size());
    const std::size_t at = out.rfind('@', path);
    if (at != std::string::npos && at >= host) out = out.substr(0, host) + "..." + out.substr(at);
  }
  return out;
}

std::string input_name(std::string_view input) { return is_url(input) ? display_url(input) : std::string(input); }

std::string token_for(std::string_view input) {
  if (!remote_options().token.empty()) return remote_options().token;
  if (starts_with_nocase(input, "hf://"))
    if (const char* env = std::getenv("HF_TOKEN"); env && *env) return env;
  return {};
}

}  // namespace tensor_inspect
