// remote/aws_credentials.cpp — ~/.aws/credentials and ~/.aws/config (see aws_credentials.hpp).
#include "remote/aws_credentials.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {
namespace {

std::string_view aws_ini_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string aws_ini_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

/// The file's text, or nullopt when it does not exist.
std::optional<std::string> aws_read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw Error(ErrorCode::Io, path + ": cannot read: " + std::strerror(errno));
  }
  const std::uint64_t cap = limits().aws_config_bytes;
  std::string text;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > cap)
      throw limit_error("aws_config_bytes",
                        path + ": over the " + std::to_string(cap) +
                            " bytes read from an AWS credentials or config file" + limit_hint("aws_config_bytes"),
                        path);
  }
  return text;
}

/// `name` from the environment, a leading `~/` made $HOME; `fallback` (under $HOME) when unset.
std::string aws_file_path(const char* variable, const char* fallback) {
  const char* home = std::getenv("HOME");
  const std::string home_dir = home ? home : "";
  const char* set = std::getenv(variable);
  std::string path = set && *set ? set : std::string("~/") + fallback;
  if (path.rfind("~/", 0) == 0) path = home_dir + path.substr(1);
  return path;
}

}  // namespace

IniFile parse_aws_ini(std::string_view text, const std::string& file) {
  IniFile out;
  IniSection* section = nullptr;
  std::string last_key;  // the key continuation lines extend
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    const std::string_view line = aws_ini_trim(raw);
    const auto fail = [&](const std::string& why) {
      return Error(ErrorCode::Usage, file + ":" + std::to_string(line_no) + ": " + why);
    };
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    const bool indented = raw.front() == ' ' || raw.front() == '\t';
    if (indented && section && !last_key.empty()) {  // a continuation: a nested `key = value`
      const std::size_t eq = line.find('=');
      if (eq == std::string_view::npos) throw fail("expected 'key = value' in the block of '" + last_key + "'");
      (*section)[last_key + "." + aws_ini_lower(aws_ini_trim(line.substr(0, eq)))] =
          std::string(aws_ini_trim(line.substr(eq + 1)));
      continue;
    }
    if (line.front() == '[') {
      if (line.back() != ']') throw fail("a section header '[NAME]' lacks its ']'");
      section = &out[std::string(aws_ini_trim(line.substr(1, line.size() - 2)))];
      last_key.clear();
      continue;
    }
    const std::size_t eq = line.find_first_of("=:");
    if (eq == std::string_view::npos) throw fail("expected '[NAME]' or 'key = value'");
    if (!section) throw fail("a setting before any '[NAME]' section");
    const std::string key = aws_ini_lower(aws_ini_trim(line.substr(0, eq)));
    if (key.empty()) throw fail("a setting without a name");
    const std::string_view value = aws_ini_trim(line.substr(eq + 1));
    (*section)[key] = std::string(value);
    last_key = value.empty() ? key : std::string();  // only an empty value opens a block
  }
  return out;
}

AwsProfile aws_profile_from(const IniFile& credentials, const IniFile& config, const std::string& name) {
  AwsProfile p;
  const IniSection* cred = nullptr;
  const IniSection* conf = nullptr;
  if (auto it = credentials.find(name); it != credentials.end()) cred = &it->second;
  // The config file names a profile `[profile NAME]`; `[default]` may go without it.
  if (auto it = config.find("profile " + name); it != config.end())
    conf = &it->second;
  else if (auto d = config.find(name); name == "default" && d != config.end())
    conf = &d->second;
  p.found = cred || conf;
  const auto get = [&](const std::string& key, bool from_credentials) -> std::string {
    if (from_credentials && cred)
      if (auto it = cred->find(key); it != cred->end()) return it->second;
    if (conf)
      if (auto it = conf->find(key); it != conf->end()) return it->second;
    return {};
  };
  p.access_key = get("aws_access_key_id", true);
  p.secret_key = get("aws_secret_access_key", true);
  p.session_token = get("aws_session_token", true);
  p.region = get("region", false);
  p.endpoint_url = get("s3.endpoint_url", false);
  if (p.endpoint_url.empty()) p.endpoint_url = get("endpoint_url", false);
  p.addressing_style = get("s3.addressing_style", false);
  for (const char* key : {"credential_process", "sso_session", "sso_start_url", "role_arn", "web_identity_token_file"})
    if (!get(key, true).empty() && p.other_source.empty()) p.other_source = key;
  return p;
}

AwsProfile load_aws_profile(const std::string& name) {
  IniFile credentials, config;
  const std::string cred_path = aws_file_path("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
  const std::string conf_path = aws_file_path("AWS_CONFIG_FILE", ".aws/config");
  if (auto text = aws_read_file(cred_path)) credentials = parse_aws_ini(*text, cred_path);
  if (auto text = aws_read_file(conf_path)) config = parse_aws_ini(*text, conf_path);
  return aws_profile_from(credentials, config, name);
}

}  // namespace tensor_inspect
