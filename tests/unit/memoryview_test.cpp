#include <doctest/doctest.h>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/literal.hpp"
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
  CHECK_THROWS_WITH_AS(ti::cast_view(f, 'd'),
                       "memoryview: cannot cast between two non-byte formats (cast to 'B' first: --view-as B --view-as d)", ti::Error);
  CHECK_THROWS_WITH_AS(ti::cast_view(mv("[1, 2, 3]", DType::UInt8), 'i'), "memoryview: length is not a multiple of itemsize",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::cast_view(mv("[1, 2, 3, 4]", DType::UInt8), 'i', ti::Shape{2, 2}),
                       "memoryview: product(shape) * itemsize != buffer size", ti::Error);
  CHECK_THROWS_WITH_AS(ti::cast_view(f, 'x'),
                       "memoryview: destination format must be a native single character format prefixed with an optional '@'",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::cast_view(mv("[1, 2, 3, 4]", DType::UInt8), 'B', ti::Shape{2, 0}),
                       "memoryview.cast(): elements of shape must be integers > 0", ti::Error);
  CHECK_THROWS_WITH_AS(ti::cast_view(b2, 'B', ti::Shape{2, 4}), "memoryview: cast must be 1D -> ND or ND -> 1D", ti::Error);
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
                       "Tensor.data(): realize needs 8000 bytes, over the cap of 4000 (DataOptions::max_bytes)", ti::Error);
  CHECK(ti::Buffer::cpu_allocations() == before);  // refused before any buffer was made
  o.max_bytes = 8000;
  CHECK(ti::data(two_kernels, o).element(999).f == 2.5);
  o.max_bytes = 3999;
  CHECK_THROWS_AS(ti::data(x, o), ti::Error);
  o.max_bytes = 0;  // no cap
  CHECK(ti::data(two_kernels, o).nbytes == 4000);
}
