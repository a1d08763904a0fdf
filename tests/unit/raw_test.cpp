// Tests of loaders/raw.cpp: numpy.frombuffer semantics over raw bytes. Expected values
// come from NumPy (samples/make_pt_samples.py wrote the .bin samples with tofile/tobytes)
// or from bytes checked by hand (struct.pack).
#include <doctest/doctest.h>

#include <cstring>
#include <optional>
#include <string>
#include <variant>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::doubles;
using test_util::ints;
using test_util::kSamples;

std::shared_ptr<ti::MappedFile> raw_file(const std::string& bytes, const std::string& name = "x.bin") {
  return ti::MappedFile::from_bytes(test_util::bytes_of(bytes), name);
}

ti::RawOptions opts(ti::DType dtype, std::optional<ti::Shape> shape = std::nullopt, std::uint64_t offset = 0,
                    bool big_endian = false) {
  ti::RawOptions o;
  o.dtype = dtype;
  o.shape = std::move(shape);
  o.offset = offset;
  o.big_endian = big_endian;
  return o;
}

}  // namespace

TEST_CASE("raw: without a shape the data is one axis, as np.frombuffer(b, '<f4')") {
  const ti::LoadedFile f = ti::open_raw(ti::MappedFile::open(kSamples + "raw_f32.bin"), opts(ti::DType::Float32));
  REQUIRE(f.tensors.size() == 1);
  const ti::TensorEntry& e = f.tensors[0];
  CHECK(f.format == "raw");
  CHECK(e.name == "");
  CHECK(e.stored_type == "<f4");
  CHECK(e.shape == ti::Shape{4});
  CHECK(e.nbytes == 16);
  const ti::Tensor t = e.load();
  REQUIRE(t.node()->op == ti::Op::Buffer);  // lazy: a DISK view of the file
  CHECK(std::get<std::shared_ptr<ti::Buffer>>(t.node()->arg)->device() == ti::Device::DISK);
  CHECK(doubles(t) == std::vector<double>{1.0, -2.5, 3.25, static_cast<double>(0.1f)});
}

TEST_CASE("raw: a shape and an offset; big-endian int16 is converted lazily") {
  const ti::RawOptions o = opts(ti::DType::Int16, ti::Shape{2, 3}, 8, true);
  const ti::LoadedFile f = ti::open_raw(ti::MappedFile::open(kSamples + "raw_be_i16.bin"), o);
  const ti::TensorEntry& e = f.tensors[0];
  CHECK(e.stored_type == ">i2");
  CHECK(e.offset == 8);
  CHECK(e.note == "big-endian, converted to native order");
  const ti::Tensor t = e.load();
  CHECK(t.shape() == ti::Shape{2, 3});
  CHECK(t.node()->op != ti::Op::Buffer);  // a graph of primitives, not computed yet
  CHECK(ints(t) == std::vector<std::int64_t>{1, -2, 258, -32768, 32767, 0});
}

TEST_CASE("raw: big-endian float64 from struct.pack('>dd', 1.0, -2.5)") {
  const std::string bytes("\x3f\xf0\0\0\0\0\0\0\xc0\x04\0\0\0\0\0\0", 16);
  const ti::LoadedFile f = ti::open_raw(raw_file(bytes), opts(ti::DType::Float64, std::nullopt, 0, true));
  CHECK(doubles(f.tensors[0].load()) == std::vector<double>{1.0, -2.5});
}

TEST_CASE("raw: one-byte dtypes ignore the byte order, and a 0-d shape takes one element") {
  const ti::LoadedFile f = ti::open_raw(raw_file("\xff", "b.bin"), opts(ti::DType::Int8, ti::Shape{}, 0, true));
  CHECK(f.tensors[0].stored_type == "|i1");
  CHECK(f.tensors[0].note == "");
  const ti::Tensor t = f.tensors[0].load();
  CHECK(t.shape() == ti::Shape{});
  CHECK(ints(t) == std::vector<std::int64_t>{-1});
}

TEST_CASE("raw: empty data is the shape (0,), as np.frombuffer(b'', np.uint8) gives") {
  const ti::LoadedFile f = ti::open_raw(raw_file("abc"), opts(ti::DType::UInt8, std::nullopt, 3));
  CHECK(f.tensors[0].shape == ti::Shape{0});
  CHECK(f.tensors[0].load().numel() == 0);
}

TEST_CASE("raw: empty big-endian data is the shape (0,) too") {
  const ti::LoadedFile f = ti::open_raw(raw_file(""), opts(ti::DType::Float32, std::nullopt, 0, true));
  CHECK(f.tensors[0].shape == ti::Shape{0});
  CHECK(ti::data(f.tensors[0].load()).nbytes == 0);
}

TEST_CASE("raw: lengths that do not fit the itemsize or the shape are refused with the numbers") {
  SUBCASE("10 bytes of float32") {
    CHECK_THROWS_WITH_AS(ti::open_raw(raw_file("0123456789"), opts(ti::DType::Float32)),
                         "x.bin: 10 bytes after offset 0 is not a multiple of itemsize 4", ti::Error);
  }
  SUBCASE("an offset that leaves 7 bytes of int16") {
    CHECK_THROWS_WITH_AS(ti::open_raw(raw_file("0123456789"), opts(ti::DType::Int16, std::nullopt, 3)),
                         "x.bin: 7 bytes after offset 3 is not a multiple of itemsize 2", ti::Error);
  }
  SUBCASE("a shape needing more bytes than follow the offset") {
    CHECK_THROWS_WITH_AS(
        ti::open_raw(raw_file("0123456789"), opts(ti::DType::Int16, ti::Shape{2, 3})),
        "x.bin: shape (2, 3) of int16 needs 12 bytes, but 10 bytes follow offset 0", ti::Error);
  }
  SUBCASE("an offset past the end") {
    CHECK_THROWS_WITH_AS(ti::open_raw(raw_file("0123"), opts(ti::DType::UInt8, std::nullopt, 5)),
                         "x.bin: offset 5 is past the end of the file (4 bytes)", ti::Error);
  }
  SUBCASE("a shape whose byte size overflows") {
    CHECK_THROWS_WITH_AS(
        ti::open_raw(raw_file("01234567"), opts(ti::DType::Int64, ti::Shape{std::int64_t{1} << 62, 4})),
        "x.bin: raw shape (4611686018427387904, 4) overflows", ti::Error);
  }
  SUBCASE("a negative dimension") {
    CHECK_THROWS_WITH_AS(ti::open_raw(raw_file("01"), opts(ti::DType::UInt8, ti::Shape{-2})),
                         "x.bin: raw shape (-2,) has a negative dimension", ti::Error);
  }
  SUBCASE("a weak dtype") {
    CHECK_THROWS_WITH_AS(ti::open_raw(raw_file("0123"), opts(ti::DType::WeakInt)),
                         "x.bin: raw data needs a concrete dtype, not weakint", ti::Error);
  }
}
