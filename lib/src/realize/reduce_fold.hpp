// reduce_fold.hpp — how one reduction folds words of its dtype: its identity, the combination
// of two partials, and a block of elements folded left to right (reduce.cpp's order; see there).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "realize/chunk.hpp"
#include "realize/scalar_ops.hpp"

namespace tensor_inspect::realize_detail {

/// The fold of a ReduceSum, ReduceProd, ReduceMax or ReduceMin of dtype `dtype` (kind its DKind),
/// on Words: float sums and products rounded to the dtype at every step.
struct Fold {
  Op op;
  DKind kind;
  DType dtype;

  // v rounded to the reduction's float dtype (a no-op for float64).
  double round(double v) const {
    if (dtype == DType::Float64) return v;
    if (dtype == DType::Float32) return static_cast<double>(static_cast<float>(v));
    Word w{};
    w.f = v;
    round_floats(dtype, &w, 1);
    return w.f;
  }

  Word identity() const {
    Word w{};
    switch (kind) {
      case DKind::Float:
        if (op == Op::ReduceSum) w.f = -0.0;
        else if (op == Op::ReduceProd) w.f = 1.0;
        else if (op == Op::ReduceMax) w.f = -std::numeric_limits<double>::infinity();
        else w.f = std::numeric_limits<double>::infinity();
        return w;
      case DKind::Signed:
        if (op == Op::ReduceProd) w.i = 1;
        else if (op == Op::ReduceMax) w.i = std::numeric_limits<std::int64_t>::min();
        else if (op == Op::ReduceMin) w.i = std::numeric_limits<std::int64_t>::max();
        return w;
      case DKind::Unsigned:
        if (op == Op::ReduceProd) w.u = 1;
        else if (op == Op::ReduceMin) w.u = ~std::uint64_t{0};
        return w;
      case DKind::Bool:
        w.u = op == Op::ReduceProd || op == Op::ReduceMin ? 1 : 0;
        return w;
    }
    return w;
  }

  Word combine(Word a, Word b) const {
    switch (kind) {
      case DKind::Float:
        switch (op) {
          case Op::ReduceSum: a.f = round(a.f + b.f); return a;
          case Op::ReduceProd: a.f = round(a.f * b.f); return a;
          case Op::ReduceMax: return a.f < b.f ? b : a;
          default: return b.f < a.f ? b : a;
        }
      case DKind::Signed:
      case DKind::Unsigned: {
        const bool sgn = kind == DKind::Signed;
        switch (op) {
          case Op::ReduceSum: a.u += b.u; return a;
          case Op::ReduceProd: a.u *= b.u; return a;
          case Op::ReduceMax: return (sgn ? a.i < b.i : a.u < b.u) ? b : a;
          default: return (sgn ? b.i < a.i : b.u < a.u) ? b : a;
        }
      }
      case DKind::Bool:
        if (op == Op::ReduceProd || op == Op::ReduceMin) a.u &= b.u;
        else a.u |= b.u;
        return a;
    }
    return a;
  }

  /// `a` (a block's partial so far) folded with one more element `v`: what block() does at each
  /// step, the same roundings (a float32 sum adds in float).
  Word step(Word a, Word v) const {
    if (kind == DKind::Float) {
      if (op == Op::ReduceSum && dtype == DType::Float64) return a.f += v.f, a;
      if (op == Op::ReduceSum && dtype == DType::Float32) {
        float s = static_cast<float>(a.f);
        s += static_cast<float>(v.f);
        a.f = s;
        return a;
      }
      if (op == Op::ReduceMax) return a.f < v.f ? v : a;
      if (op == Op::ReduceMin) return v.f < a.f ? v : a;
    } else if (kind != DKind::Bool && op == Op::ReduceSum) {
      return a.u += v.u, a;
    }
    return combine(a, v);
  }

  // Folds v[0..n) left to right. The first block of an output starts from its first
  // element, as the sequential max/min does (a leading nan stays); later blocks start
  // from the identity, which a nan never replaces.
  Word block(const Word* v, std::size_t n, bool first) const {
    Word a = identity();
    std::size_t i = 0;
    if (first && kind == DKind::Float && (op == Op::ReduceMax || op == Op::ReduceMin) && n > 0) a = v[i++];
    switch (kind) {
      case DKind::Float:
        if (op == Op::ReduceSum && dtype == DType::Float64) {
          double s = a.f;
          for (; i < n; ++i) s += v[i].f;
          a.f = s;
          return a;
        }
        if (op == Op::ReduceSum && dtype == DType::Float32) {
          float s = static_cast<float>(a.f);
          for (; i < n; ++i) s += static_cast<float>(v[i].f);
          a.f = s;
          return a;
        }
        if (op == Op::ReduceMax) {
          double m = a.f;
          for (; i < n; ++i) m = m < v[i].f ? v[i].f : m;
          a.f = m;
          return a;
        }
        if (op == Op::ReduceMin) {
          double m = a.f;
          for (; i < n; ++i) m = v[i].f < m ? v[i].f : m;
          a.f = m;
          return a;
        }
        break;
      case DKind::Signed:
      case DKind::Unsigned:
        if (op == Op::ReduceSum) {
          std::uint64_t s = a.u;
          for (; i < n; ++i) s += v[i].u;
          a.u = s;
          return a;
        }
        break;
      default: break;
    }
    for (; i < n; ++i) a = combine(a, v[i]);
    return a;
  }

};


}  // namespace tensor_inspect::realize_detail
