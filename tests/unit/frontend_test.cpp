#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/frontend.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
namespace tg = tensor_inspect::tg;
using ti::DType;
using ti::Scalar;
using ti::Shape;
using ti::Tensor;

namespace {

using test_util::values;

Tensor ints(std::vector<std::int64_t> v, DType d, Shape shape = {}) {
  std::vector<Scalar> s;
  for (std::int64_t x : v) s.push_back(Scalar::from_int(x));
  if (shape.empty()) shape = {static_cast<std::int64_t>(v.size())};
  return tg::from_values(s, shape, d);
}

Tensor floats(std::vector<double> v, DType d = DType::Float32) {
  std::vector<Scalar> s;
  for (double x : v) s.push_back(Scalar::from_float(x));
  return tg::from_values(s, {static_cast<std::int64_t>(v.size())}, d);
}

// 0, 1, 2, ... in C order over `shape` (int32).
Tensor iota(const Shape& shape) { return tg::reshape(tg::arange(Scalar::from_int(0), Scalar::from_int(ti::prod(shape)), Scalar::from_int(1), std::nullopt), shape); }

// C-order multi-index of flat index i.
std::vector<std::int64_t> unravel(std::int64_t i, const Shape& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    idx[k] = i % shape[k];
    i /= shape[k];
  }
  return idx;
}
std::int64_t ravel(const std::vector<std::int64_t>& idx, const Shape& shape) {
  std::int64_t r = 0;
  for (std::size_t k = 0; k < shape.size(); ++k) r = r * shape[k] + idx[k];
  return r;
}

Shape random_shape(std::mt19937& rng, std::size_t max_ndim = 4) {
  std::uniform_int_distribution<std::size_t> nd(1, max_ndim);
  std::uniform_int_distribution<std::int64_t> dim(1, 4);
  Shape s(nd(rng));
  for (auto& d : s) d = dim(rng);
  return s;
}

// Python's slice(start, stop, step).indices(n) followed by range(): the selected indices.
std::vector<std::int64_t> python_slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop, std::int64_t step,
                                       std::int64_t n) {
  std::int64_t lo, hi;
  if (step > 0) {
    lo = start ? (*start < 0 ? std::max<std::int64_t>(*start + n, 0) : std::min(*start, n)) : 0;
    hi = stop ? (*stop < 0 ? std::max<std::int64_t>(*stop + n, 0) : std::min(*stop, n)) : n;
  } else {
    lo = start ? (*start < 0 ? std::max<std::int64_t>(*start + n, -1) : std::min(*start, n - 1)) : n - 1;
    hi = stop ? (*stop < 0 ? std::max<std::int64_t>(*stop + n, -1) : std::min(*stop, n - 1)) : -1;
  }
  std::vector<std::int64_t> out;
  for (std::int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) out.push_back(i);
  return out;
}

}  // namespace

TEST_CASE("promotion follows tinygrad's lattice with weak Python scalars") {
  auto t = [](DType d) { return tg::Operand(Tensor::full({2}, Scalar::from_int(1), d)); };
  CHECK(tg::add(t(DType::Int8), t(DType::UInt8)).dtype() == DType::Int16);
  CHECK(tg::add(t(DType::Int32), t(DType::UInt32)).dtype() == DType::Int64);
  CHECK(tg::add(t(DType::Int64), t(DType::UInt64)).dtype() == DType::WeakFloat);
  CHECK(tg::add(t(DType::Float16), t(DType::BFloat16)).dtype() == DType::Float32);
  CHECK(tg::add(t(DType::Int8), Scalar::from_int(1)).dtype() == DType::Int8);
  CHECK(tg::mul(t(DType::Int8), Scalar::from_float(1.5)).dtype() == DType::WeakFloat);
  CHECK(tg::add(t(DType::Bool), Scalar::from_int(1)).dtype() == DType::WeakInt);
  CHECK(tg::add(t(DType::UInt8), Scalar::from_bool(true)).dtype() == DType::UInt8);
  CHECK(tg::add(t(DType::Float16), Scalar::from_float(0.1)).dtype() == DType::Float16);
  CHECK(tg::add(t(DType::Int32), t(DType::Float16)).dtype() == DType::Float16);
  CHECK(tg::div(t(DType::Int32), Scalar::from_int(2)).dtype() == DType::Float32);
  CHECK(tg::div(t(DType::Float16), Scalar::from_int(2)).dtype() == DType::Float16);
  CHECK(tg::cmp_lt(t(DType::Float64), Scalar::from_int(2)).dtype() == DType::Bool);
}

TEST_CASE("ints wrap in the promoted dtype while Python-scalar comparisons use exact values") {
  CHECK(values(tg::add(ints({127, -128}, DType::Int8), Scalar::from_int(1))) == std::vector<double>{-128, -127});
  CHECK(values(tg::sub(Scalar::from_int(2), ints({1, 2, 3}, DType::UInt8))) == std::vector<double>{1, 0, 255});
  CHECK(values(tg::cmp_gt(ints({0, 1, 255}, DType::UInt8), Scalar::from_int(-1))) == std::vector<double>{1, 1, 1});
  CHECK(values(tg::cmp_lt(ints({0, 1, 255}, DType::UInt8), Scalar::from_int(-1))) == std::vector<double>{0, 0, 0});
  CHECK(values(tg::cmp_lt(ints({-128, 127}, DType::Int8), Scalar::from_int(200))) == std::vector<double>{1, 1});
  CHECK(values(tg::cmp_eq(ints({44}, DType::UInt8), Scalar::from_int(300))) == std::vector<double>{0});
  Tensor u8 = ints({1, 2, 3}, DType::UInt8);
  CHECK(values(tg::where(tg::cmp_gt(u8, Scalar::from_int(1)), u8, Scalar::from_int(-1))) == std::vector<double>{255, 2, 3});
  CHECK(values(tg::add(ints({1}, DType::Int64), Scalar::from_int(std::int64_t{1} << 40))) == std::vector<double>{1099511627777.0});
}

TEST_CASE("true division is a * (1/b) in a float; ints divided by zero give inf, -inf and nan") {
  std::vector<double> r = values(tg::div(ints({7, -7, 0}, DType::Int32), Scalar::from_int(0)));
  CHECK(r[0] == INFINITY);
  CHECK(r[1] == -INFINITY);
  CHECK(std::isnan(r[2]));
  // float32(10) * float32(1/3), not float32(10/3)
  CHECK(values(tg::div(ints({10}, DType::Int32), Scalar::from_int(3)))[0] == static_cast<double>(10.0f * (1.0f / 3.0f)));
}

TEST_CASE("// and % follow Python: floor division, remainder with the divisor's sign") {
  std::vector<std::int64_t> a = {7, -7, 7, -7, 6, -6, 0, 1};
  std::vector<std::int64_t> b = {2, 2, -2, -2, 3, -3, 5, -5};
  std::vector<double> q = values(tg::floordiv(ints(a, DType::Int32), ints(b, DType::Int32)));
  std::vector<double> m = values(tg::mod(ints(a, DType::Int32), ints(b, DType::Int32)));
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    double fq = std::floor(static_cast<double>(a[i]) / static_cast<double>(b[i]));
    CHECK(q[i] == fq);
    CHECK(m[i] == static_cast<double>(a[i]) - fq * static_cast<double>(b[i]));
  }
  CHECK(values(tg::floordiv(floats({7.5, -7.5}), Scalar::from_int(2))) == std::vector<double>{3.0, -4.0});
  CHECK(values(tg::mod(floats({7.5, -7.5}), Scalar::from_int(2))) == std::vector<double>{1.5, 0.5});
}

TEST_CASE("** keeps ints int and gives nan for a negative base with a fractional exponent") {
  CHECK(values(tg::pow(Scalar::from_int(2), ints({1, 2, 3}, DType::Int32))) == std::vector<double>{2, 4, 8});
  CHECK(tg::pow(ints({2}, DType::Int32), Scalar::from_float(0.5)).dtype() == DType::WeakFloat);
  CHECK(std::isnan(values(tg::pow(floats({-8.0}), Scalar::from_float(1.0 / 3.0)))[0]));
}

TEST_CASE("broadcasting aligns shapes from the right and refuses mismatches") {
  Tensor col = ints({1, 2}, DType::Int32, {2, 1});
  Tensor row = ints({10, 20, 30}, DType::Int32);
  Tensor s = tg::add(col, row);
  CHECK(s.shape() == Shape{2, 3});
  CHECK(values(s) == std::vector<double>{11, 21, 31, 12, 22, 32});
  CHECK(tg::broadcast_shape({5, 1, 3}, {4, 1}) == Shape{5, 4, 3});
  CHECK_THROWS_WITH_AS(tg::add(row, ints({1, 2}, DType::Int32)), "cannot broadcast (3,) with (2,)", ti::Error);
}

TEST_CASE("permute, flip, shrink, pad and expand match NumPy index arithmetic on random shapes") {
  for (unsigned seed = 0; seed < 60; ++seed) {
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Shape shape = random_shape(rng);
    Tensor x = iota(shape);
    std::size_t nd = shape.size();

    // permute
    std::vector<std::int64_t> order(nd);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    Tensor p = tg::permute(x, order);
    std::vector<double> pv = values(p);
    for (std::int64_t i = 0; i < p.numel(); ++i) {
      std::vector<std::int64_t> out = unravel(i, p.shape()), in(nd);
      for (std::size_t k = 0; k < nd; ++k) in[static_cast<std::size_t>(order[k])] = out[k];
      REQUIRE(pv[static_cast<std::size_t>(i)] == static_cast<double>(ravel(in, shape)));
    }

    // flip of a random subset of axes (negative spelling for half of them)
    std::vector<std::int64_t> axes;
    std::vector<bool> flipped(nd, false);
    for (std::size_t k = 0; k < nd; ++k)
      if (rng() % 2) {
        axes.push_back(rng() % 2 ? static_cast<std::int64_t>(k) : static_cast<std::int64_t>(k) - static_cast<std::int64_t>(nd));
        flipped[k] = true;
      }
    std::vector<double> fv = values(tg::flip(x, axes));
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      std::vector<std::int64_t> idx = unravel(i, shape);
      for (std::size_t k = 0; k < nd; ++k)
        if (flipped[k]) idx[k] = shape[k] - 1 - idx[k];
      REQUIRE(fv[static_cast<std::size_t>(i)] == static_cast<double>(ravel(idx, shape)));
    }

    // shrink then pad (pad reads zeros outside)
    std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> sh(nd), pd(nd);
    for (std::size_t k = 0; k < nd; ++k) {
      std::int64_t b = static_cast<std::int64_t>(rng() % static_cast<unsigned>(shape[k] + 1));
      std::int64_t e = b + static_cast<std::int64_t>(rng() % static_cast<unsigned>(shape[k] - b + 1));
      sh[k] = std::pair{b, e};
      pd[k] = std::pair<std::int64_t, std::int64_t>{rng() % 3, rng() % 3};
    }
    Tensor s = tg::shrink(x, sh);
    Tensor sp = tg::pad(s, pd);
    std::vector<double> spv = values(sp);
    if (sp.numel() > 0) {
      for (std::int64_t i = 0; i < sp.numel(); ++i) {
        std::vector<std::int64_t> idx = unravel(i, sp.shape());
        bool inside = true;
        for (std::size_t k = 0; k < nd; ++k) {
          idx[k] -= pd[k]->first;
          inside = inside && idx[k] >= 0 && idx[k] < sh[k]->second - sh[k]->first;
          idx[k] += sh[k]->first;
        }
        REQUIRE(spv[static_cast<std::size_t>(i)] == (inside ? static_cast<double>(ravel(idx, shape)) : 0.0));
      }
    }

    // expand: a size-1 axis per position, broadcast to a new size, plus a new leading axis
    Shape ones_shape = shape;
    std::size_t axis = rng() % nd;
    ones_shape[axis] = 1;
    Tensor one = tg::shrink(x, [&] {
      std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> r(nd);
      r[axis] = std::pair<std::int64_t, std::int64_t>{0, 1};
      return r;
    }());
    Shape target = shape;
    target.insert(target.begin(), 2);
    Tensor e = tg::expand(one, target);
    std::vector<double> ev = values(e);
    for (std::int64_t i = 0; i < e.numel(); ++i) {
      std::vector<std::int64_t> idx = unravel(i, target);
      idx.erase(idx.begin());
      idx[axis] = 0;
      REQUIRE(ev[static_cast<std::size_t>(i)] == static_cast<double>(ravel(idx, shape)));
    }
  }
}

TEST_CASE("basic indexing matches Python slicing with negative steps, None and ellipsis on random shapes") {
  using K = tg::IndexItem::Kind;
  for (unsigned seed = 0; seed < 80; ++seed) {
    CAPTURE(seed);
    std::mt19937 rng(seed + 1000);
    Shape shape = random_shape(rng, 3);
    Tensor x = iota(shape);
    std::vector<tg::IndexItem> items;
    std::vector<std::vector<std::int64_t>> picks;  // per input axis: selected indices
    std::vector<bool> keeps;                        // per input axis: axis kept (slice) or dropped (int)
    Shape expected_shape;
    std::uniform_int_distribution<std::int64_t> bound(-6, 6);
    for (std::size_t k = 0; k < shape.size(); ++k) {
      if (rng() % 4 == 0) {
        items.push_back({K::NewAxis, 0, {}, {}, {}});
        expected_shape.push_back(1);
      }
      if (rng() % 3 == 0) {
        std::int64_t i = static_cast<std::int64_t>(rng() % static_cast<unsigned>(shape[k]));
        if (rng() % 2) i -= shape[k];
        items.push_back({K::Int, i, {}, {}, {}});
        picks.push_back({i < 0 ? i + shape[k] : i});
        keeps.push_back(false);
      } else {
        tg::IndexItem it{K::Slice, 0, {}, {}, {}};
        if (rng() % 2) it.start = bound(rng);
        if (rng() % 2) it.stop = bound(rng);
        std::int64_t step = static_cast<std::int64_t>(rng() % 3) + 1;
        if (rng() % 2) step = -step;
        if (rng() % 4) it.step = step;
        items.push_back(it);
        picks.push_back(python_slice(it.start, it.stop, it.step.value_or(1), shape[k]));
        keeps.push_back(true);
        expected_shape.push_back(static_cast<std::int64_t>(picks.back().size()));
      }
    }
    Tensor r = tg::getitem(x, items);
    REQUIRE(r.shape() == expected_shape);
    std::vector<double> rv = values(r);
    Shape sel_shape;
    for (const auto& pk : picks) sel_shape.push_back(static_cast<std::int64_t>(pk.size()));
    std::int64_t n = ti::prod(sel_shape);
    REQUIRE(static_cast<std::int64_t>(rv.size()) == (n == 0 ? 0 : n));
    for (std::int64_t i = 0; i < n; ++i) {
      std::vector<std::int64_t> sel = unravel(i, sel_shape), src(shape.size());
      for (std::size_t k = 0; k < shape.size(); ++k) src[k] = picks[k][static_cast<std::size_t>(sel[k])];
      REQUIRE(rv[static_cast<std::size_t>(i)] == static_cast<double>(ravel(src, shape)));
    }
  }
}

TEST_CASE("reshape infers one -1, keeps zero sizes, and reshape(()) makes a 0-d tensor") {
  Tensor x = iota({2, 3});
  CHECK(tg::reshape(x, {-1, 2}).shape() == Shape{3, 2});
  CHECK(tg::reshape(iota({1, 1}), {}).shape() == Shape{});
  Tensor empty = ints({}, DType::Int32);
  CHECK(tg::reshape(empty, {0, 3}).shape() == Shape{0, 3});
  CHECK(tg::reshape(empty, {3, -1, 2}).shape().size() == 3);
  CHECK_THROWS_WITH_AS(tg::reshape(x, {-1, -1}), "only one dimension can be inferred using -1, getting (-1, -1)", ti::Error);
  CHECK_THROWS_WITH_AS(tg::reshape(x, {4, -1}), "cannot reshape (2, 3) to (4, -1)", ti::Error);
  CHECK_THROWS_AS(tg::reshape(x, {2, std::int64_t{1} << 62, -1}), ti::Error);
}

TEST_CASE("slices with steps near the 64-bit limits select like Python without overflow") {
  using K = tg::IndexItem::Kind;
  Tensor x = iota({3});
  std::int64_t big = std::numeric_limits<std::int64_t>::max();
  CHECK(values(tg::getitem(x, {{K::Slice, 0, 0, 5, big}})) == std::vector<double>{0});
  CHECK(values(tg::getitem(x, {{K::Slice, 0, {}, {}, -big}})) == std::vector<double>{2});
  CHECK(values(tg::getitem(x, {{K::Slice, 0, -big, big, 1}})) == std::vector<double>{0, 1, 2});
}

TEST_CASE("T and transpose swap two axes; flatten, unflatten, squeeze and unsqueeze reshape") {
  Tensor x = iota({2, 3, 4});
  CHECK(tg::transpose(x).shape() == Shape{3, 2, 4});
  CHECK(tg::transpose(x, -1, 0).shape() == Shape{4, 3, 2});
  CHECK_THROWS_AS(tg::transpose(iota({3})), ti::Error);
  CHECK(tg::flatten(x, 1).shape() == Shape{2, 12});
  CHECK(tg::flatten(tg::reshape(iota({1}), {})).shape() == Shape{1});
  CHECK(tg::unflatten(x, 2, {2, -1}).shape() == Shape{2, 3, 2, 2});
  CHECK(tg::squeeze(tg::reshape(x, {1, 2, 1, 3, 4})).shape() == Shape{2, 3, 4});
  CHECK(tg::squeeze(tg::reshape(x, {1, 2, 1, 3, 4}), 2).shape() == Shape{1, 2, 3, 4});
  CHECK(tg::squeeze(x, 0).shape() == Shape{2, 3, 4});
  CHECK(tg::unsqueeze(x, -1).shape() == Shape{2, 3, 4, 1});
  CHECK(tg::pad_flat(iota({2, 3}), {1, 1}).shape() == Shape{2, 5});
  CHECK(values(tg::pad_flat(iota({2, 3}), {-1, 0})) == std::vector<double>{1, 2, 4, 5});
}

TEST_CASE("sum accumulates in sum_acc_dtype; prod, max and min stay in the dtype") {
  Tensor i8 = ints({100, 100, 100}, DType::Int8);
  CHECK(tg::sum(i8, std::nullopt, false).dtype() == DType::Int32);
  CHECK(values(tg::sum(i8, std::nullopt, false)) == std::vector<double>{300});
  CHECK(tg::sum(ints({200, 200}, DType::UInt8), std::nullopt, false).dtype() == DType::UInt32);
  CHECK(values(tg::prod(ints({200, 200}, DType::UInt8), std::nullopt, false)) == std::vector<double>{64});
  Tensor f16 = floats({1.5, 2.5}, DType::Float16);
  CHECK(tg::sum(f16, std::nullopt, false).dtype() == DType::Float16);
  Tensor x = iota({2, 3});
  CHECK(values(tg::sum(x, std::vector<std::int64_t>{-1}, true)) == std::vector<double>{3, 12});
  CHECK(tg::sum(x, std::vector<std::int64_t>{-1}, true).shape() == Shape{2, 1});
  CHECK(values(tg::max(x, std::vector<std::int64_t>{0}, false)) == std::vector<double>{3, 4, 5});
  CHECK(values(tg::min(x, std::vector<std::int64_t>{0, 1}, false)) == std::vector<double>{0});
  CHECK(values(tg::sum(tg::reshape(ints({}, DType::Int32), {0, 3}), std::vector<std::int64_t>{0}, false)) ==
        std::vector<double>{0, 0, 0});
  CHECK_THROWS_WITH_AS(tg::sum(x, std::vector<std::int64_t>{2}, false), "dim=2 out of range [-2, 1]", ti::Error);
}

TEST_CASE("mean, var and std divide in a float; an empty mean is nan") {
  CHECK(values(tg::mean(ints({1, 2}, DType::Int8), std::nullopt, false)) == std::vector<double>{1.5});
  CHECK(std::isnan(values(tg::mean(floats({}), std::nullopt, false))[0]));
  // var([1, 2, 3, 4]) with correction 1 = 5/3
  CHECK(values(tg::var(floats({1, 2, 3, 4}), std::nullopt, false))[0] == doctest::Approx(5.0 / 3.0).epsilon(1e-6));
  CHECK(values(tg::std_dev(floats({1, 2, 3, 4}), std::nullopt, false))[0] == doctest::Approx(std::sqrt(5.0 / 3.0)).epsilon(1e-6));
}

TEST_CASE("argmax and argmin give the first occurrence as int32") {
  Tensor x = ints({1, 3, 3, 0, 0}, DType::Int32);
  CHECK(tg::argmax(x, std::nullopt, false).dtype() == DType::Int32);
  CHECK(values(tg::argmax(x, std::nullopt, false)) == std::vector<double>{1});
  CHECK(values(tg::argmin(x, std::nullopt, false)) == std::vector<double>{3});
  Tensor m = ints({5, 1, 9, 9, 2, 2}, DType::Int32, {2, 3});
  CHECK(values(tg::argmax(m, 1, false)) == std::vector<double>{2, 0});
  CHECK(values(tg::argmax(m, 0, true)) == std::vector<double>{1, 1, 0});
}

TEST_CASE("matmul sums products; int matmul stays int") {
  Tensor a = ints({1, 2, 3, 4, 5, 6}, DType::Int32, {2, 3});
  Tensor b = ints({7, 8, 9, 10, 11, 12}, DType::Int32, {3, 2});
  Tensor c = tg::matmul(a, b);
  CHECK(c.dtype() == DType::Int32);
  CHECK(c.shape() == Shape{2, 2});
  CHECK(values(c) == std::vector<double>{58, 64, 139, 154});
  CHECK(values(tg::matmul(ints({1, 2, 3}, DType::Int32), ints({4, 5, 6}, DType::Int32))) == std::vector<double>{32});
  CHECK(values(tg::matmul(ints({1, 2, 3}, DType::Int32), b)) == std::vector<double>{58, 64});
  CHECK_THROWS_WITH_AS(tg::matmul(a, a), "cannot dot (2, 3) and (2, 3)", ti::Error);
}

TEST_CASE("unary math: int inputs compute in float, abs keeps -0.0, relu and neg of bool") {
  CHECK(tg::exp(ints({1}, DType::Int32)).dtype() == DType::Float32);
  CHECK(values(tg::sqrt(ints({4}, DType::Int32))) == std::vector<double>{2.0});
  CHECK(std::signbit(values(tg::abs(floats({-0.0})))[0]));
  CHECK(values(tg::abs(ints({-128, 5}, DType::Int8))) == std::vector<double>{-128, 5});
  CHECK(values(tg::relu(floats({-1.0, 2.0}))) == std::vector<double>{0.0, 2.0});
  Tensor b = tg::from_values({Scalar::from_bool(true), Scalar::from_bool(false)}, {2}, std::nullopt);
  CHECK(values(tg::neg(b)) == std::vector<double>{0, 1});
  CHECK(values(tg::invert(ints({0, 5}, DType::UInt8))) == std::vector<double>{255, 250});
  CHECK(values(tg::floor(floats({-1.5, 1.5, -2.0}))) == std::vector<double>{-2.0, 1.0, -2.0});
  CHECK(values(tg::ceil(floats({-1.5, 1.5}))) == std::vector<double>{-1.0, 2.0});
}

TEST_CASE("cast and bitcast refuse weak dtypes and sizes that do not divide") {
  Tensor weak = tg::full({}, Scalar::from_int(5), std::nullopt);
  CHECK(weak.dtype() == DType::WeakInt);
  CHECK_THROWS_WITH_AS(tg::bitcast(weak, DType::Int32), "bitcast requires concrete dtypes, got dtypes.weakint -> dtypes.int32", ti::Error);
  CHECK_THROWS_AS(tg::bitcast(ints({1, 2, 3}, DType::Int32), DType::Int64), ti::Error);
  CHECK(tg::bitcast(ints({1, 2}, DType::Int32), DType::Int64).shape() == Shape{1});
  CHECK_THROWS_AS(tg::cast(weak, DType::WeakFloat), ti::Error);
}

TEST_CASE("constructors: arange, full, ones, eye, linspace and their default dtypes") {
  CHECK(tg::arange(Scalar::from_int(5), Scalar::from_int(0), Scalar::from_int(1), std::nullopt).shape() == Shape{0});
  CHECK(values(tg::arange(Scalar::from_int(2), Scalar::from_int(10), Scalar::from_int(3), std::nullopt)) == std::vector<double>{2, 5, 8});
  CHECK(values(tg::arange(Scalar::from_int(3), Scalar::from_int(-3), Scalar::from_int(-2), std::nullopt)) == std::vector<double>{3, 1, -1});
  Tensor f = tg::arange(Scalar::from_int(0), Scalar::from_int(1), Scalar::from_float(0.25), std::nullopt);
  CHECK(f.dtype() == DType::Float32);
  CHECK(values(f) == std::vector<double>{0.0, 0.25, 0.5, 0.75});
  CHECK(tg::full({2}, Scalar::from_int(7), std::nullopt).dtype() == DType::WeakInt);
  CHECK(tg::full({2}, Scalar::from_bool(true), std::nullopt).dtype() == DType::Bool);
  CHECK(tg::ones({2, 3}, std::nullopt).dtype() == DType::Float32);
  CHECK(values(tg::eye(2, 3, std::nullopt)) == std::vector<double>{1, 0, 0, 0, 1, 0});
  CHECK(values(tg::linspace(Scalar::from_int(0), Scalar::from_int(1), 5, std::nullopt)) == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  CHECK_THROWS_AS(tg::arange(Scalar::from_int(0), Scalar::from_int(1), Scalar::from_int(0), std::nullopt), ti::Error);
  CHECK_THROWS_AS(tg::ones({1 << 21, 1 << 20}, std::nullopt), ti::Error);  // past expression_elements (2**40)
  CHECK_THROWS_AS(tg::expand(tg::ones({1}, std::nullopt), {1 << 21, 1 << 20}), ti::Error);
}

TEST_CASE("softmax and log_softmax follow tinygrad's max-shifted formulas") {
  // NumPy, float32: e = exp(x - x.max(-1)); e / e.sum(-1) for rows [1, 2, 3] and [4, 5, 6]
  const double expected[] = {0.09003057330846786, 0.2447284609079361, 0.6652409434318542};
  const std::vector<Scalar> six = {Scalar::from_float(1), Scalar::from_float(2), Scalar::from_float(3),
                                   Scalar::from_float(4), Scalar::from_float(5), Scalar::from_float(6)};
  Tensor x = tg::from_values(six, {2, 3}, DType::Float32);
  auto mv = ti::data(tg::softmax(x, -1));
  CHECK(mv.shape == Shape{2, 3});
  for (std::int64_t i = 0; i < 6; ++i) CHECK(mv.element(i).f == doctest::Approx(expected[i % 3]).epsilon(1e-6));
  auto lmv = ti::data(tg::log_softmax(x, 1));
  for (std::int64_t i = 0; i < 6; ++i) CHECK(lmv.element(i).f == doctest::Approx(std::log(expected[i % 3])).epsilon(1e-6));
  CHECK(ti::data(tg::softmax(x, 0)).element(0).f == doctest::Approx(0.04742587317756678).epsilon(1e-6));  // 1/(1+e^3)
  CHECK_THROWS_AS(tg::softmax(x, 2), ti::Error);
}

TEST_CASE("cumsum gives NumPy's running sums along an axis") {
  // np.array([[1, 2, 3], [4, 5, 6]]).cumsum(0) and .cumsum(1)
  std::vector<Scalar> six;
  for (int v = 1; v <= 6; ++v) six.push_back(Scalar::from_int(v));
  Tensor x = tg::from_values(six, {2, 3}, DType::Int32);
  CHECK(values(tg::cumsum(x, 0)) == std::vector<double>{1, 2, 3, 5, 7, 9});
  CHECK(values(tg::cumsum(x, 1)) == std::vector<double>{1, 3, 6, 4, 9, 15});
  CHECK(values(tg::cumsum(x, -1)) == std::vector<double>{1, 3, 6, 4, 9, 15});
  Tensor i8 = tg::from_values({Scalar::from_int(100), Scalar::from_int(100)}, {2}, DType::Int8);
  CHECK(values(tg::cumsum(i8, 0)) == std::vector<double>{100, 200});  // accumulates in int32, like sum
  CHECK_THROWS_AS(tg::cumsum(x, 2), ti::Error);
}

TEST_CASE("cat, stack, tril and triu agree with NumPy's concatenate, stack, tril and triu") {
  std::vector<Scalar> four;
  for (int v = 1; v <= 4; ++v) four.push_back(Scalar::from_int(v));
  Tensor x = tg::from_values(four, {2, 2}, DType::Int32);
  // np.concatenate([x, x], 1), np.stack([x, x], 1), np.tril(x), np.triu(x, 1)
  CHECK(values(tg::cat({x, x}, 1)) == std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(tg::cat({x, x}, 0).shape() == Shape{4, 2});
  CHECK(values(tg::stack({x, x}, 1)) == std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(tg::stack({x, x}, -1).shape() == Shape{2, 2, 2});
  CHECK(values(tg::tril(x, 0)) == std::vector<double>{1, 0, 3, 4});
  CHECK(values(tg::tril(x, 1, true)) == std::vector<double>{0, 2, 0, 0});
  // -0.0 survives cat (added as bits, not as floats)
  Tensor z = tg::from_values({Scalar::from_float(-0.0)}, {1}, DType::Float32);
  CHECK(std::signbit(ti::data(tg::cat({z, z}, 0)).element(1).f));
  CHECK_THROWS_AS(tg::cat({x, tg::from_values(four, {4}, DType::Int32)}, 0), ti::Error);
  CHECK_THROWS_AS(tg::tril(tg::from_values(four, {4}, DType::Int32), 0), ti::Error);
}

TEST_CASE("round goes half to even, as Python's round does") {
  const double in[] = {0.5, 1.5, 2.5, -1.5, 2.4, 2.6, -2.6, -7.5};
  std::vector<Scalar> s;
  for (double v : in) s.push_back(Scalar::from_float(v));
  // [float(round(v)) for v in in]
  CHECK(values(tg::round(tg::from_values(s, {8}, DType::Float32))) == std::vector<double>{0, 2, 2, -2, 2, 3, -3, -8});
}

TEST_CASE("repeat tiles like np.tile") {
  std::vector<Scalar> four;
  for (int v = 1; v <= 4; ++v) four.push_back(Scalar::from_int(v));
  Tensor x = tg::from_values(four, {2, 2}, DType::Int32);
  // np.tile([[1, 2], [3, 4]], (1, 2)) and np.tile([[1, 2], [3, 4]], (2, 1, 1)).shape
  CHECK(values(tg::repeat(x, {1, 2})) == std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(tg::repeat(x, {2, 1, 1}).shape() == Shape{2, 2, 2});
  CHECK_THROWS_AS(tg::repeat(x, {2}), ti::Error);
}

TEST_CASE("isnan, isinf and isfinite give bools as tinygrad's x != x and x == +-inf") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Tensor x = floats({1.0, nan, inf, -inf, -0.0});
  CHECK(tg::isnan(x).dtype() == DType::Bool);
  CHECK(values(tg::isnan(x)) == std::vector<double>{0, 1, 0, 0, 0});
  CHECK(values(tg::isinf(x)) == std::vector<double>{0, 0, 1, 1, 0});
  CHECK(values(tg::isinf(x, false, true)) == std::vector<double>{0, 0, 0, 1, 0});
  CHECK(values(tg::isinf(x, true, false)) == std::vector<double>{0, 0, 1, 0, 0});
  CHECK(values(tg::isinf(x, false, false)) == std::vector<double>{0, 0, 0, 0, 0});
  CHECK(values(tg::isfinite(x)) == std::vector<double>{1, 0, 0, 0, 1});
  CHECK(values(tg::isfinite(ints({-128, 127}, DType::Int8))) == std::vector<double>{1, 1});
}

TEST_CASE("any and all reduce to bool; any of nothing is False, all of nothing is True") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = tg::reshape(floats({0.0, -0.0, nan, 2.0}), {2, 2});
  CHECK(tg::any(x, std::nullopt, false).dtype() == DType::Bool);
  CHECK(values(tg::any(x, std::vector<std::int64_t>{1}, false)) == std::vector<double>{0, 1});
  CHECK(values(tg::all(x, std::vector<std::int64_t>{1}, false)) == std::vector<double>{0, 1});
  CHECK(values(tg::all(x, std::vector<std::int64_t>{0}, true)) == std::vector<double>{0, 0});
  CHECK(tg::all(x, std::vector<std::int64_t>{0}, true).shape() == Shape{1, 2});
  Tensor empty = tg::reshape(ints({}, DType::Int32), {0, 3});
  CHECK(values(tg::any(empty, std::vector<std::int64_t>{0}, false)) == std::vector<double>{0, 0, 0});
  CHECK(values(tg::all(empty, std::vector<std::int64_t>{0}, false)) == std::vector<double>{1, 1, 1});
  CHECK(values(tg::all(empty, std::nullopt, false)) == std::vector<double>{1});
}
