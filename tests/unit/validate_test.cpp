#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/validate.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

// Writes `bytes` to a fresh file under the temp directory and returns its path.
std::string write_temp(const std::string& name, const std::string& bytes) {
  const auto path = std::filesystem::temp_directory_path() / ("ti-validate-test-" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

// A safetensors file: the u64 LE header length, the header (padded with spaces to a
// multiple of 8 after the length), then the data.
std::string safetensors(std::string header, const std::string& data) {
  while ((8 + header.size()) % 8) header += ' ';
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

}  // namespace

TEST_CASE("validate reports every fault of a safetensors file, not only the first") {
  const std::string header =
      R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
      R"( "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]},)"
      R"( "c": {"dtype": "F16", "shape": [1], "data_offsets": [16, 20]}})";
  const ti::ValidationReport r = ti::validate_file(write_temp("faults.safetensors", safetensors(header, std::string(24, '\0'))));
  CHECK(r.format == "safetensors");
  REQUIRE(r.findings.size() == 4);
  CHECK(r.findings[0].rule == "safetensors.size");
  CHECK(r.findings[0].message == "data_offsets [16, 20) holds 4 bytes; shape [1] of F16 needs 2");
  CHECK(r.findings[1].rule == "safetensors.overlap");
  CHECK(r.findings[1].place == "tensor 'b'");
  CHECK(r.findings[1].message == "data_offsets [4, 12) overlap tensor 'a' (up to 8)");
  CHECK(r.findings[2].rule == "safetensors.hole");
  CHECK(r.findings[2].message == "bytes [12, 16) of the data belong to no tensor");
  CHECK(r.findings[3].rule == "safetensors.trailing");
  CHECK(r.findings[3].offset == std::optional<std::uint64_t>(8 + 192 + 20));
  for (const auto& f : r.findings) CHECK(f.severity == ti::Severity::Error);
}

TEST_CASE("validate finds nothing in the samples of each format") {
  for (const char* name : {"mixed.safetensors", "quants.gguf", "float32.npy", "version2_u2.npy", "arrays.npz",
                           "arrays_compressed.npz", "state_dict.pt", "protocol4.pt", "legacy.pt",
                           "sharded/model.safetensors.index.json"}) {
    CAPTURE(name);
    CHECK(ti::validate_file(test_util::kSamples + name).findings.empty());
  }
}

TEST_CASE("validate refuses a file of no known format with Error(BadFile), and a missing one with Error(Io)") {
  CHECK_THROWS_AS(ti::validate_file(test_util::kSamples + "README.md"), ti::Error);
  try {
    (void)ti::validate_file("/nonexistent/x.npy");
    FAIL("no error");
  } catch (const ti::Error& e) {
    CHECK(e.code() == ti::ErrorCode::Io);
  }
}
