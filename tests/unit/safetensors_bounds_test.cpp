// A safetensors shape's sizes are bounded alike by the loader (loaders/safetensors.cpp) and
// validate (validate/safetensors.cpp), through the one checked product (mul_in_range): the
// element count and the bit size each at most 2^63 - 1. Sizes by hand: 2^62 + 1 =
// 4611686018427387905 elements fit, times 8 bits they do not; 3037000500^2 =
// 9223372037000250000 > 2^63 - 1 = 9223372036854775807 elements do not.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "test_util.hpp"
#include "validate/findings.hpp"

namespace ti = tensor_inspect;

namespace {

// One U8 tensor 'a' of `shape` (JSON text) over no data, the header padded to 8 bytes.
std::string one_tensor(const std::string& shape) {
  std::string header = R"({"a":{"dtype":"U8","shape":)" + shape + R"(,"data_offsets":[0,0]}})";
  while ((8 + header.size()) % 8) header += ' ';
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header;
}

std::vector<ti::Finding> validate_st(const std::string& file) {
  std::vector<ti::Finding> out;
  ti::validate::Findings f(out, "safetensors");
  const std::vector<std::byte> b = test_util::bytes_of(file);
  ti::validate::check_safetensors(b, f);
  return out;
}

std::string load_error(const std::string& file) {
  try {
    (void)ti::open_safetensors(ti::MappedFile::from_bytes(test_util::bytes_of(file), "x.safetensors"));
  } catch (const ti::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("safetensors: an element count that fits but a byte size that does not is a size fault in both") {
  const std::string file = one_tensor("[4611686018427387905]");
  CHECK(load_error(file) == "x.safetensors: tensor 'a': byte size of shape (4611686018427387905,) overflows");
  const std::vector<ti::Finding> found = validate_st(file);
  REQUIRE(found.size() == 1);
  CHECK(found[0].rule == "safetensors.size");
  CHECK(found[0].message == "shape [4611686018427387905] of U8 overflows");
}

TEST_CASE("safetensors: an element count past 2^63 - 1 is a shape fault in both") {
  const std::string file = one_tensor("[3037000500,3037000500]");
  CHECK(load_error(file) == "x.safetensors: tensor 'a': element count of shape (3037000500, 3037000500) overflows");
  const std::vector<ti::Finding> found = validate_st(file);
  REQUIRE(found.size() == 1);
  CHECK(found[0].rule == "safetensors.shape");
  CHECK(found[0].message == "shape [3037000500,3037000500] overflows");
}
