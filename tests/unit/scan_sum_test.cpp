// Scan kernels (lib/src/realize/scan_sum.cpp): cumsum in tinygrad's order, in one pass. The
// expected values come from tinygrad's graph written out here literally (every output its
// own window sum, quadratic), and zero signs from tinygrad's CPU backend itself.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tensor_inspect/frontend.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/tensor.hpp"

#include "test_util.hpp"

namespace ti = tensor_inspect;
namespace tg = tensor_inspect::tg;
using ti::DType;
using ti::Tensor;
using test_util::tensor_of;

namespace {

// Deterministic floats in [-4, 4): an integer hash scaled, as tests/cumsum_vs_numpy.py makes them.
std::vector<float> hashed_floats(std::size_t n, std::uint64_t salt) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t h = (i * 2654435761u + salt) % (std::uint64_t{1} << 32);
    v[i] = static_cast<float>((static_cast<double>(h) / 4294967296.0 - 0.5) * 8);
  }
  return v;
}

// tinygrad 0.13's _split_cumalu for one float32 row, as its graph says it: output i of a row
// of up to 512 is the window sum 0 + x[0] + ... + x[i] in float32; a longer row is padded in
// front to a multiple of 256, each output is its chunk's window sum plus the window sum of
// the chunk totals before it. Each window is summed on its own (quadratic on purpose).
std::vector<float> tinygrad_cumsum(const std::vector<float>& x) {
  const std::size_t s = x.size();
  auto window = [](const float* v, std::size_t n) {
    float acc = 0.0f;
    for (std::size_t j = 0; j < n; ++j) acc += v[j];
    return acc;
  };
  std::vector<float> out(s);
  if (s <= 512) {
    for (std::size_t i = 0; i < s; ++i) out[i] = window(x.data(), i + 1);
    return out;
  }
  const std::size_t pad = (256 - s % 256) % 256, chunks = (s + pad) / 256;
  std::vector<float> padded(pad, 0.0f);
  padded.insert(padded.end(), x.begin(), x.end());
  std::vector<float> totals(chunks);
  for (std::size_t c = 0; c < chunks; ++c) totals[c] = window(padded.data() + 256 * c, 256);
  for (std::size_t q = pad; q < s + pad; ++q) {
    const std::size_t c = q / 256;
    const float chunk = window(padded.data() + 256 * c, q % 256 + 1);
    const float base = c == 0 ? 0.0f : window(totals.data(), c);
    out[q - pad] = chunk + base;
  }
  return out;
}

std::vector<float> floats_of(const Tensor& t) {
  ti::MemoryView mv = ti::data(t);
  std::vector<float> out;
  for (std::int64_t i = 0; i < mv.numel(); ++i) out.push_back(static_cast<float>(mv.element(i).f));
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::string signs(const std::vector<float>& v) {
  std::string s;
  for (float f : v) s += std::signbit(f) ? '-' : '+';
  return s;
}


}  // namespace

TEST_CASE("cumsum of float32 adds in tinygrad's order: whole rows up to 512, chunks of 256 with bases past it") {
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{300}, std::size_t{512}, std::size_t{513},
                        std::size_t{1000}, std::size_t{2049}}) {
    CAPTURE(n);
    const std::vector<float> x = hashed_floats(n, n);
    CHECK(same_bits(floats_of(tg::cumsum(tensor_of(x, DType::Float32), 0)), tinygrad_cumsum(x)));
  }
}

TEST_CASE("cumsum along any axis scans each lane in the same order, with the same bits on 1 and 2 threads") {
  test_util::ThreadCountGuard guard;
  const std::size_t rows = 5, cols = 700;
  const std::vector<float> x = hashed_floats(rows * cols, 3);
  const Tensor t = tensor_of(x, DType::Float32, {5, 700});
  std::vector<float> by_row(rows * cols), by_col(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::vector<float> lane = tinygrad_cumsum(std::vector<float>(
        x.begin() + static_cast<std::ptrdiff_t>(r * cols), x.begin() + static_cast<std::ptrdiff_t>((r + 1) * cols)));
    std::copy(lane.begin(), lane.end(), by_row.begin() + static_cast<std::ptrdiff_t>(r * cols));
  }
  for (std::size_t c = 0; c < cols; ++c) {
    std::vector<float> lane;
    for (std::size_t r = 0; r < rows; ++r) lane.push_back(x[r * cols + c]);
    lane = tinygrad_cumsum(lane);
    for (std::size_t r = 0; r < rows; ++r) by_col[r * cols + c] = lane[r];
  }
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    CHECK(same_bits(floats_of(tg::cumsum(t, 1)), by_row));
    CHECK(same_bits(floats_of(tg::cumsum(t, 0)), by_col));
    CHECK(same_bits(floats_of(tg::cumsum(t.permute({1, 0}), 1)), floats_of(tg::cumsum(t, 0).permute({1, 0}))));
  }
}

TEST_CASE("a slice of a cumsum scans up to its end and keeps only what it shows") {
  const std::vector<float> x = hashed_floats(3000, 9);
  const std::vector<float> want = tinygrad_cumsum(x);
  const Tensor c = tg::cumsum(tensor_of(x, DType::Float32), 0);
  // [:3] and [2990:2995]: one scan kernel, of the slice's own shape.
  const Tensor head = c.shrink({{0, 3}}), mid = c.shrink({{2990, 2995}});
  for (const Tensor& t : {head, mid}) {
    const auto kernels = ti::schedule(t.node());
    REQUIRE(kernels.size() == 1);
    CHECK(kernels[0].kind == ti::KernelKind::Scan);
    CHECK(kernels[0].output->shape == t.shape());
  }
  CHECK(same_bits(floats_of(head), std::vector<float>(want.begin(), want.begin() + 3)));
  CHECK(same_bits(floats_of(mid), std::vector<float>(want.begin() + 2990, want.begin() + 2995)));
  // Other axes shrink the input: column 4 of a (3, 1000) scan along axis 0 reads 3 values.
  const Tensor grid = tg::cumsum(tensor_of(x, DType::Float32, {3, 1000}), 0).shrink({{1, 3}, {4, 5}});
  const auto grid_kernels = ti::schedule(grid.node());
  REQUIRE(grid_kernels.size() == 1);
  CHECK(grid_kernels[0].output->shape == ti::Shape{2, 1});
  CHECK(floats_of(grid) == std::vector<float>{x[4] + x[1004], x[4] + x[1004] + x[2004]});
}

TEST_CASE("cumsum keeps a -0.0 where tinygrad's kernels do: rows up to 7, the last output up to 32") {
  // tinygrad 0.13, CPU: Tensor([-0.0] * n).cumsum() gives these signs.
  auto negative_zeros = [](std::int64_t n) {
    return Tensor::full({n}, ti::Scalar::from_float(-0.0), DType::Float32).contiguous();
  };
  CHECK(signs(floats_of(tg::cumsum(negative_zeros(5), 0))) == "-----");
  CHECK(signs(floats_of(tg::cumsum(negative_zeros(8), 0))) == "+++++++-");
  CHECK(signs(floats_of(tg::cumsum(negative_zeros(33), 0))) == std::string(33, '+'));
  CHECK(signs(floats_of(tg::cumsum(negative_zeros(600), 0))) == std::string(600, '+'));
}

TEST_CASE("cumsum of ints wraps in the sum's dtype; half rounds each chunk sum and base to half") {
  const std::vector<std::int32_t> big{2147483647, 1, 5};
  CHECK(test_util::values(tg::cumsum(tensor_of(big, DType::Int32), 0)) ==
        std::vector<double>{2147483647, -2147483648.0, -2147483643.0});
  const std::vector<std::uint8_t> bytes(600, 255);
  const Tensor u = tg::cumsum(tensor_of(bytes, DType::UInt8), 0);  // uint8 sums in uint32
  CHECK(u.dtype() == DType::UInt32);
  CHECK(test_util::values(u).back() == 600.0 * 255);
  // float16: 2049 ones; every chunk sum and base is a small integer, exact in half up to
  // 2048, and the last output, 256 + 1793, rounds to even: 2048 (tinygrad's data() too).
  const Tensor h = tg::cumsum(Tensor::full({2049}, ti::Scalar::from_float(1.0), DType::Float16).contiguous(), 0);
  CHECK(h.dtype() == DType::Float16);
  const std::vector<double> hv = test_util::values(h);
  CHECK(hv[2047] == 2048.0);
  CHECK(hv[2048] == 2048.0);
  CHECK(tg::cumsum(Tensor::full({}, ti::Scalar::from_int(3), DType::Int8), 0).dtype() == DType::Int32);  // 0-d: a cast
}
