// scalar_ops.hpp — the reference arithmetic on single values: what each element-wise op
// and reduction gives for one element of a dtype. Values travel as Scalars in the widest
// form of their kind and are rounded to the dtype after every op, as the dtype's own
// arithmetic would round them. The typed chunk kernels must agree with these bit for bit;
// exotic casts and rare ops run through them directly.
#pragma once

#include <cstdint>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/ops.hpp"

namespace tensor_inspect::realize_detail {

/// Python's floor division and modulo on int64 (x // 0 and x % 0 give 0, as tinygrad's
/// kernels do; INT64_MIN // -1 wraps).
std::int64_t floor_div(std::int64_t a, std::int64_t b);
std::int64_t py_mod(std::int64_t a, std::int64_t b);
/// a ** b in an int dtype, wrapping like repeated multiplication; negative exponents give
/// 0 except for bases 1 and -1.
Scalar int_pow(DType d, Scalar a, Scalar b);
/// A float to int cast of dtype `d` as Python's int() and ctypes make it in tinygrad's
/// DEV=PYTHON: truncated toward zero, then wrapped modulo 2**bits. Throws
/// Error(BadExpression) for nan and +-inf, as Python's int() raises.
Scalar py_float_to_int(double x, DType d);
/// One unary op (Cast and ByteSwap included) producing a value of dtype `d`. Throws
/// Error(Unsupported) for ops a dtype does not define.
Scalar apply_unary(Op op, DType d, const Scalar& a);
/// One binary op whose operands have dtype `src_dtype` (comparisons give bools). Throws
/// Error(Unsupported) for ops a dtype does not define.
Scalar apply_binary(Op op, DType src_dtype, const Scalar& a, const Scalar& b);
/// The value 0 of dtype `d`.
Scalar zero_of(DType d);
/// The start value of a reduction over no elements: 0, 1, -inf/INT_MIN/0, +inf/INT_MAX/...
Scalar reduce_identity(Op op, DType d);

}  // namespace tensor_inspect::realize_detail
