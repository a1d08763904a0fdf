#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/tensor.hpp"

namespace ti = tensor_inspect;
using ti::DType;
using ti::Op;
using ti::Tensor;

namespace {
Tensor iota_f32(ti::Shape shape) {
  auto n = static_cast<std::size_t>(ti::prod(shape));
  auto buf = ti::Buffer::cpu(n * 4);
  for (std::size_t i = 0; i < n; ++i) {
    float v = static_cast<float>(i);
    std::memcpy(buf->mutable_bytes().data() + 4 * i, &v, 4);
  }
  return Tensor::from_buffer(buf, DType::Float32, std::move(shape));
}
Tensor scalar_like(const Tensor& t, double v) { return Tensor::full(t.shape(), ti::Scalar::from_float(v), t.dtype()); }
}  // namespace

TEST_CASE("((x + 1) * 2).exp().T.reshape(-1) over 1000x1000 is one kernel with no intermediate buffer") {
  Tensor x = iota_f32({1000, 1000});
  auto before = ti::Buffer::cpu_allocations();
  Tensor y = Tensor::binary(Op::Mul, Tensor::binary(Op::Add, x, scalar_like(x, 1)), scalar_like(x, 2))
                 .unary(Op::Exp)
                 .permute({1, 0})
                 .reshape({1000000});
  CHECK(ti::Buffer::cpu_allocations() == before);  // building allocates nothing
  auto kernels = ti::schedule(y.node());
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].kind == ti::KernelKind::Loop);
  CHECK(kernels[0].inputs.size() == 1);
  CHECK(kernels[0].inputs[0] == x.node());
  ti::NodePtr out = ti::realize(y.node());
  CHECK(ti::Buffer::cpu_allocations() == before + 1);  // the output and nothing else
  // element k of the result is x.T.flat[k]: row k % 1000, column k / 1000 of x
  auto bytes = std::get<std::shared_ptr<ti::Buffer>>(out->arg)->bytes();
  float got;
  std::memcpy(&got, bytes.data() + 4 * 1, 4);  // x[1][0] = 1000
  CHECK(got == static_cast<float>(std::exp(static_cast<double>(static_cast<float>((1000.0f + 1) * 2)))));
  std::memcpy(&got, bytes.data() + 4 * 0, 4);  // x[0][0] = 0 -> exp(2)
  CHECK(got == static_cast<float>(std::exp(2.0)));
}

TEST_CASE("movement ops allocate nothing before realize") {
  Tensor x = iota_f32({4, 6});
  auto before = ti::Buffer::cpu_allocations();
  Tensor t = x.permute({1, 0});
  Tensor e = x.reshape({4, 6, 1}).expand({4, 6, 3});
  Tensor f = x.flip({0});
  Tensor s = x.shrink({{0, 4}, {0, 6}}).reshape({2, 2, 6}).shrink({{0, 2}, {0, 1}, {0, 6}});  // x[::2]
  Tensor p = x.pad({{1, 1}, {0, 2}});
  CHECK(ti::Buffer::cpu_allocations() == before);
  CHECK(ti::schedule(t.node()).size() == 1);
  auto mv = ti::data(p);
  CHECK(mv.shape == ti::Shape{6, 8});
  CHECK(mv.element(0).f == 0.0);       // padded row
  CHECK(mv.element(8 + 1).f == 1.0);   // x[0][1]
  CHECK(mv.element(8 + 6).f == 0.0);   // padded column
  auto ms = ti::data(s);
  CHECK(ms.shape == ti::Shape{2, 1, 6});
  CHECK(ms.element(6).f == 12.0);      // x[2][0]
  auto mf = ti::data(f);
  CHECK(mf.element(0).f == 18.0);      // x[3][0]
}

TEST_CASE("reductions: sum over an axis, max keeps the first nan, empty max is -inf") {
  Tensor x = iota_f32({2, 3});
  auto s = ti::data(x.reduce(Op::ReduceSum, {1}));
  CHECK(s.shape == ti::Shape{2, 1});
  CHECK(s.element(0).f == 3.0);
  CHECK(s.element(1).f == 12.0);
  auto e = ti::data(iota_f32({0, 3}).reduce(Op::ReduceMax, {0}));
  CHECK(e.shape == ti::Shape{1, 3});
  CHECK(e.element(2).f == -INFINITY);
}

TEST_CASE("bitcast of a realized buffer is an alias, not a copy") {
  Tensor x = iota_f32({2});
  auto kernels = ti::schedule(x.bitcast(DType::UInt8).node());
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].kind == ti::KernelKind::Alias);
  auto mv = ti::data(x.bitcast(DType::UInt8));
  CHECK(mv.shape == ti::Shape{8});
  CHECK(mv.element(7).u == 0x3f);  // 1.0f = 00 00 80 3f
}

TEST_CASE("graph nodes are interned: same structure, same pointer") {
  Tensor x = iota_f32({3});
  CHECK(x.permute({0}).node() == x.node());
  auto a = Tensor::binary(Op::Add, x, scalar_like(x, 1));
  auto b = Tensor::binary(Op::Add, x, scalar_like(x, 1));
  CHECK(a.node() == b.node());
  CHECK(Tensor::binary(Op::Add, x, scalar_like(x, -0.0)).node() !=
        Tensor::binary(Op::Add, x, scalar_like(x, 0.0)).node());
}

TEST_CASE("float32 sums keep counting past 2**24 and constant inputs reduce in closed form") {
  // 2**25 ones: a float32 accumulator stalls at 16777216; the exact sum is 33554432.
  Tensor ones = Tensor::full({1 << 25}, ti::Scalar::from_float(1.0), DType::Float32);
  CHECK(ti::data(ones.reduce(Op::ReduceSum, {0})).element(0).f == 33554432.0);
  Tensor materialized = ones.contiguous();
  CHECK(ti::data(materialized.reduce(Op::ReduceSum, {0})).element(0).f == 33554432.0);
  Tensor twos = Tensor::full({3, 4}, ti::Scalar::from_int(2), DType::Int32);
  auto p = ti::data(twos.reduce(Op::ReduceProd, {1}));
  CHECK(p.element(0).i == 16);
  auto s8 = ti::data(Tensor::full({300}, ti::Scalar::from_int(1), DType::Int8).reduce(Op::ReduceSum, {0}));
  CHECK(s8.element(0).i == 44);  // 300 wraps in int8, as a C loop would
}

TEST_CASE("arange-like producers are computed inside the loop: a slice makes only the slice") {
  auto producer = std::make_shared<ti::Producer>();
  producer->label = "iota";
  producer->element = [](std::int64_t i) { return ti::Scalar::from_int(i); };
  Tensor big = Tensor::from_producer(producer, DType::Int64, {std::int64_t{1} << 40});
  auto before = ti::Buffer::cpu_allocations();
  auto mv = ti::data(big.shrink({{(std::int64_t{1} << 40) - 2, std::int64_t{1} << 40}}));
  CHECK(ti::Buffer::cpu_allocations() == before + 1);
  CHECK(mv.element(1).i == (std::int64_t{1} << 40) - 1);
}

TEST_CASE("float to int casts in kernels are Python's int() wrapped by ctypes, as in tinygrad's DEV=PYTHON") {
  // CPython: [ctypes.c_int32(int(v)).value for v in (-3e9, 300.7, -1.9, 1e10)], and the same
  // through c_int8, c_int64 and c_uint16.
  const double in[] = {-3e9, 300.7, -1.9, 1e10};
  auto buf = ti::Buffer::cpu(4 * 8);
  std::memcpy(buf->mutable_bytes().data(), in, sizeof in);
  Tensor x = Tensor::from_buffer(buf, DType::Float64, {4});
  auto i32 = ti::data(x.cast(DType::Int32));
  const std::int64_t want32[] = {1294967296, 300, -1, 1410065408};
  for (int i = 0; i < 4; ++i) CHECK(i32.element(i).i == want32[i]);
  auto i8 = ti::data(x.cast(DType::Int8));
  const std::int64_t want8[] = {0, 44, -1, 0};
  for (int i = 0; i < 4; ++i) CHECK(i8.element(i).i == want8[i]);
  auto i64 = ti::data(x.cast(DType::Int64));
  const std::int64_t want64[] = {-3000000000LL, 300, -1, 10000000000LL};
  for (int i = 0; i < 4; ++i) CHECK(i64.element(i).i == want64[i]);
  auto u16 = ti::data(x.cast(DType::UInt16));
  const std::uint64_t want16[] = {41472, 300, 65535, 58368};
  for (int i = 0; i < 4; ++i) CHECK(u16.element(i).u == want16[i]);
  // int(nan) and int(inf) raise in Python: the cast is refused, naming the value.
  for (double bad : {std::nan(""), static_cast<double>(INFINITY), -static_cast<double>(INFINITY)}) {
    auto b = ti::Buffer::cpu(8);
    std::memcpy(b->mutable_bytes().data(), &bad, 8);
    Tensor y = Tensor::from_buffer(b, DType::Float64, {1});
    CHECK_THROWS_WITH_AS(ti::data(y.cast(DType::Int32)), doctest::Contains("cannot convert float"), ti::Error);
  }
}
