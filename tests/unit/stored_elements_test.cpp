// tests/unit/stored_elements_test.cpp — the stored bytes behind a loaded tensor
// (tensor_inspect/stored_elements.hpp), against the sample's bytes as np.save wrote them
// (samples/make_npy_samples.py: np.array([1, -2, 258, -32768, 32767], dtype=">i2")).
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/stored_elements.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

TEST_CASE("stored_elements: a big-endian .npy is its mapped bytes, byte-swapped, in place") {
  const ti::LoadedFile f = ti::open_file(test_util::kSamples + "big_endian_i2.npy");
  REQUIRE(f.tensors.size() == 1);
  const ti::Tensor t = f.tensors[0].load();
  const std::optional<ti::StoredElements> s = ti::stored_elements(t);
  REQUIRE(s.has_value());
  CHECK(s->stored == ti::DType::Int16);
  CHECK(s->swap_bytes);
  CHECK(s->c_order);
  CHECK(s->numel == 5);
  CHECK(s->shape == ti::Shape{5});
  CHECK(s->file != nullptr);  // read where it lies: the mapping, not a copy
  // >i2 of 1, -2, 258, -32768, 32767: the high byte first.
  const std::vector<std::uint8_t> want = {0x00, 0x01, 0xff, 0xfe, 0x01, 0x02, 0x80, 0x00, 0x7f, 0xff};
  REQUIRE(s->bytes.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(static_cast<std::uint8_t>(s->bytes[i]) == want[i]);
  // Reversed and transposed views keep the same bytes, out of C order; a slice has none.
  const std::optional<ti::StoredElements> flipped = ti::stored_elements(t.flip({0}));
  REQUIRE(flipped.has_value());
  CHECK_FALSE(flipped->c_order);
  CHECK(flipped->bytes.data() == s->bytes.data());
  CHECK_FALSE(ti::stored_elements(t.shrink({{1, 4}})).has_value());
}
