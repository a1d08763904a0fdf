// Reductions of the typed executor (lib/src/realize/reduce.cpp): fixed blocks and a fixed
// tree, so the bits never depend on the thread count; IEEE's -0.0 identity; tinygrad's
// nan-first max; partials held a batch at a time in the same tree. Expected values come
// from plain loops written here.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "realize/kernels.hpp"
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
std::vector<float> normal_floats(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}
std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}
}  // namespace

TEST_CASE("a float32 sum of 10**6 values has the same bits on 1, 2 and 7 threads; a row sums in float32, in order") {
  test_util::ThreadCountGuard guard;
  auto v = normal_floats(1000000, 7);
  Tensor x = tensor_of(v, DType::Float32, {1000, 1000});
  double exact = 0;
  for (float f : v) exact += static_cast<double>(f);
  std::vector<std::uint64_t> got;
  for (int t : {1, 2, 7}) {
    omp_set_num_threads(t);
    got.push_back(bits_of(ti::data(x.reduce(Op::ReduceSum, {0, 1})).element(0).f));
    // An axis reduction too: 1000 outputs of 1000 elements each.
    auto rows = ti::data(x.reduce(Op::ReduceSum, {1}));
    // tinygrad's loop: a float32 accumulator from -0.0, each add rounded to float32.
    float row7 = -0.0f;
    for (std::size_t j = 0; j < 1000; ++j) row7 += v[7 * 1000 + j];
    CHECK(rows.element(7).f == static_cast<double>(row7));
  }
  CHECK(got[0] == got[1]);
  CHECK(got[0] == got[2]);
  double r;
  std::memcpy(&r, &got[0], 8);
  CHECK(std::fabs(r - exact) <= 1e-3 * std::sqrt(1e6));  // float32 accumulation error of 10**6 N(0, 1) terms
}

TEST_CASE("a sum of negative zeros is -0.0, an empty sum is +0.0") {
  std::vector<float> zeros(5000, -0.0f);  // several blocks
  for (std::size_t n : {std::size_t{2}, std::size_t{5000}}) {
    std::vector<float> z(zeros.begin(), zeros.begin() + static_cast<std::ptrdiff_t>(n));
    auto s = ti::data(tensor_of(z, DType::Float32, {static_cast<std::int64_t>(n)}).reduce(Op::ReduceSum, {0}));
    CHECK(std::signbit(s.element(0).f));
    CHECK(s.element(0).f == 0.0);
  }
  std::vector<double> d = {-0.0, -0.0, -0.0};
  CHECK(std::signbit(ti::data(tensor_of(d, DType::Float64, {3}).reduce(Op::ReduceSum, {0})).element(0).f));
  std::vector<double> mixed = {-0.0, 0.0};
  CHECK(!std::signbit(ti::data(tensor_of(mixed, DType::Float64, {2}).reduce(Op::ReduceSum, {0})).element(0).f));
  auto empty = ti::data(tensor_of(std::vector<float>{}, DType::Float32, {0}).reduce(Op::ReduceSum, {0}));
  CHECK(!std::signbit(empty.element(0).f));
}

TEST_CASE("max keeps a nan only where it comes first, in any block, on any thread count") {
  test_util::ThreadCountGuard guard;
  const std::size_t n = 10000;  // five blocks of 2048
  for (std::size_t pos : {std::size_t{0}, std::size_t{1}, std::size_t{2048}, std::size_t{9999}}) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 977) - 500.0f;
    v[pos] = NAN;
    // tinygrad's sequential select: acc = x0; acc = acc < v ? v : acc
    float want = v[0];
    for (std::size_t i = 1; i < n; ++i) want = want < v[i] ? v[i] : want;
    for (int t : {1, 2, 7}) {
      omp_set_num_threads(t);
      double got = ti::data(tensor_of(v, DType::Float32, {static_cast<std::int64_t>(n)}).reduce(Op::ReduceMax, {0}))
                       .element(0)
                       .f;
      if (std::isnan(want)) CHECK(std::isnan(got));
      else CHECK(got == static_cast<double>(want));
    }
  }
}

TEST_CASE("max of zeros keeps the first zero's sign; min over a strided axis") {
  std::vector<float> z = {-0.0f, 0.0f, -1.0f};
  CHECK(std::signbit(ti::data(tensor_of(z, DType::Float32, {3}).reduce(Op::ReduceMax, {0})).element(0).f));
  // min over axis 0 of a (3000, 3) int16 tensor: the reduced axis is not the last one.
  std::vector<std::int16_t> v(9000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int16_t>((i * 7919) % 20011 - 10000);
  auto m = ti::data(tensor_of(v, DType::Int16, {3000, 3}).reduce(Op::ReduceMin, {0}));
  for (int c = 0; c < 3; ++c) {
    std::int16_t want = INT16_MAX;
    for (int r = 0; r < 3000; ++r) want = std::min(want, v[static_cast<std::size_t>(r * 3 + c)]);
    CHECK(m.element(c).i == want);
  }
}

TEST_CASE("int sums wrap in their dtype across blocks") {
  std::vector<std::int32_t> v(100000, 2000000000);
  auto s = ti::data(tensor_of(v, DType::Int32, {100000}).reduce(Op::ReduceSum, {0}));
  std::uint32_t want = 0;
  for (auto x : v) want += static_cast<std::uint32_t>(x);
  CHECK(s.element(0).i == static_cast<std::int32_t>(want));
}

TEST_CASE("tree_fold_batched folds in tree_fold's tree while holding at most `batch` leaves") {
  // A combine that writes the tree down: "(ab)" for combine(a, b).
  auto combine = [](const std::string& a, const std::string& b) { return "(" + a + b + ")"; };
  for (std::int64_t n : {1, 2, 3, 7, 64, 100, 257, 1000}) {
    std::vector<std::string> leaves;
    for (std::int64_t i = 0; i < n; ++i) leaves.push_back(std::to_string(i) + ",");
    const std::string whole = ti::realize_detail::tree_fold(leaves.data(), n, combine);
    for (std::int64_t batch : {1, 2, 3, 8, 100, 4096}) {
      CAPTURE(n);
      CAPTURE(batch);
      std::vector<std::string> scratch;
      std::int64_t made = 0, most = 0;
      auto make = [&](std::int64_t first, std::int64_t count, std::string* out) {
        for (std::int64_t i = 0; i < count; ++i) out[i] = leaves[static_cast<std::size_t>(first + i)];
        made += count;
        most = std::max(most, count);
      };
      std::int64_t done = 0;
      CHECK(ti::realize_detail::tree_fold_batched<std::string>(0, n, batch, scratch, make, combine,
                                                               [&](std::int64_t c) { done += c; }) == whole);
      CHECK(made == n);  // each leaf made once
      CHECK(done == n);
      CHECK(most <= batch);
      CHECK(static_cast<std::int64_t>(scratch.capacity()) <= std::max<std::int64_t>(batch, 1));
    }
  }
}

TEST_CASE("a sum of more blocks than one batch holds is the fixed tree of float32 block sums, on 1 and 2 threads") {
  // 2**23 + 5 elements: 4097 blocks of 2048 (over kBatchItems = 4096), in one output and in
  // two (axis 1 of (2, n / 2)), so the tree is folded in batches.
  test_util::ThreadCountGuard guard;
  const std::size_t n = (std::size_t{1} << 23) + 6;
  auto v = normal_floats(n, 11);
  // The definition (reduce.cpp): blocks of 2048 summed left to right in float32 from -0.0,
  // the partials combined pairwise in float32, halves [0, k/2) and [k/2, k).
  auto reference = [&](std::size_t lo, std::size_t count) {
    std::vector<float> partial;
    for (std::size_t b = 0; b < count; b += 2048) {
      float s = -0.0f;
      for (std::size_t i = b; i < std::min(count, b + 2048); ++i) s += v[lo + i];
      partial.push_back(s);
    }
    const float sum = ti::realize_detail::tree_fold(partial.data(), static_cast<std::int64_t>(partial.size()),
                                                    [](float a, float b) { return a + b; });
    return static_cast<double>(sum);
  };
  const Tensor flat = tensor_of(v, DType::Float32, {static_cast<std::int64_t>(n)});
  const Tensor rows = flat.reshape({2, static_cast<std::int64_t>(n / 2)});
  for (int t : {1, 2}) {
    omp_set_num_threads(t);
    CHECK(bits_of(ti::data(flat.reduce(Op::ReduceSum, {0})).element(0).f) == bits_of(reference(0, n)));
    auto two = ti::data(rows.reduce(Op::ReduceSum, {1}));
    CHECK(bits_of(two.element(0).f) == bits_of(reference(0, n / 2)));
    CHECK(bits_of(two.element(1).f) == bits_of(reference(n / 2, n / 2)));
  }
}

TEST_CASE("a kernel of more than one batch reports its progress, ending at done == total; a small one stays quiet") {
  std::vector<std::pair<std::int64_t, std::int64_t>> reports;
  auto saved = ti::set_progress_hook([&](std::int64_t done, std::int64_t total) { reports.emplace_back(done, total); });
  // 2**25 broadcast ones: 16384 blocks, four batches of 4096.
  const Tensor row = Tensor::full({1, 1 << 12}, ti::Scalar::from_float(1.0), DType::Float32).contiguous();
  const double sum = ti::data(row.expand({1 << 13, 1 << 12}).reduce(Op::ReduceSum, {0, 1})).element(0).f;
  const auto big = reports;
  reports.clear();
  (void)ti::data(row.expand({2, 1 << 12}).reduce(Op::ReduceSum, {0, 1}));
  ti::set_progress_hook(std::move(saved));
  CHECK(sum == 33554432.0);
  REQUIRE(big.size() == 4);
  for (std::size_t i = 0; i < big.size(); ++i)
    CHECK(big[i] == std::pair<std::int64_t, std::int64_t>{4096 * static_cast<std::int64_t>(i + 1), 16384});
  CHECK(reports.empty());
}
