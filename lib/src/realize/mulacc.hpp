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
#pragma once

#include <cstddef>

#include "realize/program.hpp"

namespace tensor_inspect::realize_detail {

/// Makes `inst` (an Elem ADD or SUB of a float32, float16, bfloat16 or weak float dtype whose
/// sources are instances of `program`) the MulAcc instance tinygrad forms of it: src {a, b, c}
/// and the signs of its product and addend. A product is fused only when it is computed in this
/// kernel (an Elem MUL of the same dtype, not a load). False, `inst` unchanged, otherwise.
bool fuse_mulacc(const Program& program, Instance& inst);

/// out[i] = (±a[i]*b[i]) + (±c[i]) for the MulAcc instance `inst`, rounded once to its dtype.
void apply_mulacc_chunk(const Instance& inst, const Word* a, const Word* b, const Word* c, std::size_t n, Word* out);

}  // namespace tensor_inspect::realize_detail
