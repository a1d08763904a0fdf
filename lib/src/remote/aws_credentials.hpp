// remote/aws_credentials.hpp — the AWS shared files as the AWS CLI reads them: the
// credentials file (~/.aws/credentials, AWS_SHARED_CREDENTIALS_FILE; sections `[NAME]`)
// and the config file (~/.aws/config, AWS_CONFIG_FILE; sections `[default]` and
// `[profile NAME]`), INI text with one level of indented sub-settings (`s3 =` then
// `  addressing_style = path`), as botocore/configloader.py parses them (raw_config_parse,
// build_profile_map). Each file is read up to Limits::aws_config_bytes.
//
//   AwsProfile p = load_aws_profile("ml");           // AWS_PROFILE's profile
//   if (p.found && !p.secret_key.empty()) ...        // keys, region, endpoint_url
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace tensor_inspect {

/// One INI section: lower-cased keys to values; a nested block `s3 =` + indented lines
/// gives keys `s3.KEY`.
using IniSection = std::map<std::string, std::string>;
/// Section names as written between the brackets (trimmed) to their settings.
using IniFile = std::map<std::string, IniSection>;

/// Parses INI text as Python's configparser.RawConfigParser does for these files: `[NAME]`
/// headers, `key = value` or `key: value` lines (keys lower-cased, both sides trimmed, no
/// inline comments), whole-line comments (`#`, `;`), blank lines, indented continuation
/// lines (which make a nested block when the key's own value is empty). Throws Error(Usage)
/// naming `file` and the line for a line that is none of these or a setting before any
/// section.
IniFile parse_aws_ini(std::string_view text, const std::string& file);

/// What one profile says, the credentials file's section taking precedence over the
/// config file's key by key (as botocore's SharedCredentialProvider comes before its
/// ConfigProvider).
struct AwsProfile {
  bool found = false;            ///< either file has the profile
  std::string access_key;        ///< aws_access_key_id
  std::string secret_key;        ///< aws_secret_access_key
  std::string session_token;     ///< aws_session_token
  std::string region;            ///< region (config file)
  std::string endpoint_url;      ///< s3.endpoint_url, else endpoint_url (config file)
  std::string addressing_style;  ///< s3.addressing_style: "path", "virtual", "auto" or empty
  /// The profile gets its keys some other way this tool does not follow (credential_process,
  /// sso_*, role_arn, web_identity_token_file): named in the error when no keys are found.
  std::string other_source;
};

/// The profile `name` from the credentials and config files the environment names
/// (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE; default ~/.aws/credentials and
/// ~/.aws/config, `~` being $HOME). A missing file is no error. Throws Error(Usage) naming
/// the file for a malformed one, Error(Io) for one that cannot be read or is over
/// Limits::aws_config_bytes.
AwsProfile load_aws_profile(const std::string& name);

/// The profile's settings from already parsed files (load_aws_profile without the reading).
AwsProfile aws_profile_from(const IniFile& credentials, const IniFile& config, const std::string& name);

}  // namespace tensor_inspect
