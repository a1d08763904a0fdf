// tests/unit/stats_test.cpp — statistics, histograms and decoders
// (lib/src/stats/), against values checked by hand or computed by the dtype module's own
// scalar conversions; NumPy comparisons are in tests/stats_vs_numpy.py.
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "test_util.hpp"
#include "tensor_inspect/plot.hpp"
#include "stats/float_moments.hpp"
#include "tensor_inspect/stats.hpp"

namespace ti = tensor_inspect;

namespace {
using test_util::tensor_of;


ti::TensorStats stats_of(const ti::Tensor& t) { return ti::compute_stats(ti::scan_source(t)); }

// Every bit pattern of a 16-bit dtype, decoded by the scan and by dtype.hpp's conversion.
void check_all_patterns(ti::DType dtype, double (*reference)(std::uint16_t)) {
  std::vector<std::uint16_t> bits(65536);
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<std::uint16_t>(i);
  const ti::StoredElements s = ti::scan_source(tensor_of(bits, dtype));
  std::vector<double> got(bits.size());
  ti::decode_values(s, 0, got);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const double want = reference(bits[i]);
    const bool same =
        std::isnan(want) ? std::isnan(got[i]) : got[i] == want && std::signbit(got[i]) == std::signbit(want);
    wrong += !same;
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("stats of [1, 2, 3, 4] are the hand-computed ones") {
  const ti::TensorStats s = stats_of(tensor_of(std::vector<float>{1, 2, 3, 4}, ti::DType::Float32));
  CHECK(s.count == 4);
  CHECK(s.finite == 4);
  CHECK(s.min.f == 1.0);
  CHECK(s.max.f == 4.0);
  CHECK(s.mean == 2.5);
  CHECK(s.std == doctest::Approx(std::sqrt(1.25)).epsilon(1e-15));
  CHECK(s.absmax.f == 4.0);
  CHECK(s.zero == 0);
}

TEST_CASE("float stats are over the finite values; nan, +inf, -inf and zeros are counted apart") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const ti::TensorStats s =
      stats_of(tensor_of(std::vector<float>{nan, -2, inf, 0, -0.0f, -inf, 6, nan}, ti::DType::Float32));
  CHECK(s.count == 8);
  CHECK(s.finite == 4);
  CHECK(s.nan == 2);
  CHECK(s.posinf == 1);
  CHECK(s.neginf == 1);
  CHECK(s.zero == 2);
  CHECK(s.min.f == -2.0);
  CHECK(s.max.f == 6.0);
  CHECK(s.mean == 1.0);
  CHECK(s.std == doctest::Approx(std::sqrt((9 + 1 + 1 + 25) / 4.0)));
  CHECK(s.absmax.f == 6.0);
}

TEST_CASE("absmax of signed zeros is +0.0, as NumPy's np.abs(x).max() gives") {
  for (const std::vector<float>& zeros : {std::vector<float>{0.0f, -0.0f}, std::vector<float>{-0.0f, 0.0f, -0.0f}}) {
    const ti::TensorStats s = stats_of(tensor_of(zeros, ti::DType::Float32));
    CHECK(s.zero == zeros.size());
    CHECK(s.absmax.f == 0.0);
    CHECK_FALSE(std::signbit(s.absmax.f));
  }
}

TEST_CASE("all-nan and empty tensors have counts but no min/max") {
  const ti::TensorStats a = stats_of(tensor_of(std::vector<float>(5, NAN), ti::DType::Float32));
  CHECK(a.finite == 0);
  CHECK(a.nan == 5);
  CHECK_FALSE(a.min_value().has_value());
  const ti::TensorStats e = stats_of(tensor_of(std::vector<float>{}, ti::DType::Float32));
  CHECK(e.count == 0);
  CHECK_FALSE(e.max_value().has_value());
}

TEST_CASE("int64 extremes are exact: 128-bit sum, absmax of INT64_MIN is 2^63") {
  const auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  const ti::TensorStats s = stats_of(tensor_of(std::vector<std::int64_t>{lo, hi, lo, hi, 0}, ti::DType::Int64));
  CHECK(s.min.i == lo);
  CHECK(s.max.i == hi);
  CHECK(s.absmax.u == (std::uint64_t{1} << 63));
  CHECK(s.mean == -2.0 / 5.0);  // the exact sum is -2
  CHECK(s.zero == 1);
  const ti::TensorStats u = stats_of(tensor_of(std::vector<std::uint64_t>(3, ~std::uint64_t{0}), ti::DType::UInt64));
  CHECK(u.max.u == ~std::uint64_t{0});
  CHECK(u.mean == 18446744073709551615.0);
  CHECK(u.std == 0.0);
}

TEST_CASE("bool stats count True as 1") {
  const ti::TensorStats s = stats_of(tensor_of(std::vector<std::uint8_t>{1, 0, 1, 1}, ti::DType::Bool));
  CHECK(s.min.kind == ti::DKind::Bool);
  CHECK_FALSE(s.min.b);
  CHECK(s.max.b);
  CHECK(s.mean == 0.75);
  CHECK(s.zero == 1);
}

TEST_CASE("decoders match dtype.hpp on every float16, bfloat16 and fp8 bit pattern") {
  check_all_patterns(ti::DType::Float16, ti::float16_to_double);
  check_all_patterns(ti::DType::BFloat16, ti::bfloat16_to_double);
  for (ti::DType d : {ti::DType::FP8E4M3, ti::DType::FP8E5M2}) {
    std::vector<std::uint8_t> bits(256);
    for (std::size_t i = 0; i < 256; ++i) bits[i] = static_cast<std::uint8_t>(i);
    std::vector<double> got(256);
    ti::decode_values(ti::scan_source(tensor_of(bits, d)), 0, got);
    for (std::size_t i = 0; i < 256; ++i) {
      const double want = ti::fp8_to_double(bits[i], d);
      CHECK((std::isnan(want) ? std::isnan(got[i]) : got[i] == want));
    }
  }
}

TEST_CASE("results do not depend on the number of threads") {
  std::vector<float> v(1'000'003);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(static_cast<double>(i)) * 1e3 + 1e4);
  const ti::StoredElements s = ti::scan_source(tensor_of(v, ti::DType::Float32));
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const ti::TensorStats one = ti::compute_stats(s);
  omp_set_num_threads(5);
  const ti::TensorStats five = ti::compute_stats(s);
  omp_set_num_threads(before);
  CHECK(std::memcmp(&one.mean, &five.mean, sizeof(double)) == 0);
  CHECK(std::memcmp(&one.std, &five.std, sizeof(double)) == 0);
  CHECK(one.min.f == five.min.f);
}

TEST_CASE("stored_elements reads bijective views in place and refuses slices") {
  const ti::Tensor t = tensor_of(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}, ti::DType::Int32, {2, 3});
  auto in_place = ti::stored_elements(t.permute({1, 0}).flip({0}).reshape({6}));
  REQUIRE(in_place.has_value());
  CHECK_FALSE(in_place->c_order);
  CHECK(in_place->numel == 6);
  CHECK(ti::stored_elements(t)->c_order);
  CHECK_FALSE(ti::stored_elements(t.shrink({{0, 1}, {0, 3}})).has_value());
  // A slice is realized instead, and its stats are the slice's.
  const ti::TensorStats s = stats_of(t.shrink({{1, 2}, {0, 3}}));
  CHECK(s.min.i == 4);
  CHECK(s.max.i == 6);
}

TEST_CASE("big-endian storage (byteswap + bitcast, as loaders build it) is decoded") {
  std::vector<std::uint32_t> be;
  for (float f : {1.5f, -2.0f}) {
    std::uint32_t u = 0;
    std::memcpy(&u, &f, 4);
    be.push_back(__builtin_bswap32(u));
  }
  const ti::Tensor t = tensor_of(be, ti::DType::UInt32).byteswap().bitcast(ti::DType::Float32);
  const ti::TensorStats s = stats_of(t);
  CHECK(s.min.f == -2.0);
  CHECK(s.max.f == 1.5);
}

TEST_CASE("histogram bins follow np.histogram: edges from linspace, last bin closed") {
  const ti::StoredElements s =
      ti::scan_source(tensor_of(std::vector<double>{0, 0.25, 0.5, 0.75, 1, NAN, 2}, ti::DType::Float64));
  const ti::Histogram h = ti::compute_histogram(s, 4, 0.0, 1.0);
  CHECK(h.counts == std::vector<std::uint64_t>{1, 1, 1, 2});
  CHECK(h.nan == 1);
  CHECK(h.outside == 1);
  CHECK(h.edge(1) == 0.25);
  CHECK(h.edge(4) == 1.0);
  const ti::Histogram same = ti::compute_histogram(s, 2, 3.0, 3.0);  // lo == hi widens by 0.5
  CHECK(same.lo == 2.5);
  CHECK(same.hi == 3.5);
  CHECK(test_util::code_of([&] { ti::compute_histogram(s, 0, 0, 1); }) == ti::ErrorCode::Usage);
}

TEST_CASE("GGUF blocks are scanned in place: Q8_0 of d=0.5 and qs 0..31") {
  std::vector<std::byte> block(34);
  const std::uint16_t d = ti::float16_from_double(0.5);
  std::memcpy(block.data(), &d, 2);
  for (int i = 0; i < 32; ++i) block[static_cast<std::size_t>(2 + i)] = static_cast<std::byte>(i - 16);
  const ti::StoredElements s = ti::gguf_blocks_source(block, 8, {32}, nullptr);
  const ti::TensorStats st = ti::compute_stats(s);
  CHECK(st.min.f == -8.0);
  CHECK(st.max.f == 7.5);
  CHECK(st.mean == -0.25);
  CHECK(st.zero == 1);
  CHECK(test_util::code_of([&] { ti::gguf_blocks_source(block, 8, {33}, nullptr); }) == ti::ErrorCode::BadFile);
}

TEST_CASE("release_pages leaves bytes held in memory untouched") {
  std::vector<std::byte> bytes(1 << 20, std::byte{7});
  auto file = ti::MappedFile::from_bytes(bytes, "mem");
  file->release_pages(0, file->size());
  CHECK(file->bytes()[4096 * 3] == std::byte{7});
}

namespace {

// Blocks of float32 values for the float lane's kernel: a deterministic LCG, with the
// specials a block may hold.
std::vector<float> lane_block(std::size_t n, double mean, double spread, std::uint32_t seed) {
  std::vector<float> x(n);
  std::uint32_t state = seed;
  for (float& v : x) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(mean + spread * (static_cast<double>(state >> 8) / 16777216.0 - 0.5));
  }
  return x;
}

// The moments of the finite values, two passes in long double: the reference.
void reference_moments(const std::vector<float>& x, long double& sum, long double& m2, std::size_t& finite) {
  sum = 0;
  finite = 0;
  for (float v : x)
    if (std::isfinite(v)) {
      sum += v;
      ++finite;
    }
  const long double mean = finite ? sum / static_cast<long double>(finite) : 0;
  m2 = 0;
  for (float v : x)
    if (std::isfinite(v)) m2 += (v - mean) * (v - mean);
}

}  // namespace

TEST_CASE(
    "the float lane's one-pass block kernel: the same bits on the AVX2 and baseline loops, and a long double "
    "two-pass's moments") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* what;
    std::vector<float> x;
  };
  std::vector<Case> cases;
  cases.push_back({"clean, 4096", lane_block(4096, 0.0, 0.1, 1)});
  cases.push_back({"a ragged tail, 4093", lane_block(4093, 3.0, 1.0, 2)});
  cases.push_back({"mean 1e6, spread 1e-2", lane_block(4096, 1e6, 1e-2, 3)});
  cases.push_back({"mean -3e4, spread 1e-3", lane_block(4000, -3e4, 1e-3, 4)});
  Case zeros{"zeros and -0.0", lane_block(4096, 0.0, 2.0, 5)};
  for (std::size_t i = 0; i < 4096; i += 7) zeros.x[i] = i % 2 ? -0.0f : 0.0f;
  cases.push_back(zeros);
  Case specials{"nan and inf inside", lane_block(4096, 5.0, 1.0, 6)};
  specials.x[100] = nan;
  specials.x[2000] = inf;
  specials.x[4095] = -inf;
  cases.push_back(specials);
  Case led{"led by a nan", lane_block(300, 1.0, 1.0, 7)};
  led.x[0] = nan;
  cases.push_back(led);
  cases.push_back({"only nan", std::vector<float>(40, nan)});
  cases.push_back({"a short block, 5", {1.5f, -2.0f, 0.0f, 8.0f, 3.25f}});
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const auto n = static_cast<std::int64_t>(c.x.size());
    const auto* bytes = reinterpret_cast<const std::byte*>(c.x.data());
    ti::StoredElements s;
    s.stored = ti::DType::Float32;
    const ti::Moments fast = ti::stored_block_kernel(s)(bytes, n);
    const ti::Moments base = ti::block_moments_baseline(bytes, n, ti::DType::Float32);
    CHECK(fast.count == base.count);
    CHECK(fast.finite == base.finite);
    CHECK(std::memcmp(&fast.fsum, &base.fsum, sizeof(double)) == 0);
    CHECK(std::memcmp(&fast.m2, &base.m2, sizeof(double)) == 0);
    CHECK(fast.fmin == base.fmin);
    CHECK(fast.fmax == base.fmax);
    CHECK(fast.zero == base.zero);
    CHECK(fast.nan == base.nan);
    CHECK(fast.posinf == base.posinf);
    CHECK(fast.neginf == base.neginf);
    long double sum = 0, m2 = 0;
    std::size_t finite = 0;
    reference_moments(c.x, sum, m2, finite);
    CHECK(fast.finite == static_cast<std::int64_t>(finite));
    if (finite == 0) continue;
    CHECK(static_cast<long double>(fast.fsum) == doctest::Approx(static_cast<double>(sum)).epsilon(1e-13));
    CHECK(fast.m2 == doctest::Approx(static_cast<double>(m2)).epsilon(1e-12));
  }
  // bfloat16 words: the high halves of one of the blocks above, read by both loops.
  std::vector<std::uint16_t> words;
  for (float v : cases[5].x) words.push_back(static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(v) >> 16));
  ti::StoredElements bf;
  bf.stored = ti::DType::BFloat16;
  const auto* bytes = reinterpret_cast<const std::byte*>(words.data());
  const ti::Moments fast = ti::stored_block_kernel(bf)(bytes, 4096),
                    base = ti::block_moments_baseline(bytes, 4096, ti::DType::BFloat16);
  CHECK(std::memcmp(&fast.fsum, &base.fsum, sizeof(double)) == 0);
  CHECK(std::memcmp(&fast.m2, &base.m2, sizeof(double)) == 0);
  CHECK(fast.finite == 4093);
  CHECK(fast.nan == 1);
  // float16 words: every bit pattern (nan, inf, subnormals, zeros), 16 blocks read by both
  // loops, and the moments of a block of normals against the long double reference.
  ti::StoredElements f16;
  f16.stored = ti::DType::Float16;
  std::vector<std::uint16_t> halves(65536);
  for (std::size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<std::uint16_t>(i * 40503u);  // a permutation
  for (std::size_t b = 0; b < halves.size(); b += 4096) {
    const auto* h = reinterpret_cast<const std::byte*>(halves.data() + b);
    const ti::Moments f = ti::stored_block_kernel(f16)(h, 4096),
                      g = ti::block_moments_baseline(h, 4096, ti::DType::Float16);
    CHECK(std::memcmp(&f.fsum, &g.fsum, sizeof(double)) == 0);
    CHECK(std::memcmp(&f.m2, &g.m2, sizeof(double)) == 0);
    CHECK(f.finite == g.finite);
    CHECK(f.nan + f.posinf + f.neginf + static_cast<std::uint64_t>(f.finite) == 4096);
  }
  std::vector<float> normal;
  std::vector<std::uint16_t> normal_halves;
  for (std::uint32_t i = 0; i < 4096; ++i) {  // halves in [-4, -1) and [1, 4): exponents 15 and 16
    const auto h =
        static_cast<std::uint16_t>(0x3C00u + (i * 2654435761u >> 21) % 0x0800u + (i % 3 == 0 ? 0x8000u : 0u));
    normal_halves.push_back(h);
    normal.push_back(static_cast<float>(ti::float16_to_double(h)));
  }
  long double sum = 0, m2 = 0;
  std::size_t finite = 0;
  reference_moments(normal, sum, m2, finite);
  const ti::Moments h = ti::stored_block_kernel(f16)(reinterpret_cast<const std::byte*>(normal_halves.data()), 4096);
  CHECK(h.fsum == doctest::Approx(static_cast<double>(sum)).epsilon(1e-13));
  CHECK(h.m2 == doctest::Approx(static_cast<double>(m2)).epsilon(1e-12));
}
