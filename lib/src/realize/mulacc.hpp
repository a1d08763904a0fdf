// mulacc.hpp — tinygrad's MULACC: `a * b + c` in one rounding.
//
// tinygrad's late rewrite (codegen/decomp/op.py, get_late_rewrite_patterns) turns an ADD of a
// MUL in the same kernel into MULACC(a, b, c) on every backend whose renderer has the op; the
// PYTHON backend computes it as Python's `(x*y)+z` on doubles (uop/ops.py, python_alu) and
// rounds the result to the dtype once. For float32, float16 and bfloat16 the product of two
// values is exact in a double, so `x * w + b` is the correctly rounded sum of the exact
// product: the last bit differs from two roundings in about one element of four. float64
// rounds the product and the sum in Python, as two ops do, and ints wrap alike either way, so
// only the narrower floats are fused here.
//
// tinygrad has no SUB in its tensor graph: `a - b` is `a + b*-1`. Where b is a product with a
// constant factor, two-stage folding makes it `a + x*(-c)`, a MULACC again; `x*y - c` is
// `x*y + (-c)`. Other subtractions become SUB (`x + NEG(y)`) before MULACC is tried: they round
// twice, as the tool's plain ops do.
//
// A float sum of products reduced in the kernel that makes them is a chain of such ADDs:
// tinygrad's optimizer unrolls a reduce axis of at most 32 elements whole
// (codegen/opt/heuristic.py, "if last reduce dim is small(ish), loop unroll the reduce"), the
// unrolled REDUCE becomes `((e0 + e1) + e2) + ...` with no accumulator
// (codegen/__init__.py, expand_horizontal_reduce), and the MULACC pattern then fuses every
// ADD: the first one's left product, `MULACC(a0, b0, a1*b1)`, and each later one's product,
// `MULACC(ak, bk, partial)`. `x.var()` sums `(x - mean)*(x - mean)` so (measured on DEV=PYTHON).
#pragma once

#include <cstddef>

#include "realize/program.hpp"

namespace tensor_inspect::realize_detail {

/// Makes `inst` (an Elem ADD or SUB of a float32, float16, bfloat16 or weak float dtype whose
/// sources are instances of `program`) the MulAcc instance tinygrad forms of it: src {a, b, c}
/// and the signs of its product and addend. A product is fused only when it is computed in this
/// kernel (an Elem MUL of the same dtype, not a load). False, `inst` unchanged, otherwise.
bool fuse_mulacc(const Program& program, Instance& inst);

/// The product instance (an Elem MUL of `program`: its root, or under the root's cast of a weak
/// float to float32) whose values a float ReduceSum `op` of dtype `dtype` over `per` elements
/// per output sums as tinygrad's unrolled MULACC chain: the product is computed in this kernel,
/// the dtype fuses, and 2 <= per <= 32. Null otherwise (a plain fold).
const Instance* mulacc_chain_product(const Program& program, Op op, DType dtype, std::int64_t per);

/// The chain's sum of the n >= 1 products a[i]*b[i]: `a0*b0 + round(a1*b1)` rounded, then each
/// `ak*bk + partial` rounded once, to `dtype`.
Word mulacc_chain(const Word* a, const Word* b, std::size_t n, DType dtype);

/// One step of that chain, for folds that take an output's elements one at a time: `partial`
/// after elements [0, t) folded with element t's product a*b. After element 0 the partial is the
/// exact product a0*b0 (a double holds it), not yet rounded: only a chain of two or more is
/// complete.
Word mulacc_chain_step(Word partial, double a, double b, std::int64_t t, DType dtype);

/// out[i] = (±a[i]*b[i]) + (±c[i]) for the MulAcc instance `inst`, rounded once to its dtype.
void apply_mulacc_chunk(const Instance& inst, const Word* a, const Word* b, const Word* c, std::size_t n, Word* out);

}  // namespace tensor_inspect::realize_detail
