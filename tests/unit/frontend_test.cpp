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
#include "tensor_builders.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
namespace tg = tensor_inspect::tg;
using ti::DType;
using ti::Scalar;
using ti::Shape;
using ti::Tensor;

using test_tensors::floats;
using test_tensors::iota;
using test_tensors::ints;

namespace {

using test_util::values;

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
std::vector<std::int64_t> python_slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                                       std::int64_t step, std::int64_t n) {
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
  CHECK(values(tg::where(tg::cmp_gt(u8, Scalar::from_int(1)), u8, Scalar::from_int(-1))) ==
        std::vector<double>{255, 2, 3});
  CHECK(values(tg::add(ints({1}, DType::Int64), Scalar::from_int(std::int64_t{1} << 40))) ==
        std::vector<double>{1099511627777.0});
}

TEST_CASE("true division is a * (1/b) in a float; ints divided by zero give inf, -inf and nan") {
  std::vector<double> r = values(tg::div(ints({7, -7, 0}, DType::Int32), Scalar::from_int(0)));
  CHECK(r[0] == INFINITY);
  CHECK(r[1] == -INFINITY);
  CHECK(std::isnan(r[2]));
  // float32(10) * float32(1/3), not float32(10/3)
  CHECK(values(tg::div(ints({10}, DType::Int32), Scalar::from_int(3)))[0] ==
        static_cast<double>(10.0f * (1.0f / 3.0f)));
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
        axes.push_back(rng() % 2 ? static_cast<std::int64_t>(k)
                                 : static_cast<std::int64_t>(k) - static_cast<std::int64_t>(nd));
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
  CHECK_THROWS_WITH_AS(tg::reshape(x, {-1, -1}), "only one dimension can be inferred using -1, getting (-1, -1)",
                       ti::Error);
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
