// The one rule for a shard name an index gives (loaders/index_shard.cpp): loading refuses
// what validate reports, and neither faults a name with ".." inside a component. Expected
// verdicts are what the file system would do with each name joined to the index's folder.
#include <doctest/doctest.h>

#include <string>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/validate.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

TEST_CASE("index_shard_name_fault: the names that could leave the index's folder, and only those") {
  CHECK(ti::index_shard_name_fault("model-00001-of-00002.safetensors").empty());
  CHECK(ti::index_shard_name_fault("sub/model.safetensors").empty());
  CHECK(ti::index_shard_name_fault("model..v2.safetensors").empty());  // ".." inside a name stays in the folder
  CHECK(ti::index_shard_name_fault("").find("empty") != std::string::npos);
  CHECK(ti::index_shard_name_fault("/etc/passwd") == "is an absolute path");
  CHECK(ti::index_shard_name_fault("..") == "leaves the index's directory");
  CHECK(ti::index_shard_name_fault("sub/../../x") == "leaves the index's directory");
  CHECK(ti::index_shard_name_fault("a\\b") == "holds a NUL or backslash");
}

TEST_CASE("a shard name: validate reports in the loader's words what loading refuses, and passes what it opens") {
  test_util::TempDir dir("ti-index-shard-name-");
  // One F32 tensor of 4 bytes in a shard named with ".." inside its name.
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}  )";  // 8 + 56: aligned
  std::string shard(8, '\0');
  shard[0] = static_cast<char>(header.size());
  shard += header + std::string(4, '\0');
  dir.write("model..v2.safetensors", shard);
  const std::string good =
      dir.write("good.safetensors.index.json", R"({"weight_map": {"a": "model..v2.safetensors"}})");
  CHECK(ti::validate_file(good).findings.empty());
  CHECK(ti::open_file(good).tensors.size() == 1);
  const std::string bad = dir.write("bad.safetensors.index.json", R"({"weight_map": {"a": "/etc/passwd"}})");
  const ti::ValidationReport r = ti::validate_file(bad);
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "safetensors-index.shard_name");
  CHECK(r.findings[0].message == "shard name '/etc/passwd' is an absolute path");
  CHECK_THROWS_WITH_AS(ti::open_file(bad), (bad + ": tensor 'a': shard name '/etc/passwd' is an absolute path").c_str(),
                       ti::Error);
}
