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
#include <algorithm>
#include <cmath>
#include <limits>

#include "realize/kernels.hpp"
#include "realize/mulacc.hpp"
#include "realize/reduce_file_order.hpp"
#include "realize/reduce_fold.hpp"
#include "realize/reduce_leading.hpp"
#include "realize/scalar_ops.hpp"

namespace tensor_inspect::realize_detail {
namespace {

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

// The reduction's outputs `acc` stored in a buffer of its dtype and shape.
NodePtr encoded(const NodePtr& red, const std::vector<Word>& acc) {
  auto buf = Buffer::cpu(acc.size() * dtype_info(red->dtype).itemsize);
  encode(red->dtype, acc.data(), acc.size(), buf->mutable_bytes().data());
  return make_node(Op::Buffer, red->dtype, red->shape, {}, buf);
}

// For a whole reduction (one output) of a flat input: the shape of the view under which one of
// its Loads reads a file out of order, when it holds the same elements (prod equal, rank > 1).
std::optional<Shape> unflattened(const NodePtr& in, const BufferMap& buffers, std::int64_t outputs) {
  if (outputs != 1 || in->shape.size() != 1) return std::nullopt;
  for (const Instance& i : lower(in, buffers, std::nullopt, false).nodes)
    if (i.kind == Instance::Load && i.order == 0 && !i.views.empty() && i.views.back().shape.size() > 1 &&
        prod(i.views.back().shape) == in->shape[0])
      return i.views.back().shape;
  return std::nullopt;
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
  const std::optional<std::vector<std::int64_t>> standard = identity_order ? std::nullopt : std::optional(order);
  // A reduction over the leading axes of a file reads it in order (reduce_leading.cpp): the
  // leading axes of its input (x.mean(axis=0)), or the file's under a permute
  // (x.T.sum(axis=1)): the input's index space with its reduced axes first.
  std::optional<std::optional<std::vector<std::int64_t>>> leading;
  if (!identity_order && per > 0 && reduces_leading_axes(in->shape, red->shape)) {
    leading.emplace(std::nullopt);
  } else if (per > 0 && n_out > 1 && !reduced.empty()) {
    std::vector<std::int64_t> lead = reduced;
    for (std::size_t a = 0; a < in->shape.size(); ++a)
      if (std::find(reduced.begin(), reduced.end(), static_cast<std::int64_t>(a)) == reduced.end())
        lead.push_back(static_cast<std::int64_t>(a));
    // Looked at before it runs (nothing fetched): taken when it reads a file in order and the
    // kept-axes-first order does not.
    if (reads_a_file(lower(in, buffers, lead, false)) && !reads_a_file(lower(in, buffers, standard, false)))
      leading.emplace(lead);
  }
  if (leading) {
    const Program flat = lower(in, buffers, *leading);
    if (reads_a_file(flat) && !flat.is_constant()) {
      ReleaseBehind release(flat);
      std::vector<Word> acc = fold_leading_axes(flat, fold, per, n_out, release);
      release.finish();
      return encoded(red, acc);
    }
  }
  // One whose own order reads a file out of order (x.T.sum()) folds in the file's order, in a
  // few scans of it (reduce_file_order.cpp).
  if (!leading && per > 0) {
    const auto in_file_order = [&](const NodePtr& input, const Shape& out_shape,
                                   const std::optional<std::vector<std::int64_t>>& own) -> NodePtr {
      const auto plan = plan_file_order(input, buffers, out_shape, own);
      if (!plan) return nullptr;
      const Program flat = lower(input, buffers, plan->order);
      return flat.is_constant() ? nullptr : encoded(red, fold_in_file_order(flat, fold, *plan));
    };
    if (NodePtr done = in_file_order(in, red->shape, standard)) return done;
    // A whole reduction of a flattened view (x.T.argmax() reduces x.T.reshape(-1)) is the same
    // fold over the view's own shape, C order being the flat order: its axes can then be run in
    // the file's order.
    if (const std::optional<Shape> shape = unflattened(in, buffers, n_out))
      if (NodePtr done = in_file_order(make_node(Op::Reshape, in->dtype, *shape, {in}, *shape),
                                       Shape(shape->size(), 1), std::nullopt))
        return done;
  }
  const Program prog = lower(in, buffers, standard);

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
    // A short sum of products is tinygrad's MULACC chain (mulacc.hpp).
    const Instance* product = mulacc_chain_product(prog, red->op, d, per);
    const auto n = static_cast<std::size_t>(per);
    parallel_for(
        chunks, [&] { return ChunkEvaluator(prog); },
        [&](ChunkEvaluator& ev, std::int64_t c) {
          const std::int64_t o0 = c * group, outs = std::min(group, n_out - o0);
          const Word* v = ev.run(o0 * per, static_cast<std::size_t>(outs * per));
          const Word* a = product ? ev.values(product->src[0]) : nullptr;
          const Word* b = product ? ev.values(product->src[1]) : nullptr;
          for (std::int64_t o = 0; o < outs; ++o)
            acc[static_cast<std::size_t>(o0 + o)] =
                product ? mulacc_chain(a + o * per, b + o * per, n, d) : fold.block(v + o * per, n, true);
        },
        prog.serial(), [&](std::int64_t done) { release(std::min(n_out, done * group) * per); },
        release.batch_items(group * per));
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
    // Blocks a batch makes: kBatchItems, fewer when they read far apart in a file (a step).
    const std::int64_t batch = release.batch_items(static_cast<std::int64_t>(kChunk));
    if (blocks <= batch) {
      // Whole trees of `group` outputs per batch.
      const std::int64_t group = batch / blocks;
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
      // One output's tree at a time, a subtree of up to `batch` blocks per batch (the same tree).
      for (std::int64_t o = 0; o < n_out; ++o) {
        auto make = [&](std::int64_t first, std::int64_t count, Word* made) {
          parallel_for(
              count, make_state, [&](ChunkEvaluator& ev, std::int64_t i) { made[i] = block(ev, o, first + i); },
              prog.serial());
          // tree_fold_batched makes its leaves left to right: all of [0, first + count) are done.
          release(o * per + std::min(per, (first + count) * static_cast<std::int64_t>(kChunk)));
        };
        acc[static_cast<std::size_t>(o)] =
            tree_fold_batched<Word>(0, blocks, batch, partial, make, combine, progress);
      }
    }
  }

  release.finish();
  return encoded(red, acc);
}

}  // namespace tensor_inspect::realize_detail
