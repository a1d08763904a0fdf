// Tests for remote/aws_credentials.cpp: the AWS shared files read as botocore's
// configloader.py reads them (sections, nested blocks, comments, profile precedence).
#include <doctest/doctest.h>

#include "remote/aws_credentials.hpp"
#include "tensor_inspect/error.hpp"

namespace ti = tensor_inspect;

TEST_CASE("parse_aws_ini: sections, '=' and ':' settings, comments, one level of nested block") {
  const ti::IniFile f = ti::parse_aws_ini(
      "# comment\n[default]\nAWS_Access_Key_ID = AK \n; more\n"
      "[profile ml]\nregion: eu-west-1\ns3 =\n  addressing_style = path\n"
      "  endpoint_url = http://x:9000\nother = 1\r\n",
      "config");
  CHECK(f.at("default").at("aws_access_key_id") == "AK");
  CHECK(f.at("profile ml").at("region") == "eu-west-1");
  CHECK(f.at("profile ml").at("s3.addressing_style") == "path");
  CHECK(f.at("profile ml").at("s3.endpoint_url") == "http://x:9000");
  CHECK(f.at("profile ml").at("other") == "1");
  CHECK_THROWS_WITH_AS(ti::parse_aws_ini("[a]\njunk\n", "cfg"), "cfg:2: expected '[NAME]' or 'key = value'", ti::Error);
  CHECK_THROWS_WITH_AS(ti::parse_aws_ini("k = v\n", "cfg"), "cfg:1: a setting before any '[NAME]' section", ti::Error);
  CHECK_THROWS_WITH_AS(ti::parse_aws_ini("[a\n", "cfg"), "cfg:1: a section header '[NAME]' lacks its ']'", ti::Error);
}

TEST_CASE("aws_profile_from: the credentials file's keys first, region and endpoint from the config file") {
  const ti::IniFile cred = ti::parse_aws_ini("[ml]\naws_access_key_id = C1\naws_secret_access_key = CS\n", "c");
  const ti::IniFile conf = ti::parse_aws_ini(
      "[profile ml]\naws_access_key_id = X\nregion = ap-south-1\n"
      "endpoint_url = https://e\n[default]\nregion = us-west-1\n"
      "[profile sso]\nsso_session = corp\n",
      "f");
  const ti::AwsProfile p = ti::aws_profile_from(cred, conf, "ml");
  CHECK(p.found);
  CHECK(p.access_key == "C1");
  CHECK(p.secret_key == "CS");
  CHECK(p.region == "ap-south-1");
  CHECK(p.endpoint_url == "https://e");
  CHECK(ti::aws_profile_from(cred, conf, "default").region == "us-west-1");
  CHECK_FALSE(ti::aws_profile_from(cred, conf, "none").found);
  CHECK(ti::aws_profile_from(cred, conf, "sso").other_source == "sso_session");
}
