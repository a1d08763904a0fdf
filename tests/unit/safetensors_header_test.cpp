// Tests of loaders/safetensors_header.cpp's two ways of reading an entry: the comparison of
// fixed text for entries spelled as safetensors writers spell them, and the field-by-field
// reader for every other spelling. Each header below is written out by hand twice, once in
// the writers' compact form and once with the same content spelled otherwise (whitespace,
// another key order, escapes, a number the fast way does not take); both must give the
// entries the JSON says, and a bad value the same message either way.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "loaders/safetensors_header.hpp"
#include "tensor_inspect/error.hpp"

namespace ti = tensor_inspect;

namespace {

ti::SafetensorsHeader parse(const std::string& text) { return ti::parse_safetensors_header(text, "x.safetensors", 8); }

struct Want {
  std::string name, tag;
  ti::Shape shape;
  std::uint64_t begin, end;
};

void check_entries(const std::string& text, const std::vector<Want>& want) {
  INFO(text);
  const ti::SafetensorsHeader h = parse(text);
  REQUIRE(h.tensors.size() == want.size());
  REQUIRE(h.data_offsets.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(h.tensors[i].name == want[i].name);
    CHECK(h.tensors[i].stored_type == want[i].tag);
    CHECK(h.tensors[i].shape == want[i].shape);
    CHECK(h.data_offsets[i].first == want[i].begin);
    CHECK(h.data_offsets[i].second == want[i].end);
  }
}

}  // namespace

TEST_CASE("safetensors header: the writers' compact spelling and any other give the same entries") {
  const std::vector<Want> want = {
      {"w", "F16", {64, 8}, 0, 1024}, {"s", "I64", {}, 1024, 1032}, {"e", "BF16", {3, 0, 2}, 1032, 1032}};
  check_entries(R"({"w":{"dtype":"F16","shape":[64,8],"data_offsets":[0,1024]},)"
                R"("s":{"dtype":"I64","shape":[],"data_offsets":[1024,1032]},)"
                R"("e":{"dtype":"BF16","shape":[3,0,2],"data_offsets":[1032,1032]}})",
                want);
  check_entries(R"({"w": {"dtype": "F16", "shape": [64, 8], "data_offsets": [0, 1024]},)"
                R"( "s":{"shape":[],"dtype":"I64","data_offsets":[1024,1032]},)"
                R"("e":{"data_offsets":[1032,1032],"dtype":"B\u004616","shape":[3,0,2]}})",
                want);
  // One entry each way in one header, and a field the reader does not know.
  check_entries(R"({"w":{"dtype":"F16","shape":[64,8],"data_offsets":[0,1024]},)"
                R"("s":{"dtype":"I64","shape":[],"data_offsets":[1024,1032],"extra":[1,{"a":2}]},)"
                R"("e":{"dtype":"BF16","shape":[3,0,2],"data_offsets":[1032,1032]}})",
                want);
}

TEST_CASE("safetensors header: numbers and tags the fast reading does not take are still read exactly") {
  // 19 digits (beyond the fast reading's 18), a 16-letter tag (beyond its 15), a tag with
  // a character outside [A-Za-z0-9_].
  check_entries(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1000000000000000000,1000000000000000001]}})",
                {{"a", "U8", {1}, 1000000000000000000ull, 1000000000000000001ull}});
  check_entries(R"({"a":{"dtype":"ABCDEFGHIJKLMNOP","shape":[2],"data_offsets":[0,2]}})",
                {{"a", "ABCDEFGHIJKLMNOP", {2}, 0, 2}});
  check_entries(R"({"a":{"dtype":"F-8","shape":[2],"data_offsets":[0,2]}})", {{"a", "F-8", {2}, 0, 2}});
  // 8 dimensions (the most the fast reading holds) and 9 (read field by field).
  check_entries(R"({"a":{"dtype":"U8","shape":[1,2,1,2,1,2,1,2],"data_offsets":[0,16]},)"
                R"("b":{"dtype":"U8","shape":[1,2,1,2,1,2,1,2,3],"data_offsets":[16,64]}})",
                {{"a", "U8", {1, 2, 1, 2, 1, 2, 1, 2}, 0, 16}, {"b", "U8", {1, 2, 1, 2, 1, 2, 1, 2, 3}, 16, 64}});
}

TEST_CASE("safetensors header: a bad value gives the field reader's message in the compact spelling too") {
  // A leading zero is not JSON; a negative or fractional dimension is not a dimension; a
  // third offset is not [begin, end]. The byte offsets count the 8-byte length prefix.
  CHECK_THROWS_WITH_AS(parse(R"({"a":{"dtype":"U8","shape":[01],"data_offsets":[0,1]}})"),
                       "x.safetensors: header is not valid JSON (expected ',' or ']', found '1') at byte 37",
                       ti::Error);
  CHECK_THROWS_WITH_AS(parse(R"({"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})"),
                       "x.safetensors: tensor 'a': shape dimension must be a non-negative integer, not -1", ti::Error);
  CHECK_THROWS_WITH_AS(parse(R"({"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}})"),
                       "x.safetensors: tensor 'a': shape dimension must be a non-negative integer, not 1.5", ti::Error);
  CHECK_THROWS_WITH_AS(parse(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}})"),
                       "x.safetensors: tensor 'a': data_offsets is not a list [begin, end]", ti::Error);
  CHECK_THROWS_WITH_AS(
      parse(R"({"a":{"dtype":"U8","shape":[99999999999999999999],"data_offsets":[0,1]}})"),
      "x.safetensors: tensor 'a': shape dimension must be a non-negative integer, not 99999999999999999999", ti::Error);
}
