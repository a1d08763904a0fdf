// Tests of loaders/safetensors_index.cpp: the sharded sample of
// samples/make_safetensors_samples.py, and indexes that disagree with their shards or name
// shards outside their directory, built byte by byte (split from safetensors_test.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::doubles;
using test_util::ints;
using test_util::kSamples;
using test_util::names_of;

const std::string kIndexA4 = R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]})";

// A safetensors shard: the 8-byte little-endian header length, the header, the data buffer.
std::string shard_bytes(std::string_view header, std::string_view data = {}) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((std::uint64_t{header.size()} >> (8 * i)) & 0xff);
  return out + std::string(header) + std::string(data);
}

}  // namespace

TEST_CASE("safetensors index: the sharded sample lists both shards' tensors as one file") {
  const std::string index = kSamples + "sharded/model.safetensors.index.json";
  const ti::LoadedFile f = ti::open_file(index);
  CHECK(f.format == "safetensors-index");
  CHECK(names_of(f) == std::vector<std::string>{"embed.weight", "layer.0.bias", "layer.1.weight", "lm_head.weight"});
  REQUIRE(f.metadata.size() == 1);
  CHECK(f.metadata[0].key == "total_size");
  CHECK(f.metadata[0].value == 40);  // 16 + 4 + 12 + 8 bytes of data
  CHECK(f.tensors[2].note == "in shard model-00002-of-00002.safetensors");
  CHECK(doubles(f.tensors[0].load()) == std::vector<double>{1, 2, 3, 4});
  CHECK(doubles(f.tensors[1].load()) == std::vector<double>{0.5, -0.5});
  CHECK(ints(f.tensors[2].load()) == std::vector<std::int64_t>{7, -8, 9});
  CHECK(doubles(f.tensors[3].load()) == std::vector<double>{0.25, -0.75});
}

TEST_CASE("safetensors index: the index and its shards must agree, and shard names stay in the directory") {
  const test_util::TempDir dir("ti_st_index_test_");
  const std::string shard = shard_bytes("{" + kIndexA4 + "}", std::string("\0\0\0\0", 4));
  dir.write("s1.safetensors", shard);
  auto open_index = [&](const std::string& json) { return ti::open_file(dir.write("m.safetensors.index.json", json)); };
  const std::string index_path = (dir.path / "m.safetensors.index.json").string();

  SUBCASE("a consistent index opens") {
    CHECK(names_of(open_index(R"({"weight_map": {"a": "s1.safetensors"}})")) == std::vector<std::string>{"a"});
  }
  SUBCASE("a tensor mapped to a shard that lacks it") {
    CHECK_THROWS_WITH_AS(
        open_index(R"({"weight_map": {"a": "s1.safetensors", "b": "s1.safetensors"}})"),
        (index_path + ": tensor 'b' is mapped to shard 's1.safetensors', which does not hold it").c_str(), ti::Error);
  }
  SUBCASE("a shard tensor the index does not list") {
    dir.write("s2.safetensors", shard_bytes("{" + kIndexA4 + R"(,"z":{"dtype":"U8","shape":[1],"data_offsets":[4,5]}})",
                                   std::string("\0\0\0\0\x07", 5)));
    CHECK_THROWS_WITH_AS(
        open_index(R"({"weight_map": {"a": "s2.safetensors"}})"),
        (index_path + ": shard 's2.safetensors' holds tensor 'z', which the index does not list").c_str(), ti::Error);
  }
  SUBCASE("shard names that escape the directory") {
    CHECK_THROWS_WITH_AS(
        open_index(R"({"weight_map": {"a": "../s1.safetensors"}})"),
        (index_path + ": tensor 'a': shard name '../s1.safetensors' leaves the index's directory").c_str(), ti::Error);
    CHECK_THROWS_WITH_AS(open_index(R"({"weight_map": {"a": "sub/../../x"}})"),
                         (index_path + ": tensor 'a': shard name 'sub/../../x' leaves the index's directory").c_str(),
                         ti::Error);
    CHECK_THROWS_WITH_AS(open_index(R"({"weight_map": {"a": "/etc/passwd"}})"),
                         (index_path + ": tensor 'a': shard name '/etc/passwd' is an absolute path").c_str(),
                         ti::Error);
  }
  SUBCASE("a missing shard is a warning; loading its tensor is an I/O error (fault 9)") {
    const ti::LoadedFile f = open_index(R"({"weight_map": {"a": "nope.safetensors"}})");
    REQUIRE(f.tensors.size() == 1);
    CHECK(f.warnings.size() == 1);
    CHECK(test_util::code_of([&] { f.tensors[0].load(); }) == ti::ErrorCode::Io);
  }
  SUBCASE("an index without a weight map, or with duplicate tensors") {
    CHECK_THROWS_WITH_AS(open_index(R"({"metadata": {}, "weight": {}})"),
                         (index_path + ": index has no \"weight_map\" object").c_str(), ti::Error);
    CHECK_THROWS_WITH_AS(open_index(R"({"weight_map": {"a": "s1.safetensors", "a": "s1.safetensors"}})"),
                         (index_path + ": key 'a' appears twice in header object 'weight_map'").c_str(), ti::Error);
    CHECK_THROWS_WITH_AS(open_index(R"({"weight_map": {}, "weight_map": {"a": "s1.safetensors"}})"),
                         (index_path + ": key 'weight_map' appears twice in the index").c_str(), ti::Error);
    // The metadata's own keys, and those of an object inside it, each named with their object.
    CHECK_THROWS_WITH_AS(open_index(R"({"metadata": {"total_size": 1, "total_size": 2}, "weight_map": {}})"),
                         (index_path + ": key 'total_size' appears twice in header object 'metadata'").c_str(),
                         ti::Error);
    CHECK_THROWS_WITH_AS(open_index(R"({"metadata": {"m": {"k": 1, "k": 2}}, "weight_map": {}})"),
                         (index_path + ": key 'k' appears twice in header object 'm'").c_str(), ti::Error);
    CHECK_THROWS_WITH_AS(open_index(R"({"weight_map": []})"),
                         (index_path + ": index has no \"weight_map\" object").c_str(), ti::Error);
    CHECK_THROWS_WITH_AS(open_index(R"({"weight_map": {"a": 5}})"),
                         (index_path + ": tensor 'a': shard name is not a string").c_str(), ti::Error);
  }
  SUBCASE("an index that is not a JSON object, or not JSON, is refused with the byte") {
    CHECK_THROWS_WITH_AS(open_index(R"([{"weight_map": {}}])"), (index_path + ": index is not a JSON object").c_str(),
                         ti::Error);
    // byte 38 is the '}' after a trailing comma; byte 39 the 'x' after the object
    CHECK_THROWS_WITH_AS(open_index(R"({"weight_map": {"a": "s1.safetensors"},})"),
                         (index_path + ": header is not valid JSON (expected a string, found '}') at byte 39").c_str(),
                         ti::Error);
    CHECK_THROWS_WITH_AS(
        open_index(R"({"weight_map": {"a": "s1.safetensors"}} x)"),
        (index_path + ": header is not valid JSON (trailing characters after the closing '}') at byte 40").c_str(),
        ti::Error);
    CHECK(test_util::code_of([&] { open_index(R"({"weight_map": {"a": "s1.safetensors"})"); }) ==
          ti::ErrorCode::BadFile);
  }
  SUBCASE("metadata: an object's keys in sorted order with their JSON types, null, or refused") {
    const ti::LoadedFile f = open_index(R"({"metadata": {"total_size": 4, "format": "pt", "nested": {"k": [1, 2]}},
      "other": {"skipped": [true, null]}, "weight_map": {"a": "s1.safetensors"}})");
    REQUIRE(f.metadata.size() == 3);
    CHECK(f.metadata[0].key == "format");
    CHECK(f.metadata[0].type == "string");
    CHECK(f.metadata[1].key == "nested");
    CHECK(f.metadata[1].value.dump() == R"({"k":[1,2]})");
    CHECK(f.metadata[2].key == "total_size");
    CHECK(f.metadata[2].type == "number");
    CHECK(f.metadata[2].value == 4);
    CHECK(open_index(R"({"metadata": null, "weight_map": {"a": "s1.safetensors"}})").metadata.empty());
    CHECK_THROWS_WITH_AS(open_index(R"({"metadata": 5, "weight_map": {"a": "s1.safetensors"}})"),
                         (index_path + ": \"metadata\" is not an object").c_str(), ti::Error);
    // Duplicate keys inside the metadata are refused as anywhere in a header.
    CHECK(test_util::code_of([&] { open_index(R"({"metadata": {"k": 1, "k": 2}, "weight_map": {}})"); }) ==
          ti::ErrorCode::BadFile);
  }
  SUBCASE("names with escapes, and the tensors of a missing shard in index order") {
    const ti::LoadedFile f =
        open_index(R"({"weight_map": {"z": "gone.safetensors", "\u0061": "s1.safetensors", "b": "gone.safetensors"}})");
    CHECK(names_of(f) == std::vector<std::string>{"z", "b", "a"});  // shards sorted: gone before s1
    REQUIRE(f.warnings.size() == 1);
    CHECK(f.warnings[0].find("shard 'gone.safetensors' of 2 tensors cannot be read") != std::string::npos);
    // The warning names the first of the shard's tensors in the index, and how many more.
    CHECK(f.warnings[0].find("; it should hold 'z' and 1 more") != std::string::npos);
  }
}
