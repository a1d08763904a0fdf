// reduce.cpp — Reduce kernels: the fused input evaluated in chunks, each output's
// elements folded in a fixed order, so the result never depends on the thread count.
//
// The input's index space is permuted so the reduced axes come last: output o folds the
// consecutive range [o*R, (o+1)*R) of it, R the number of elements per output, in C order
// of the reduced axes (the order the sequential definition visits them). The range is cut
// into blocks of kChunk elements; each block folds left to right, and the block partials
// combine in a fixed pairwise tree (tree_fold). Blocks are the threads' work items, made
// kBatchItems at a time: the partials of several outputs whose trees are small, or one
// subtree of a large one (tree_fold_batched), so a sum over 2**40 broadcast elements holds
// 32 KiB of partials, not 4 GiB. Float sums and products accumulate in the reduction's own
// dtype, each step rounded to it, as tinygrad's kernels do (sum() reduces in sum_acc_dtype:
// float32 for half, bfloat16 and float32; prod() in the tensor's dtype, so a float16 prod
// rounds to float16 at every product); below kChunk elements per output the order is
// tinygrad's sequential one (DEV=PYTHON's loop), above it the blocks meet in a tree; ints wrap
// in their own dtype as C would; a float sum starts from -0.0, IEEE's additive identity,
// so a sum of negative zeros is -0.0 as tinygrad gives; max/min keep tinygrad's select
// (`a < b ? b : a`), so a nan wins only where it comes first.
#include <cmath>
#include <limits>

#include "realize/kernels.hpp"
#include "realize/scalar_ops.hpp"

namespace tensor_inspect::realize_detail {
namespace {

// How one reduction folds words of its dtype.
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

// A constant input reduces in closed form: `count` copies of v (the reference's rule).
Word closed_form(Op op, DType d, Word value, std::int64_t count) {
  const Scalar v = scalar_of(dtype_info(d).kind, value);
  const bool wide = dtype_info(d).kind == DKind::Float && (op == Op::ReduceSum || op == Op::ReduceProd);
  if (count == 0) return word_of(reduce_identity(op, d));
  if (op == Op::ReduceSum)
    return word_of(wide ? Scalar::from_float(v.f * static_cast<double>(count))
                        : apply_binary(Op::Mul, d, v, cast_scalar(Scalar::from_int(count), d)));
  if (op == Op::ReduceProd)
    return word_of(wide ? Scalar::from_float(std::pow(v.f, static_cast<double>(count)))
                        : int_pow(d, v, cast_scalar(Scalar::from_int(count), d)));
  return value;
}

}  // namespace

NodePtr run_reduce(const Kernel& k, const BufferMap& buffers) {
  const NodePtr& out = k.output;
  const NodePtr red = out->op == Op::Contiguous ? out->src[0] : out;
  const NodePtr& in = red->src[0];
  const DType d = red->dtype;
  const Fold fold{red->op, dtype_info(d).kind, d};
  const std::int64_t n_out = prod(red->shape), n_in = prod(in->shape);
  const std::int64_t per = n_out > 0 ? n_in / n_out : 0;

  // Kept axes first, reduced axes last.
  std::vector<std::int64_t> order, reduced;
  for (std::size_t a = 0; a < in->shape.size(); ++a)
    (red->shape[a] == 1 && in->shape[a] != 1 ? reduced : order).push_back(static_cast<std::int64_t>(a));
  order.insert(order.end(), reduced.begin(), reduced.end());
  bool identity_order = true;
  for (std::size_t a = 0; a < order.size(); ++a)
    identity_order = identity_order && order[a] == static_cast<std::int64_t>(a);
  const Program prog = lower(in, buffers, identity_order ? std::nullopt : std::optional(order));

  std::vector<Word> acc(static_cast<std::size_t>(n_out));
  // Outputs fold in order, so the input's indices finish in order: a file read in place
  // gives its pages back behind them.
  ReleaseBehind release(prog);
  if (per == 0 || prog.is_constant()) {
    std::fill(acc.begin(), acc.end(), closed_form(red->op, d, prog.nodes.back().value, per));
  } else if (per <= static_cast<std::int64_t>(kChunk)) {
    // Several whole outputs per chunk: each folds its range in one block.
    const std::int64_t group = static_cast<std::int64_t>(kChunk) / per;
    const std::int64_t chunks = (n_out + group - 1) / group;
    parallel_for(
        chunks, [&] { return ChunkEvaluator(prog); },
        [&](ChunkEvaluator& ev, std::int64_t c) {
          const std::int64_t o0 = c * group, outs = std::min(group, n_out - o0);
          const Word* v = ev.run(o0 * per, static_cast<std::size_t>(outs * per));
          for (std::int64_t o = 0; o < outs; ++o)
            acc[static_cast<std::size_t>(o0 + o)] = fold.block(v + o * per, static_cast<std::size_t>(per), true);
        },
        prog.serial(), [&](std::int64_t done) { release(std::min(n_out, done * group) * per); });
  } else {
    const std::int64_t blocks = (per + static_cast<std::int64_t>(kChunk) - 1) / static_cast<std::int64_t>(kChunk);
    auto block = [&](ChunkEvaluator& ev, std::int64_t o, std::int64_t b) {
      const std::int64_t lo = b * static_cast<std::int64_t>(kChunk);
      const auto m = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(kChunk), per - lo));
      return fold.block(ev.run(o * per + lo, m), m, b == 0);
    };
    auto combine = [&fold](Word a, Word b) { return fold.combine(a, b); };
    auto make_state = [&] { return ChunkEvaluator(prog); };
    std::int64_t done = 0;
    auto progress = [&](std::int64_t made) {
      if (n_out * blocks > kBatchItems) report_progress(done += made, n_out * blocks);
    };
    std::vector<Word> partial;
    if (blocks <= kBatchItems) {
      // Whole trees of `group` outputs per batch.
      const std::int64_t group = kBatchItems / blocks;
      partial.resize(static_cast<std::size_t>(std::min(group, n_out) * blocks));
      for (std::int64_t o0 = 0; o0 < n_out; o0 += group) {
        const std::int64_t outs = std::min(group, n_out - o0);
        parallel_for(
            outs * blocks, make_state,
            [&](ChunkEvaluator& ev, std::int64_t t) {
              partial[static_cast<std::size_t>(t)] = block(ev, o0 + t / blocks, t % blocks);
            },
            prog.serial());
        for (std::int64_t o = 0; o < outs; ++o)
          acc[static_cast<std::size_t>(o0 + o)] = tree_fold(partial.data() + o * blocks, blocks, combine);
        release((o0 + outs) * per);
        progress(outs * blocks);
      }
    } else {
      // One output's tree at a time, a subtree of up to kBatchItems blocks per batch.
      for (std::int64_t o = 0; o < n_out; ++o) {
        auto make = [&](std::int64_t first, std::int64_t count, Word* made) {
          parallel_for(
              count, make_state, [&](ChunkEvaluator& ev, std::int64_t i) { made[i] = block(ev, o, first + i); },
              prog.serial());
          // tree_fold_batched makes its leaves left to right: all of [0, first + count) are done.
          release(o * per + std::min(per, (first + count) * static_cast<std::int64_t>(kChunk)));
        };
        acc[static_cast<std::size_t>(o)] =
            tree_fold_batched<Word>(0, blocks, kBatchItems, partial, make, combine, progress);
      }
    }
  }

  release.finish();
  const DTypeInfo& info = dtype_info(d);
  auto buf = Buffer::cpu(static_cast<std::size_t>(n_out) * info.itemsize);
  encode(d, acc.data(), acc.size(), buf->mutable_bytes().data());
  return make_node(Op::Buffer, d, red->shape, {}, buf);
}

}  // namespace tensor_inspect::realize_detail
