// tensor_inspect/ops.hpp — the closed set of graph operations, with named groups.
//
// Sources make data, movement ops change only the view, element-wise ops map values one
// to one, reduce ops fold axes, scan ops keep every running fold along one axis. One table (op_name) names them for
// logs and graph dumps.
//
//   ti::is_movement(ti::Op::Permute);   // true
//   ti::op_name(ti::Op::Add);           // "ADD"
#pragma once

#include <cstdint>
#include <string_view>

namespace tensor_inspect {

/// Graph operations. Groups are contiguous ranges; new values go at the end of their group
/// only together with the range checks below.
enum class Op : std::uint8_t {
  // sources
  Buffer,      ///< bytes of a Buffer (CPU or DISK), arg: the buffer
  Const,       ///< one value broadcast to a shape, arg: the Scalar
  Producer,    ///< bytes made on demand at realize (decompression, dequantization)
  // movement: change the view only, never the data
  Reshape, Permute, Expand, Pad, Shrink, Flip,
  // element-wise unary
  Cast, Bitcast, Neg, Not, Abs, Exp, Exp2, Log, Log2, Sin, Cos, Tan, Sqrt, Recip, Trunc, Tanh,
  ByteSwap,  ///< reverses the bytes of each element (unsigned ints; big-endian files)
  // element-wise binary
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Max, Min, CmpLt, CmpLe, CmpEq, CmpNe, And, Or, Xor,
  // element-wise ternary
  Where,
  // reductions over axes
  ReduceSum, ReduceProd, ReduceMax, ReduceMin,
  // realization markers
  Contiguous,
  // scans along one axis
  ScanSum,  ///< running sums along an axis in tinygrad's cumsum order, arg: (axis, length, first)
};

/// Upper-case op name as tinygrad prints it ("ADD", "RESHAPE").
std::string_view op_name(Op op);

/// The named groups of ops (tinygrad's GroupOp): membership tests over the enum's ranges.
constexpr bool is_source(Op op) { return op <= Op::Producer; }
constexpr bool is_movement(Op op) { return op >= Op::Reshape && op <= Op::Flip; }
constexpr bool is_unary(Op op) { return op >= Op::Cast && op <= Op::ByteSwap; }
constexpr bool is_binary(Op op) { return op >= Op::Add && op <= Op::Xor; }
constexpr bool is_comparison(Op op) { return op >= Op::CmpLt && op <= Op::CmpNe; }
constexpr bool is_elementwise(Op op) { return op >= Op::Cast && op <= Op::Where; }
constexpr bool is_reduce(Op op) { return op >= Op::ReduceSum && op <= Op::ReduceMin; }
constexpr bool is_scan(Op op) { return op == Op::ScanSum; }

}  // namespace tensor_inspect
