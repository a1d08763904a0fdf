// tests/unit/scan_test.cpp — stats/scan.cpp: a scan over a memory-mapped file gives the same
// bits on any number of threads, and whether or not its pages are released.
#include <doctest/doctest.h>
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "test_util.hpp"
#include "tensor_inspect/stats.hpp"

namespace ti = tensor_inspect;

namespace {

// bfloat16 words of a deterministic wave, with zeros of both signs and one nan.
std::vector<std::uint16_t> wave_bf16(std::size_t n) {
  std::vector<std::uint16_t> w(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto f =
        static_cast<float>(std::sin(static_cast<double>(i) * 0.001) * 0.05 + 1e-3 * std::cos(static_cast<double>(i)));
    w[i] = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(f) >> 16);
  }
  for (std::size_t i = 1000; i < n; i += 1'000'003) w[i] = static_cast<std::uint16_t>(i % 2 ? 0x8000u : 0u);
  w[n / 2 + 5] = 0x7fc0;  // nan
  return w;
}

float bf16_value(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("a file scan gives the same bits on 1, 2 and 3 threads, with and without releasing pages") {
  // 6,000,007 elements: 92 chunks of 65536, so with 2 and 3 threads each thread scans and
  // releases runs of several chunks; 8 bytes before the data put every chunk off page
  // boundaries.
  const std::vector<std::uint16_t> words = wave_bf16(6'000'007);
  std::string content(8, 'x');
  content.append(reinterpret_cast<const char*>(words.data()), words.size() * 2);
  const test_util::TempDir dir("ti_scan_test_");
  const auto file = ti::MappedFile::open(dir.write("wave.bin", content));
  REQUIRE(file->is_mapped());
  ti::StoredElements s;
  s.bytes = file->bytes().subspan(8);
  s.stored = ti::DType::BFloat16;
  s.numel = static_cast<std::int64_t>(words.size());
  s.shape = {s.numel};
  s.file = file;

  // The counts and extrema by a plain loop over the words.
  std::uint64_t nan = 0, zero = 0;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (std::uint16_t h : words) {
    const float v = bf16_value(h);
    if (std::isnan(v)) ++nan;
    else {
      zero += v == 0;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }

  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const ti::TensorStats one = ti::compute_stats(s);
  const ti::Histogram h1 = ti::compute_histogram(s, 33, *one.min_value(), *one.max_value());
  CHECK(one.nan == nan);
  CHECK(one.zero == zero);
  CHECK(one.zero >= 5);
  CHECK(one.min.f == static_cast<double>(lo));
  CHECK(one.max.f == static_cast<double>(hi));
  for (int threads : {1, 2, 3})
    for (bool release : {false, true}) {
      CAPTURE(threads);
      CAPTURE(release);
      omp_set_num_threads(threads);
      ti::ScanOptions o;
      o.release_pages = release;
      const ti::TensorStats st = ti::compute_stats(s, o);
      CHECK(same_bits(st.mean, one.mean));
      CHECK(same_bits(st.std, one.std));
      CHECK(st.min.f == one.min.f);
      CHECK(st.max.f == one.max.f);
      CHECK(st.zero == one.zero);
      CHECK(st.nan == one.nan);
      CHECK(st.finite == one.finite);
      const ti::Histogram h = ti::compute_histogram(s, 33, *one.min_value(), *one.max_value(), o);
      CHECK(h.counts == h1.counts);
      CHECK(h.nan == 1);
    }
  omp_set_num_threads(before);
  // Released pages read the file again.
  CHECK(std::memcmp(s.bytes.data(), words.data(), words.size() * 2) == 0);
}
