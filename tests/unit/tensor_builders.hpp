// tests/unit/tensor_builders.hpp — small tensors from Python-like lists for the frontend's
// unit tests (frontend_test.cpp, frontend_ops_test.cpp): ints and floats of a dtype, and iota.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tensor_inspect/frontend.hpp"

namespace test_tensors {

using tensor_inspect::DType;
using tensor_inspect::Scalar;
using tensor_inspect::Shape;
using tensor_inspect::Tensor;
namespace tg = tensor_inspect::tg;

/// The ints `v` as a tensor of dtype `d`, shaped `shape` (1-D of len(v) when empty).
inline Tensor ints(std::vector<std::int64_t> v, DType d, Shape shape = {}) {
  std::vector<Scalar> s;
  for (std::int64_t x : v) s.push_back(Scalar::from_int(x));
  if (shape.empty()) shape = {static_cast<std::int64_t>(v.size())};
  return tg::from_values(s, shape, d);
}

/// The floats `v` as a 1-D tensor of dtype `d`.
inline Tensor floats(std::vector<double> v, DType d = DType::Float32) {
  std::vector<Scalar> s;
  for (double x : v) s.push_back(Scalar::from_float(x));
  return tg::from_values(s, {static_cast<std::int64_t>(v.size())}, d);
}

/// 0, 1, 2, ... in C order over `shape` (int32).
inline Tensor iota(const Shape& shape) {
  return tg::reshape(
      tg::arange(Scalar::from_int(0), Scalar::from_int(tensor_inspect::prod(shape)), Scalar::from_int(1), std::nullopt),
      shape);
}

}  // namespace test_tensors
