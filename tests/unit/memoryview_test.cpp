#include <doctest/doctest.h>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
using ti::DType;

using test_util::mv;

TEST_CASE("data() of an empty tensor is a zero-length view of shape (0,)") {
  auto m = mv("[[], []]", DType::Int64);
  CHECK(m.shape == ti::Shape{0});
  CHECK(m.tensor_shape == ti::Shape{2, 0});
  CHECK(m.nbytes == 0);
  CHECK(m.format == 'q');
  CHECK(m.strides == std::vector<std::int64_t>{8});
}

TEST_CASE("data() of a 0-d tensor has shape () and commits the weak dtype") {
  auto m = mv("5");
  CHECK(m.shape.empty());
  CHECK(m.dtype == DType::Int32);
  CHECK(m.nbytes == 4);
  CHECK(m.strides.empty());
}

TEST_CASE("byte strides are C order, in bytes, like memoryview.strides") {
  CHECK(mv("[[1, 2, 3], [4, 5, 6]]", DType::Int16).strides == std::vector<std::int64_t>{6, 2});
}

TEST_CASE("dtypes with no struct format: values shown, strict refuses like Tensor.data()") {
  auto m = mv("[1.0, 0.1]", DType::BFloat16);
  CHECK_FALSE(m.format);
  CHECK(m.element(1).f == 0.10009765625);
  CHECK_THROWS_AS(mv("[1.0]", DType::BFloat16, true), ti::Error);
}

TEST_CASE("memoryview.cast reinterprets bytes with CPython's rules") {
  // Values and refusals taken from CPython 3.11's memoryview.cast.
  auto f = mv("[1.0, 2.0]", DType::Float32);
  auto b = ti::cast_view(f, 'B');
  CHECK(b.shape == ti::Shape{8});
  CHECK(b.element(3).u == 63);
  CHECK(b.element(7).u == 64);
  auto b2 = ti::cast_view(f, 'B', ti::Shape{2, 4});
  CHECK(b2.shape == ti::Shape{2, 4});
  auto i = ti::cast_view(ti::cast_view(mv("[1.0]", DType::Float32), 'B'), 'i');
  CHECK(i.element(0).i == 1065353216);
  auto u8 = mv("[1, 2, 3, 4, 5, 6, 7, 8]", DType::UInt8);
  auto i2 = ti::cast_view(u8, 'i', ti::Shape{2});
  CHECK(i2.element(0).i == 67305985);
  CHECK(i2.element(1).i == 134678021);
  auto i0 = ti::cast_view(mv("[1, 2, 3, 4]", DType::UInt8), 'i', ti::Shape{});
  CHECK(i0.shape.empty());
  CHECK(i0.element(0).i == 67305985);
  auto h = ti::cast_view(mv("[1, 2]", DType::Int16), 'b');
  CHECK(h.shape == ti::Shape{4});
  CHECK(h.element(2).i == 2);
  auto l = ti::cast_view(ti::cast_view(mv("[1, -2]", DType::Int64), 'B'), 'l');  // C long: 8 bytes on LP64
  CHECK(l.itemsize == 8);
  CHECK(l.element(1).i == -2);
  auto q = ti::cast_view(mv("[1, 0]", DType::UInt8), '?');
  CHECK(q.element(0).b);
  CHECK_FALSE(q.element(1).b);
  CHECK_THROWS_WITH_AS(
      ti::cast_view(f, 'd'),
      "memoryview: cannot cast between two non-byte formats (cast to 'B' first: --view-as B --view-as d)", ti::Error);
  CHECK_THROWS_WITH_AS(ti::cast_view(mv("[1, 2, 3]", DType::UInt8), 'i'),
                       "memoryview: length is not a multiple of itemsize", ti::Error);
  CHECK_THROWS_WITH_AS(ti::cast_view(mv("[1, 2, 3, 4]", DType::UInt8), 'i', ti::Shape{2, 2}),
                       "memoryview: product(shape) * itemsize != buffer size", ti::Error);
  CHECK_THROWS_WITH_AS(
      ti::cast_view(f, 'x'),
      "memoryview: destination format must be a native single character format prefixed with an optional '@'",
      ti::Error);
  CHECK_THROWS_WITH_AS(ti::cast_view(mv("[1, 2, 3, 4]", DType::UInt8), 'B', ti::Shape{2, 0}),
                       "memoryview.cast(): elements of shape must be integers > 0", ti::Error);
  CHECK_THROWS_WITH_AS(ti::cast_view(b2, 'B', ti::Shape{2, 4}), "memoryview: cast must be 1D -> ND or ND -> 1D",
                       ti::Error);
}

TEST_CASE("memoryview.cast('@i') keeps the '@' in format, as CPython (issue 9 fault 23)") {
  // CPython: memoryview(struct.pack('ff', 1.0, -2.0)).cast('B').cast('@i').format == '@i',
  // .tolist() == [1065353216, -1073741824]; .cast('i').format == 'i'.
  ti::MemoryView f = mv("[1.0, -2.0]");
  ti::MemoryView b = ti::cast_view(f, std::string_view("B"));
  ti::MemoryView at = ti::cast_view(b, std::string_view("@i"));
  CHECK(at.format_string() == std::optional<std::string>("@i"));
  CHECK(at.element(0).as_double() == 1065353216.0);
  CHECK(at.element(1).as_double() == -1073741824.0);
  CHECK(ti::cast_view(b, std::string_view("i")).format_string() == std::optional<std::string>("i"));
  CHECK(ti::cast_view(at, std::string_view("B")).format_string() == std::optional<std::string>("B"));
  CHECK_THROWS_WITH_AS(
      ti::cast_view(b, std::string_view("=i")),
      "memoryview: destination format must be a native single character format prefixed with an optional '@'",
      ti::Error);
}

TEST_CASE("DataOptions::max_bytes caps the buffers of the whole schedule, checked before anything runs") {
  // 1000 float32 = 4000 bytes per buffer. x.contiguous() + 1 is two kernels: the
  // contiguous copy and the add, 8000 bytes in all, though the result holds 4000.
  const ti::Tensor x = ti::Tensor::full({1000}, ti::Scalar::from_float(1.5), DType::Float32);
  const ti::Tensor one = ti::Tensor::full({1000}, ti::Scalar::from_float(1.0), DType::Float32);
  const ti::Tensor two_kernels = ti::Tensor::binary(ti::Op::Add, x.contiguous(), one);
  ti::DataOptions o;
  o.max_bytes = 4000;
  CHECK(ti::data(x, o).nbytes == 4000);
  const std::uint64_t before = ti::Buffer::cpu_allocations();
  CHECK_THROWS_WITH_AS(ti::data(two_kernels, o),
                       "Tensor.data(): realize needs 8000 bytes, over the cap of 4000 (DataOptions::max_bytes)",
                       ti::Error);
  CHECK(ti::Buffer::cpu_allocations() == before);  // refused before any buffer was made
  o.max_bytes = 8000;
  CHECK(ti::data(two_kernels, o).element(999).f == 2.5);
  o.max_bytes = 3999;
  CHECK_THROWS_AS(ti::data(x, o), ti::Error);
  o.max_bytes = 0;  // no cap
  CHECK(ti::data(two_kernels, o).nbytes == 4000);
}

TEST_CASE(
    "cast_of_swapped: a cast of a big-endian file's data() as a lazy tensor, equal to the cast of the realized copy") {
  // big_endian_i2.npy holds >i2 [1, -2, 258, -32768, 32767] (NumPy wrote it); data()'s bytes
  // are those values little-endian: 01 00 fe ff 02 01 00 80 ff 7f.
  const ti::Tensor t = ti::open_file(test_util::kSamples + "big_endian_i2.npy").tensors[0].load();
  const ti::MemoryView as_bytes = ti::cast_view(ti::data_header(t), 'B');
  const std::optional<ti::Tensor> lazy = ti::cast_of_swapped(t, as_bytes);
  REQUIRE(lazy.has_value());
  CHECK(lazy->dtype() == DType::UInt8);
  CHECK(lazy->shape() == ti::Shape{10});
  CHECK(test_util::tolist(*lazy) == "[1, 0, 254, 255, 2, 1, 0, 128, 255, 127]");
  CHECK(test_util::tolist(lazy->shrink({{7, 10}})) == "[128, 255, 127]");  // a slice reads its own bytes
  // Back to 'h' through 'B', and to 'b' in a shape: CPython's casts of the same bytes.
  const ti::MemoryView as_h = ti::cast_view(as_bytes, 'h');
  CHECK(test_util::tolist(*ti::cast_of_swapped(t, as_h)) == "[1, -2, 258, -32768, 32767]");
  const ti::MemoryView as_b = ti::cast_view(as_bytes, 'b', ti::Shape{2, 5});
  CHECK(test_util::tolist(*ti::cast_of_swapped(t, as_b)) == "[[1, 0, -2, -1, 2], [1, 0, -128, -1, 127]]");
  // Equal to the cast of the realized, swapped copy, element by element.
  const ti::MemoryView copied = ti::cast_view(ti::data(t), 'B');
  const ti::MemoryView lazily = ti::data(*lazy);
  for (std::int64_t i = 0; i < copied.numel(); ++i) CHECK(lazily.element(i).u == copied.element(i).u);
  // Nothing to gather where data() is no byte swap of a stored buffer.
  const ti::Tensor native = ti::tensor_from_literal("[1, 2]", DType::Int16);
  CHECK_FALSE(ti::cast_of_swapped(native, ti::cast_view(ti::data_header(native), 'B')).has_value());
  CHECK_FALSE(ti::cast_of_swapped(t.flip({0}), ti::cast_view(ti::data_header(t), 'B')).has_value());
}
