// mulacc.cpp — tinygrad's MULACC for narrow floats (mulacc.hpp).
#include "realize/mulacc.hpp"

namespace tensor_inspect::realize_detail {

namespace {

bool fuses(DType d) {
  return d == DType::Float32 || d == DType::Float16 || d == DType::BFloat16 || d == DType::WeakFloat;
}

// A product of this kernel in tinygrad's schedule. tinygrad realizes what follows a reduction
// before broadcasting it (`x - x.sum(keepdim=True) * c` loads the product from the reduce's
// kernel, as does a reduction along one axis of several), except a whole reduction to a 0-d
// value, which stays in the consumer's kernel: measured on DEV=PYTHON.
const Instance* product(const Program& program, std::size_t k, DType d) {
  const Instance& p = program.nodes[k];
  if (p.kind != Instance::Elem || p.op != Op::Mul || p.dtype != d || p.src.size() != 2 || p.masked) return nullptr;
  const bool broadcast = p.node_numel < prod(program.space);
  if (p.after_reduce && broadcast && p.node_rank > 0) return nullptr;
  return &p;
}

// A constant, or the cast of one (a Python float is a weak CONST its kernel commits by a cast).
bool is_const(const Program& program, std::size_t k) {
  const Instance& c = program.nodes[k];
  if (c.kind == Instance::Elem && c.op == Op::Cast) return !c.masked && is_const(program, c.src[0]);
  return c.kind == Instance::Const && !c.masked;
}

}  // namespace

bool fuse_mulacc(const Program& program, Instance& inst) {
  if (inst.kind != Instance::Elem || inst.src.size() != 2 || !fuses(inst.dtype)) return false;
  const std::size_t l = inst.src[0], r = inst.src[1];
  auto make = [&inst](const Instance& p, std::size_t c, bool neg_product, bool neg_addend) {
    inst.kind = Instance::MulAcc;
    inst.src = {p.src[0], p.src[1], c};
    inst.neg_product = neg_product;
    inst.neg_addend = neg_addend;
    return true;
  };
  if (inst.op == Op::Add) {
    // the pattern `a*b + c` matches either operand order, the left one first
    if (const Instance* p = product(program, l, inst.dtype)) return make(*p, r, false, false);
    if (const Instance* p = product(program, r, inst.dtype)) return make(*p, l, false, false);
    return false;
  }
  if (inst.op != Op::Sub) return false;
  const Instance* pl = product(program, l, inst.dtype);
  // x*y - c: x*y + (-c), the constant negated when it is made
  if (pl && is_const(program, r)) return make(*pl, r, false, true);
  // a - x*k: a + x*(-k), the constant factor taking the sign (two-stage folding), so the sum is
  // an ADD of two products when a is one: the left one is fused, as in `a*b + c` (float32
  // `x.square() - 0.3 * x` is MULACC(x, x, x*-0.3)).
  if (const Instance* p = product(program, r, inst.dtype);
      p && (is_const(program, p->src[0]) || is_const(program, p->src[1])))
    return pl ? make(*pl, r, false, true) : make(*p, l, true, false);
  return false;
}

void apply_mulacc_chunk(const Instance& inst, const Word* a, const Word* b, const Word* c, std::size_t n, Word* out) {
  // Python's (x*y)+z: the product of two values of at most 24 significant bits is exact in a
  // double, so a contracted fma would give the same double.
  const double sp = inst.neg_product ? -1.0 : 1.0, sc = inst.neg_addend ? -1.0 : 1.0;
  for (std::size_t i = 0; i < n; ++i) out[i] = wf(sp * (a[i].f * b[i].f) + sc * c[i].f);
  round_floats(compute_dtype(inst.dtype), out, n);
}

const Instance* mulacc_chain_product(const Program& program, Op op, DType dtype, std::int64_t per) {
  // codegen/opt/heuristic.py unrolls a last reduce dim of <= 32 whole, unless an earlier rule takes
  // the reduce: GROUPTOP 16 where the outputs are few (a dim % 16 == 0) and the matvec GROUP 8 (a dim
  // % 8 == 0), each summing in its own order. Those lengths keep the sequential fold, which a review
  // found to be tinygrad's answer where the chain was not (16 and 32 products of one output).
  if (op != Op::ReduceSum || !fuses(dtype) || per < 2 || per > 32 || per % 8 == 0 || program.nodes.empty())
    return nullptr;
  std::size_t k = program.root();
  DType d = dtype;
  // a weak float's product committed to float32 by a cast: the same values, the same kernel
  if (const Instance& c = program.nodes[k]; c.kind == Instance::Elem && c.op == Op::Cast && !c.masked &&
                                             program.nodes[c.src[0]].dtype == DType::WeakFloat &&
                                             compute_dtype(c.dtype) == DType::Float32)
    k = c.src[0], d = DType::WeakFloat;
  return product(program, k, d);
}

Word mulacc_chain_step(Word partial, double a, double b, std::int64_t t, DType dtype) {
  const DType d = compute_dtype(dtype);
  auto rounded = [d](double v) {
    Word w = wf(v);
    round_floats(d, &w, 1);
    return w;
  };
  if (t == 0) return wf(a * b);
  // e0 + e1: the left product fused, the right one rounded by its own MUL
  if (t == 1) return rounded(partial.f + rounded(a * b).f);
  return rounded(a * b + partial.f);
}

Word mulacc_chain(const Word* a, const Word* b, std::size_t n, DType dtype) {
  Word s = mulacc_chain_step(Word{}, a[0].f, b[0].f, 0, dtype);
  for (std::size_t i = 1; i < n; ++i) s = mulacc_chain_step(s, a[i].f, b[i].f, static_cast<std::int64_t>(i), dtype);
  if (n == 1) round_floats(compute_dtype(dtype), &s, 1);
  return s;
}

}  // namespace tensor_inspect::realize_detail
