#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <unistd.h>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/validate.hpp"
#include "test_util.hpp"
#include "loaders/json_document.hpp"
#include "validate/findings.hpp"

namespace ti = tensor_inspect;

namespace {

// Writes `bytes` to a fresh file under the temp directory and returns its path.
std::string write_temp(const std::string& name, const std::string& bytes) {
  const auto path =
      std::filesystem::temp_directory_path() / ("ti-validate-test-" + std::to_string(::getpid()) + "-" + name);
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
  const ti::ValidationReport r =
      ti::validate_file(write_temp("faults.safetensors", safetensors(header, std::string(24, '\0'))));
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
  for (const char* name : {"mixed.safetensors", "float32.npy", "version2_u2.npy", "arrays.npz",
                           "arrays_compressed.npz", "state_dict.pt", "protocol4.pt", "legacy.pt",
                           "sharded/model.safetensors.index.json"}) {
    CAPTURE(name);
    CHECK(ti::validate_file(test_util::kSamples + name).findings.empty());
  }
}

TEST_CASE("validate notes the one tensor of quants.gguf the tool cannot open: Q8_1, not dequantizable") {
  const ti::ValidationReport r = ti::validate_file(test_util::kSamples + "quants.gguf");
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].severity == ti::Severity::Note);  // what the tool cannot decode, not a fault of the file
  CHECK(r.findings[0].rule == "gguf.unsupported");
  CHECK(r.findings[0].place == "tensor 'q8_1'");
  CHECK(r.findings[0].message ==
        "ggml type Q8_1 (9) is one this tool cannot dequantize: the tool cannot open this tensor");
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

namespace {

// A .npy file, version 1.0: the magic, the header dict padded with spaces to a multiple of
// 64 bytes and ended by '\n' (as numpy.lib.format writes it), then the data.
std::string npy(std::string header, const std::string& data) {
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

}  // namespace

TEST_CASE("validate of a safetensors header of 200,000 tensors is linear: clean, and a planted overlap found") {
  // Issue 9, kind "hang": nlohmann's DOM parse with a callback rescans the parent object at
  // every object_end, quadratic in the tensor count (50,000 tensors took over 120 s). At
  // 200,000 a regression runs for hours, past ctest's timeout.
  constexpr int kTensors = 200'000;
  std::string header = "{";
  for (int i = 0; i < kTensors; ++i) {
    header += (i ? "," : "") + std::string("\"t") + std::to_string(i) +
              "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[" + std::to_string(4 * i) + "," +
              std::to_string(4 * i + 4) + "]}";
  }
  const std::string data(4 * static_cast<std::size_t>(kTensors), '\0');
  const ti::ValidationReport clean = ti::validate_file(write_temp("many.safetensors", safetensors(header + "}", data)));
  CHECK(clean.findings.empty());
  // The last tensor moved back 2 bytes: it overlaps the one before and leaves 2 bytes over.
  const std::string moved = header.substr(0, header.rfind('[')) + "[" + std::to_string(4 * (kTensors - 1) - 2) + "," +
                            std::to_string(4 * kTensors - 2) + "]}}";
  const ti::ValidationReport bad = ti::validate_file(write_temp("many_overlap.safetensors", safetensors(moved, data)));
  REQUIRE(bad.findings.size() == 2);
  CHECK(bad.findings[0].rule == "safetensors.overlap");
  CHECK(bad.findings[0].place == "tensor 't199999'");
  CHECK(bad.findings[0].message == "data_offsets [799994, 799998) overlap tensor 't199998' (up to 799996)");
  CHECK(bad.findings[1].rule == "safetensors.trailing");
  CHECK(bad.findings[1].message == "2 bytes after the last tensor's data belong to no tensor");
}

TEST_CASE("validate says what is wrong with a header's JSON in its own words, at the byte") {
  // Header length 0: no JSON at all. Named by extension (the sniffer wants a '{').
  std::string empty(8, '\0');
  ti::ValidationReport r = ti::validate_file(write_temp("empty-header.safetensors", empty));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "safetensors.json");
  CHECK(r.findings[0].offset == std::optional<std::uint64_t>(8));
  CHECK(r.findings[0].message == "the header is not valid JSON: the text is empty");
  // Header length 5, '{"a":': the text ends where a value must follow (byte 8 + 5).
  std::string cut = std::string("\x05\0\0\0\0\0\0\0", 8) + "{\"a\":";
  r = ti::validate_file(write_temp("cut-header.safetensors", cut));
  REQUIRE(r.findings.size() == 2);
  CHECK(r.findings[0].rule == "safetensors.alignment");
  CHECK(r.findings[1].rule == "safetensors.json");
  CHECK(r.findings[1].offset == std::optional<std::uint64_t>(13));
  CHECK(r.findings[1].message == "the header is not valid JSON: the text ends before the JSON value is complete");
  // An unexpected character: its byte, shown.
  r = ti::validate_file(write_temp("bad-char.safetensors", safetensors("{\"a\": ]}", "")));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].offset == std::optional<std::uint64_t>(8 + 6));
  CHECK(r.findings[0].message == "the header is not valid JSON: unexpected ']'");
  // A bad literal: the word, where it starts.
  r = ti::validate_file(write_temp("bad-literal.safetensors", safetensors("{\"a\": tru}", "")));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].offset == std::optional<std::uint64_t>(8 + 6));
  CHECK(r.findings[0].message == "the header is not valid JSON: a malformed number or literal 'tru'");
  // A raw newline in a string.
  r = ti::validate_file(write_temp("bad-string.safetensors", safetensors("{\"a\n\": 1}", "")));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].offset == std::optional<std::uint64_t>(8 + 3));
  CHECK(r.findings[0].message ==
        "the header is not valid JSON: a malformed string (a control character, a bad escape or invalid UTF-8 at byte "
        "0x0a)");
  // The loader, for the cut header, names the syntax fault, not a value of the wrong kind.
  try {
    (void)ti::open_file(write_temp("cut-header2.safetensors", cut));
    FAIL("no error");
  } catch (const ti::Error& e) {
    CHECK(std::string(e.what()).find(
              "header is not valid JSON (expected a value, found the end of the header) at byte 13") !=
          std::string::npos);
  }
}

TEST_CASE("validate reports a .npy descr the loader refuses: datetime64, object, structured") {
  struct Case {
    const char* descr;
    const char* message;
  };
  for (const Case& c :
       {Case{"'<M8[ns]'", "descr '<M8[ns]' (datetime64 dtype) has no tinygrad dtype: the tool cannot open this array"},
        Case{"'<O'", "descr '<O' (object dtype) has no tinygrad dtype: the tool cannot open this array"},
        Case{"[('a', '<f4')]",
             "descr is a structured dtype (a list of fields), which has no tinygrad dtype: the tool cannot open this "
             "array"}}) {
    CAPTURE(c.descr);
    const std::string path = write_temp(
        "unsupported.npy",
        npy(std::string("{'descr': ") + c.descr + ", 'fortran_order': False, 'shape': (2,), }", std::string(16, '\0')));
    const ti::ValidationReport r = ti::validate_file(path);
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].severity == ti::Severity::Note);
    CHECK(r.findings[0].rule == "npy.unsupported");
    CHECK(r.findings[0].place == "key 'descr'");
    CHECK(r.findings[0].offset == std::optional<std::uint64_t>(10));
    CHECK(r.findings[0].message == c.message);
    // ...and the loader indeed refuses it.
    try {
      ti::LoadedFile f = ti::open_file(path);
      for (const auto& e : f.tensors) (void)e.load();
      FAIL("the loader opened it");
    } catch (const ti::Error& e) {
      CHECK(e.code() == ti::ErrorCode::Unsupported);
    }
  }
}

TEST_CASE("validate names a JSON value's type with its article: an array, an object, a number") {
  const std::string header =
      R"({"__metadata__": {"k": [1], "o": {}, "n": 5}, "a": [], )"
      R"("b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})";
  const ti::ValidationReport r =
      ti::validate_file(write_temp("articles.safetensors", safetensors(header, std::string(4, '\0'))));
  std::vector<std::string> messages;
  for (const auto& f : r.findings) messages.push_back(f.message);
  auto has = [&](const std::string& m) { return std::find(messages.begin(), messages.end(), m) != messages.end(); };
  CHECK(has("metadata value is an array; safetensors metadata maps strings to strings"));
  CHECK(has("metadata value is an object; safetensors metadata maps strings to strings"));
  CHECK(has("metadata value is a number; safetensors metadata maps strings to strings"));
  CHECK(has("the entry is an array, not an object"));
}

TEST_CASE("the JSON reader's collecting policy names each duplicate key with its object and both bytes") {
  // Offsets found in the text itself: the opening quote of each occurrence, counted from `base`.
  const std::string text = R"({"a": {"k": 1, "k\"": 2, "k": 3}, "b\\": [{"x": 1}, {"x": 1, "x": 2}], "a": 0})";
  std::vector<ti::JsonDuplicate> found;
  ti::JsonFaults faults{[&](const ti::JsonDuplicate& d) { found.push_back(d); }};
  const std::optional<nlohmann::json> doc = ti::JsonDocument(text, "x.json", 100).collect(faults);
  REQUIRE(doc.has_value());
  CHECK_FALSE(faults.fault.has_value());
  CHECK((*doc)["a"] == 0);  // the last value is kept, as Python's json keeps it
  REQUIRE(found.size() == 3);
  CHECK(found[0].key == "k");
  CHECK(found[0].object == "a");
  CHECK(found[0].first == 100 + text.find(R"("k": 1)"));
  CHECK(found[0].again == 100 + text.find(R"("k": 3)"));
  CHECK(found[1].key == "x");
  CHECK(found[1].object == "b\\");  // an object in an array stands under the array's key
  CHECK(found[1].first == 100 + text.find(R"("x": 1, "x")"));
  CHECK(found[1].again == 100 + text.find(R"("x": 2)"));
  CHECK(found[2].key == "a");
  CHECK(found[2].object.empty());
  CHECK(found[2].first == 101);
  CHECK(found[2].again == 100 + text.find(R"("a": 0)"));
}

TEST_CASE("severity_name names the three classes of findings") {
  CHECK(ti::severity_name(ti::Severity::Error) == "error");
  CHECK(ti::severity_name(ti::Severity::Warning) == "warning");
  CHECK(ti::severity_name(ti::Severity::Note) == "note");
}

TEST_CASE("an index's total_size is checked against the sum of its shards' tensor bytes") {
  // The sample index says 40: its shards hold 4 tensors of 40 bytes together (samples/README.md).
  const std::string dir = test_util::kSamples + "sharded/";
  CHECK(ti::validate_file(dir + "model.safetensors.index.json").findings.empty());
  std::string text;
  {
    std::ifstream in(dir + "model.safetensors.index.json");
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::size_t at = text.find("40");
  REQUIRE(at != std::string::npos);
  text.replace(at, 2, "9999");
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("ti_total_size_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  for (const char* shard : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"})
    std::filesystem::copy_file(dir + shard, folder / shard, std::filesystem::copy_options::overwrite_existing);
  {
    std::ofstream out(folder / "model.safetensors.index.json", std::ios::binary);
    out << text;
  }
  const ti::ValidationReport r = ti::validate_file((folder / "model.safetensors.index.json").string());
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].severity == ti::Severity::Error);
  CHECK(r.findings[0].rule == "safetensors-index.total_size");
  CHECK(r.findings[0].message ==
        "total_size is 9999, but the shards' tensors hold 40 bytes (the sum of their data_offsets spans, as "
        "transformers adds them)");
  std::filesystem::remove_all(folder);
}
