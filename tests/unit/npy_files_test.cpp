// Tests of loaders/npy.cpp on whole files: the samples NumPy wrote (values from
// samples/make_npy_samples.py), every truncation and single-byte corruption of a header, and
// big-endian data read in place (split from npy_test.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>

#include <unistd.h>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::doubles;
using test_util::ints;
using test_util::kSamples;

ti::LoadedFile open_npy_image(const std::vector<std::byte>& bytes) {
  return ti::open_npy(ti::MappedFile::from_bytes(bytes, "x.npy"));
}

}  // namespace

TEST_CASE("npy: samples written by NumPy load with NumPy's values") {
  SUBCASE("big_endian_i2.npy") {
    const ti::Tensor t = ti::open_file(kSamples + "big_endian_i2.npy").tensors[0].load();
    CHECK(ints(t) == std::vector<std::int64_t>{1, -2, 258, -32768, 32767});
  }
  SUBCASE("fortran_i4.npy is arange(24).reshape(2, 3, 4) - 5") {
    const ti::Tensor t = ti::open_file(kSamples + "fortran_i4.npy").tensors[0].load();
    CHECK(t.shape() == ti::Shape{2, 3, 4});
    std::vector<std::int64_t> expected;
    for (std::int64_t i = 0; i < 24; ++i) expected.push_back(i - 5);
    CHECK(ints(t) == expected);
  }
  SUBCASE("version2_u2.npy") {
    const ti::LoadedFile f = ti::open_file(kSamples + "version2_u2.npy");
    CHECK(f.tensors[0].shape == ti::Shape{2, 2});
    CHECK(ints(f.tensors[0].load()) == std::vector<std::int64_t>{1, 2, 65535, 0});
  }
  SUBCASE("big_endian_f8.npy") {
    const std::vector<double> v = doubles(ti::open_file(kSamples + "big_endian_f8.npy").tensors[0].load());
    REQUIRE(v.size() == 6);
    CHECK(v[0] == 0.1);
    CHECK(std::signbit(v[1]));
    CHECK(v[2] == 1e300);
    CHECK(v[3] == INFINITY);
    CHECK(v[4] == -2.5);
    CHECK(v[5] == 5e-324);
  }
  SUBCASE("scalar_f8.npy is 0-d") {
    const ti::Tensor t = ti::open_file(kSamples + "scalar_f8.npy").tensors[0].load();
    CHECK(t.shape() == ti::Shape{});
    CHECK(doubles(t) == std::vector<double>{0.1});
  }
}

TEST_CASE("npy: every truncation and every single-byte corruption of a header gives a result or an Error") {
  // NOTE: a crash or an exception other than ti::Error fails this test; the outcomes
  // themselves are covered above.
  for (const char* sample : {"weights_f32.npy", "big_endian_f8.npy", "fortran_i4.npy", "version2_u2.npy"}) {
    CAPTURE(sample);
    const auto file = ti::MappedFile::open(kSamples + sample);
    const std::vector<std::byte> original(file->bytes().begin(), file->bytes().end());
    int errors = 0;
    for (std::size_t n = 0; n < original.size(); ++n) {
      const std::vector<std::byte> cut(original.begin(), original.begin() + static_cast<std::ptrdiff_t>(n));
      try {
        open_npy_image(cut);
      } catch (const ti::Error&) {
        ++errors;
      }
    }
    CHECK(errors > 0);
    const std::size_t header_end = static_cast<std::size_t>(open_npy_image(original).tensors[0].offset);
    for (std::size_t i = 0; i < header_end; ++i) {
      for (int v : {0x00, 0x22, 0x27, 0x28, 0x29, 0x2c, 0x2d, 0x39, 0x3e, 0x5b, 0x7b, 0x7d, 0xff}) {
        std::vector<std::byte> bad = original;
        bad[i] = static_cast<std::byte>(v);
        try {
          const ti::LoadedFile f = open_npy_image(bad);
          CHECK(f.tensors[0].offset + f.tensors[0].nbytes <= bad.size());
        } catch (const ti::Error&) {
        }
      }
    }
  }
}

TEST_CASE("npy: a big-endian file's data() may be read in place, swapped as it is read") {
  // big_endian_i2.npy holds >i2 [1, -2, 258, -32768, 32767] (NumPy wrote it).
  const ti::Tensor t = ti::open_file(kSamples + "big_endian_i2.npy").tensors[0].load();
  ti::DataOptions in_place;
  in_place.swapped_in_place = true;
  const ti::MemoryView swapped = ti::data(t, in_place);
  const ti::MemoryView copied = ti::data(t);
  CHECK(swapped.stored_swapped);
  CHECK_FALSE(copied.stored_swapped);
  CHECK(swapped.buffer->device() == ti::Device::DISK);  // the mapping, not a copy
  // The stored bytes of 258 (0x0102) are 01 02; the realized copy holds them as 02 01.
  CHECK(swapped.buffer->bytes()[4] == std::byte{0x01});
  CHECK(copied.buffer->bytes()[4] == std::byte{0x02});
  for (const auto* m : {&swapped, &copied}) {
    CHECK(m->format == 'h');
    CHECK(m->shape == ti::Shape{5});
    CHECK(m->nbytes == 10);
    CHECK(m->element(1).i == -2);
    CHECK(m->element(3).i == -32768);
  }
  // The same text either way.
  const std::string text = test_util::rendered([&](ti::OutBuffer& o) { ti::render_text(swapped, o); });
  CHECK(text == test_util::rendered([&](ti::OutBuffer& o) { ti::render_text(copied, o); }));
  CHECK(text.find("tolist: [1, -2, 258, -32768, 32767]\n") != std::string::npos);
  CHECK_THROWS_AS(ti::cast_view(swapped, 'B'), ti::Error);  // its bytes are not the memoryview's
  // A native file is realized (read in place) as before: nothing to swap.
  CHECK_FALSE(ti::data(ti::open_file(kSamples + "version2_u2.npy").tensors[0].load(), in_place).stored_swapped);
}
