// chunk.hpp — values of one chunk of elements, and the typed loops that make them.
//
// A chunk holds up to kChunk elements of one dtype as 8-byte words in the widest form of
// the dtype's kind: double for every float dtype (already rounded to that dtype), int64
// for signed ints, uint64 for unsigned ints, and 0/1 in uint64 for bool — the Scalar of
// dtype.hpp without its tag, since a kernel node's dtype is known when it is built. Each
// op is one loop over a chunk in that C++ type (the compiler vectorizes the plain ones),
// rounding to the node's dtype after the op as the dtype's own arithmetic would: float32
// through a float (exact for + - * /, since a double holds every product and quotient of
// two floats correctly rounded twice), half, bfloat16 and fp8 through dtype.hpp's rounding.
// Ops without a typed loop (integer division, pow, exotic casts) run element by element
// through the reference arithmetic of scalar_ops.hpp, so the two can never disagree.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/ops.hpp"

namespace tensor_inspect::realize_detail {

/// Elements per chunk: small enough that a kernel's chunks stay in L2, large enough that
/// per-chunk work (index setup, dispatch) is noise.
inline constexpr std::size_t kChunk = 2048;

/// One element of a chunk (see the file comment for which member holds which kind).
union Word {
  double f;
  std::int64_t i;
  std::uint64_t u;
};
static_assert(sizeof(Word) == 8);

/// A Word holding `v` in the member of its kind.
inline Word wf(double v) { Word w; w.f = v; return w; }
inline Word wi(std::int64_t v) { Word w; w.i = v; return w; }
inline Word wu(std::uint64_t v) { Word w; w.u = v; return w; }

/// The Word of a Scalar of `kind`, and back.
Word word_of(const Scalar& s);
Scalar scalar_of(DKind kind, Word w);

/// The dtype a node of `d` computes in: a weak float (a Python float against an int or bool
/// tensor, before data() commits it) computes in the default float, float32, each step and
/// each constant rounded to it, as tinygrad lowers it (uop/weak.py: pm_lower_weak commits a
/// weak node and its constants at default_dtype). Its buffers still hold doubles.
inline DType compute_dtype(DType d) { return d == DType::WeakFloat ? DType::Float32 : d; }

/// Reads elements of `dtype` (native byte order) from `base`: element idx[i] for each i,
/// or 0 where idx[i] < 0 (a masked index); with idx == nullptr, elements 0..n-1.
void decode(DType dtype, const std::byte* base, const std::int64_t* idx, std::size_t n, Word* out);
/// Writes n words of `dtype` (already of its kind and rounded) as packed elements.
void encode(DType dtype, const Word* in, std::size_t n, std::byte* dst);
/// Rounds n words of float kind to `dtype` in place (no-op for float64).
void round_floats(DType dtype, Word* w, std::size_t n);

/// out = op(a) for a unary op whose result has dtype `out_dtype`, source dtype `in_dtype`.
void apply_unary_chunk(Op op, DType in_dtype, DType out_dtype, const Word* a, std::size_t n, Word* out);
/// out = op(a, b) for a binary op over operands of dtype `in_dtype` (comparisons give bool).
void apply_binary_chunk(Op op, DType in_dtype, const Word* a, const Word* b, std::size_t n, Word* out);
/// out = cond ? a : b.
void apply_where_chunk(const Word* cond, const Word* a, const Word* b, std::size_t n, Word* out);

}  // namespace tensor_inspect::realize_detail
