// The chunked executor (lib/src/realize/execute.cpp, program.cpp): shared nodes computed
// once per chunk, loops identical on any thread count, and for_each_chunk streaming.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/tensor.hpp"

#include "test_util.hpp"

namespace ti = tensor_inspect;
using ti::DType;
using ti::Op;
using ti::Tensor;

namespace {
using test_util::tensor_of;
}  // namespace

TEST_CASE("a node used twice is computed once: t*t squared 60 times realizes at once") {
  // Without per-chunk sharing this is 2**60 evaluations.
  std::vector<std::int32_t> v = {3, -1, 2, 0};
  Tensor t = tensor_of(v, DType::Int32, {4});
  for (int i = 0; i < 60; ++i) t = Tensor::binary(Op::Mul, t, t);
  auto mv = ti::data(t);
  for (std::size_t k = 0; k < v.size(); ++k) {
    std::uint32_t want = static_cast<std::uint32_t>(v[k]);
    for (int i = 0; i < 60; ++i) want *= want;  // wraps as int32 multiplication does
    CHECK(mv.element(static_cast<std::int64_t>(k)).i == static_cast<std::int32_t>(want));
  }
}

TEST_CASE("issue 9 fault 2: x%x%x%x%x%x%x%x%x%x%x%x%x over a 2-element float tensor") {
  Tensor x = tensor_of(std::vector<float>{1.5f, -2.5f}, DType::Float32, {2});
  Tensor r = ti::evaluate_expression("x%x%x%x%x%x%x%x%x%x%x%x%x", x, {});
  auto mv = ti::data(r);
  CHECK(mv.element(0).f == 0.0);  // Python: 1.5 % 1.5 == 0.0, then 0.0 % 1.5 == 0.0 ...
  CHECK(mv.element(1).f == 0.0);
}

TEST_CASE("a fused loop over a transposed, padded, flipped view has the same bytes on 1 and 3 threads") {
  std::vector<float> v(300 * 200);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.25f;
  Tensor x = tensor_of(v, DType::Float32, {300, 200});
  Tensor y = Tensor::binary(Op::Add, x.permute({1, 0}).pad({{1, 0}, {0, 2}}).flip({1}),
                            Tensor::full({201, 302}, ti::Scalar::from_float(1.0), DType::Float32))
                 .unary(Op::Sqrt);
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  auto a = ti::data(y);
  omp_set_num_threads(3);
  auto b = ti::data(y);
  omp_set_num_threads(saved);
  REQUIRE(a.shape == ti::Shape{201, 302});
  CHECK(std::memcmp(a.buffer->bytes().data(), b.buffer->bytes().data(), a.buffer->bytes().size()) == 0);
  // element (r, c): padded row 0 and columns flipped: source column 301 - c of x.T padded
  for (std::int64_t r : {0, 1, 100, 200})
    for (std::int64_t c : {0, 1, 2, 150, 301}) {
      std::int64_t pc = 301 - c, pr = r - 1;  // undo flip, then pad
      double base = (pr < 0 || pc >= 300) ? 0.0 : static_cast<double>(v[static_cast<std::size_t>(pc * 200 + pr)]);
      float want = std::sqrt(static_cast<float>(base) + 1.0f);
      CHECK(a.element(r * 302 + c).f == static_cast<double>(want));
    }
}

TEST_CASE("for_each_chunk streams a bfloat16 tensor's transpose in C order, in bounded batches") {
  // bfloat16 bits 0x3f80 + k: exactly 1 + k/128 for k < 128.
  std::vector<std::uint16_t> bits(60 * 70);
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<std::uint16_t>(0x3f80 + i % 128);
  Tensor x = tensor_of(bits, DType::BFloat16, {60, 70});
  Tensor t = x.permute({1, 0});
  std::int64_t next = 0;
  std::size_t calls = 0;
  ti::for_each_chunk(t.node(), 1000, [&](const ti::ValueChunk& c) {
    REQUIRE(c.f != nullptr);
    CHECK(c.start == next);
    CHECK(c.size <= 2048);
    for (std::size_t k = 0; k < c.size; ++k) {
      std::int64_t flat = c.start + static_cast<std::int64_t>(k), row = flat / 60, col = flat % 60;
      std::size_t src = static_cast<std::size_t>(col * 70 + row);
      CHECK(c.f[k] == 1.0 + static_cast<double>(src % 128) / 128.0);
    }
    next += static_cast<std::int64_t>(c.size);
    ++calls;
  });
  CHECK(next == 60 * 70);
  CHECK(calls == 3);  // 4200 values in batches of 2048
  // A reduction result is realized first, then streamed; ints come as int64.
  std::vector<std::int8_t> small = {-3, 5, 7, -9};
  Tensor s = tensor_of(small, DType::Int8, {2, 2}).cast(DType::Int32).reduce(Op::ReduceSum, {1});
  std::vector<std::int64_t> got;
  ti::for_each_chunk(s.node(), 1, [&](const ti::ValueChunk& c) {
    REQUIRE(c.i != nullptr);
    for (std::size_t k = 0; k < c.size; ++k) got.push_back(c.i[k]);
  });
  CHECK(got == std::vector<std::int64_t>{2, -2});
}

TEST_CASE(
    "element formulas (which may cache, as GGUF's block decoder does) are never called from two threads at once") {
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  auto producer = std::make_shared<ti::Producer>();
  producer->label = "stateful";
  producer->element = [&](std::int64_t i) {
    if (inside.fetch_add(1) != 0) overlapped = true;
    volatile double spin = 0;
    for (int k = 0; k < 20; ++k) spin = spin + 1;
    inside.fetch_sub(1);
    return ti::Scalar::from_float(static_cast<double>(i % 7));
  };
  Tensor big = Tensor::from_producer(producer, DType::Float32, {100000});
  int saved = omp_get_max_threads();
  omp_set_num_threads(4);
  auto s = ti::data(big.reduce(Op::ReduceSum, {0}));
  auto copy = ti::data(Tensor::binary(Op::Add, big, big));
  omp_set_num_threads(saved);
  CHECK(!overlapped);
  double want = 0;
  for (std::int64_t i = 0; i < 100000; ++i) want += static_cast<double>(i % 7);
  CHECK(s.element(0).f == want);
  CHECK(copy.element(99999).f == 2.0 * static_cast<double>(99999 % 7));
}

TEST_CASE("for_each_chunk_parallel hands every fixed 2048-element chunk once, from any thread") {
  std::vector<std::int32_t> v(10000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * 37 % 1001) - 500;
  Tensor x = Tensor::binary(Op::Mul, tensor_of(v, DType::Int32, {100, 100}).permute({1, 0}),
                            Tensor::full({100, 100}, ti::Scalar::from_int(3), DType::Int32));
  std::vector<std::int64_t> sums(5, 0);
  std::vector<int> seen(5, 0);
  std::mutex m;
  int saved = omp_get_max_threads();
  omp_set_num_threads(3);
  ti::for_each_chunk_parallel(x.node(), [&](const ti::ValueChunk& c) {
    REQUIRE(c.i != nullptr);
    std::int64_t s = 0;
    for (std::size_t k = 0; k < c.size; ++k) s += c.i[k];
    std::lock_guard<std::mutex> lock(m);
    CHECK(c.start % 2048 == 0);
    CHECK(c.size == std::min<std::size_t>(2048, 10000 - static_cast<std::size_t>(c.start)));
    sums[static_cast<std::size_t>(c.start / 2048)] = s;
    ++seen[static_cast<std::size_t>(c.start / 2048)];
  });
  omp_set_num_threads(saved);
  CHECK(seen == std::vector<int>{1, 1, 1, 1, 1});
  for (std::size_t c = 0; c < 5; ++c) {
    std::int64_t want = 0;
    for (std::size_t flat = c * 2048; flat < std::min<std::size_t>(10000, (c + 1) * 2048); ++flat)
      want += 3 * v[(flat % 100) * 100 + flat / 100];  // x.T * 3
    CHECK(sums[c] == want);
  }
}

TEST_CASE("for_each_run_parallel hands every fixed run once, rounded up to whole 2048-element chunks") {
  std::vector<std::int32_t> v(10000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i * 37 % 1001) - 500;
  Tensor x = Tensor::binary(Op::Mul, tensor_of(v, DType::Int32, {100, 100}).permute({1, 0}),
                            Tensor::full({100, 100}, ti::Scalar::from_int(3), DType::Int32));
  std::vector<std::int64_t> sums(3, 0);
  std::vector<int> seen(3, 0);
  std::mutex m;
  int saved = omp_get_max_threads();
  omp_set_num_threads(3);
  ti::for_each_run_parallel(x.node(), 3000, [&](const ti::ValueChunk& c) {  // runs of 4096
    REQUIRE(c.i != nullptr);
    std::int64_t s = 0;
    for (std::size_t k = 0; k < c.size; ++k) s += c.i[k];
    std::lock_guard<std::mutex> lock(m);
    CHECK(c.start % 4096 == 0);
    CHECK(c.size == std::min<std::size_t>(4096, 10000 - static_cast<std::size_t>(c.start)));
    sums[static_cast<std::size_t>(c.start / 4096)] = s;
    ++seen[static_cast<std::size_t>(c.start / 4096)];
  });
  omp_set_num_threads(saved);
  CHECK(seen == std::vector<int>{1, 1, 1});
  for (std::size_t c = 0; c < 3; ++c) {
    std::int64_t want = 0;
    for (std::size_t flat = c * 4096; flat < std::min<std::size_t>(10000, (c + 1) * 4096); ++flat)
      want += 3 * v[(flat % 100) * 100 + flat / 100];  // x.T * 3
    CHECK(sums[c] == want);
  }
}

TEST_CASE("GGUF quantized tensors decode block runs on all threads, and agree with the element formula") {
  const ti::LoadedFile f = ti::open_file(std::string(TI_SOURCE_DIR) + "/samples/quants.gguf");
  int checked = 0;
  for (const auto& e : f.tensors) {
    if (!e.dtype || e.note.empty()) continue;  // plain types have no note; Q8_1 has no dtype (not decoded)
    CAPTURE(e.name);
    const Tensor t = e.load().reshape({ti::prod(e.shape)});
    const auto n = ti::prod(e.shape);
    auto plain = ti::data(t);                // consecutive reads: float_range
    auto flipped = ti::data(t.flip({0}));    // a moved read: element(i), serially
    for (std::int64_t i = 0; i < n; ++i) CHECK(flipped.element(n - 1 - i).f == plain.element(i).f);
    ++checked;
  }
  CHECK(checked == 14);  // Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K Q4_K Q5_K Q6_K Q8_K IQ4_NL MXFP4 TQ2_0
}
