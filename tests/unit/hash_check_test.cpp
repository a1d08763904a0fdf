// tests/unit/hash_check_test.cpp — tensor_inspect/hash_check.hpp: a manifest paired with the
// inputs' tensors and judged, and the reports. The digests are Python's:
//   hashlib.sha256(b"float32 (2,)\n" + struct.pack("<2f", 1.0, 2.0)).hexdigest()   -> d236...1884
//   hashlib.sha256(b"float32 (2,)\n" + struct.pack("<2f", 1.0, 3.0)).hexdigest()   -> 03e2...cae6
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/hash_check.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

const std::string kDigest12 = "d236184ab178805ecffbab93f80c318c230968a9b0a1374e48aabd545e701884";
const std::string kDigest13 = "03e2c1974ab4c72308d2bc2cd7eb9d2f630d8950e4a6e1f01617a2ef5bcccae6";

std::string float_npy(float a, float b) {
  const float v[] = {a, b};
  std::string data(sizeof v, '\0');
  std::memcpy(data.data(), v, sizeof v);
  return test_util::npy(test_util::npy_header("<f4", "(2,)"), data);
}

std::string manifest_json(const std::string& entries) {
  return R"({"schema_version": 1, "kind": "hash", "algorithm": "sha256", "inputs": ["m"], "tensors": [)" + entries +
         "]}";
}

std::string manifest_tensor(const std::string& name, const std::string& digest) {
  return R"({"name": ")" + name + R"(", "dtype": "float32", "shape": [2], "hash": ")" + digest +
         R"(", "stored_blocks": false})";
}

}  // namespace

TEST_CASE("check_manifest: by name, OK, changed, missing and added, in manifest then input order") {
  const test_util::TempDir dir("ti_hash_check_");
  const std::string a = dir.write("a.npy", float_npy(1.0f, 2.0f)), b = dir.write("b.npy", float_npy(1.0f, 3.0f));
  const ti::HashInputs in = ti::open_hash_inputs({a, b});
  REQUIRE(in.names.size() == 2);
  // The unnamed tensor of a .npy is named after its input.
  const std::string path = dir.write(
      "m.json", manifest_json(manifest_tensor(in.names[0], kDigest12) + ", " + manifest_tensor(in.names[1], kDigest12) +
                              ", " + manifest_tensor("gone", kDigest12)));
  const ti::Manifest m = ti::read_manifest(path);
  const std::vector<ti::HashCheckRow> rows = ti::check_manifest(m, in);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].status == ti::HashCheckStatus::Ok);
  CHECK(rows[1].status == ti::HashCheckStatus::Changed);
  REQUIRE(rows[1].actual);
  CHECK(rows[1].actual->digest == kDigest13);
  CHECK(rows[2].status == ti::HashCheckStatus::Missing);
  CHECK_FALSE(rows[2].actual);
  const std::string text =
      test_util::rendered([&](ti::OutBuffer& out) { ti::write_hash_check(rows, m, path, in, true, false, out); });
  CHECK(text == in.names[1] + ": FAILED\ngone: MISSING\n3 tensors: 1 OK, 1 changed, 1 missing, 0 added\n");

  const ti::HashInputs only_b = ti::open_hash_inputs({b});
  const std::string two = dir.write("two.json", manifest_json(manifest_tensor("x", kDigest13) + ", " +
                                                              manifest_tensor("y", kDigest13)));
  const std::vector<ti::HashCheckRow> added = ti::check_manifest(ti::read_manifest(two), only_b);
  REQUIRE(added.size() == 3);
  CHECK(added[2].status == ti::HashCheckStatus::Added);
  CHECK(added[2].name == only_b.names[0]);
}

TEST_CASE("check_manifest: a manifest and an input of one tensor each pair whatever their names") {
  const test_util::TempDir dir("ti_hash_one_");
  const ti::HashInputs in = ti::open_hash_inputs({dir.write("w.npy", float_npy(1.0f, 2.0f))});
  const ti::Manifest m = ti::read_manifest(dir.write("m.json", manifest_json(manifest_tensor("other", kDigest12))));
  const std::vector<ti::HashCheckRow> rows = ti::check_manifest(m, in);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].status == ti::HashCheckStatus::Ok);
  const std::string lines = test_util::rendered([&](ti::OutBuffer& out) {
    ti::write_hashes({*rows[0].actual}, in, ti::HashAlgorithm::Sha256, false, out);
  });
  CHECK(lines == kDigest12 + "  " + in.names[0] + "\n");
}

TEST_CASE("open_hash_inputs and read_manifest refuse what they cannot use") {
  const test_util::TempDir dir("ti_hash_refuse_");
  const std::string a = dir.write("a.npy", float_npy(1.0f, 2.0f));
  CHECK_THROWS_WITH_AS(ti::open_hash_inputs({"-", "-"}), "hash: standard input (-) can be given once", ti::Error);
  CHECK_THROWS_AS(ti::open_hash_inputs({a, a}), ti::Error);
  CHECK_THROWS_WITH_AS(ti::read_manifest(dir.path.string()), (dir.path.string() + ": cannot read the manifest").c_str(),
                       ti::Error);
}
