// reduce_file_order.cpp — a reduction whose own order reads a file out of order, folded in the
// file's order. `x.T.sum()` of a (R, C) file folds the (C, R) index space in C order: blocks of
// kChunk elements, each folded left to right, the block partials met in a tree (reduce.cpp).
// That order reads the file column by column: every page of it at once. Here the kernel runs
// the input's axes in an order that reads the file front to back (x.T's: the file's own), and
// each element is folded into the partial of the block it belongs to in the reduction's order,
// when it is that block's next element (every block keeps a partial and a cursor: one Word and
// two bytes per kChunk elements). A block whose elements the file holds in order is done in one
// scan; one whose order turns back (two columns of x.T in one block: its second column starts
// back at the file's first row) goes on in the next scan, from where it stopped. The scans
// release the pages behind them, so memory stays bounded, and every block folds exactly the
// elements it folds in reduce.cpp, in the same order, so the values are the same bit for bit.
// Taken when the fold takes at most kMaxPasses scans (counted before reading, from the axes).
#include "realize/reduce_file_order.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "buffer/byte_source.hpp"
#include "realize/chunk.hpp"
#include "realize/kernels.hpp"
#include "realize/mulacc.hpp"
#include "realize/release_behind.hpp"

namespace tensor_inspect::realize_detail {
namespace {

/// Scans of the file a plan may take: each reads the whole file again.
constexpr std::int64_t kMaxPasses = 4;

/// Block partials a plan may keep (a Word and a cursor each): 20 MiB.
constexpr std::int64_t kMaxPartials = std::int64_t{1} << 21;

// Whether Load `i` reads a remote file read whole, not through block caches (at most half of
// remote_memory_bytes): the plain kernel fetches it once, where each scan of a fold in the
// file's order fetches it again (x.sum() of a remote 8 MB Fortran-order file: 4 scans, 31.8 MB).
bool fetched_whole(const Instance& i) {
  if (i.kind != Instance::Load || i.order != 0 || i.block_reads != Instance::BlockReadsFrom::None ||
      !remote_files_open())
    return false;
  bool remote = false;
  visit_byte_sources([&](ByteSource& s) { remote = remote || (i.data >= s.base() && i.data < s.base() + s.size()); });
  return remote;
}

std::int64_t file_loads(const Program& p) {
  return std::count_if(p.nodes.begin(), p.nodes.end(),
                       [](const Instance& i) { return i.kind == Instance::Load && i.file != nullptr; });
}

// C-order strides, size-1 axes included (strides_for_shape gives those 0: passes_of divides by them).
std::vector<std::int64_t> c_strides(const Shape& s) {
  std::vector<std::int64_t> st(s.size(), 1);
  for (std::size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

// The buffer index kernel index `linear` reads under `views` (bottom first), their masks aside.
std::int64_t read_at(const std::vector<View>& views, std::int64_t linear) {
  for (std::size_t j = views.size(); j-- > 0;) {
    const View& v = views[j];
    const std::vector<std::int64_t> st = v.strides.size() == v.shape.size() ? v.strides : c_strides(v.shape);
    std::int64_t out = v.offset;
    for (std::size_t d = v.shape.size(); d-- > 0;) out += linear % v.shape[d] * st[d], linear /= v.shape[d];
    linear = out;
  }
  return linear;
}

// Multiples of p in (s, e - 1]: the steps at those indices of a block [s, e).
std::int64_t multiples(std::int64_t p, std::int64_t s, std::int64_t e) { return (e - 1) / p - s / p; }

// Scans the fold takes: 1 + the most times a block's next element lies behind the one before it
// in the kernel's order. Stepping the reduction's axis i (those after it back to 0) moves the
// kernel's index by its stride there less the reach of the axes after it; where that is negative,
// each step of axis i inside a block is one more scan.
std::int64_t passes_of(const Shape& shape, const std::vector<std::int64_t>& kernel_stride, std::int64_t per,
                       std::int64_t outputs) {
  const std::size_t nd = shape.size();
  const std::vector<std::int64_t> span = c_strides(shape);  // steps between two steps of axis i
  std::vector<bool> back(nd, false);
  for (std::size_t i = 0; i < nd; ++i) {
    std::int64_t delta = kernel_stride[i];
    for (std::size_t j = i + 1; j < nd; ++j) delta -= kernel_stride[j] * (shape[j] - 1);
    back[i] = shape[i] > 1 && delta < 0;
  }
  const auto chunk = static_cast<std::int64_t>(kChunk);
  const std::int64_t blocks = (per + chunk - 1) / chunk;
  std::int64_t most = 0;
  for (std::int64_t o = 0; o < outputs; ++o) {
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t s = o * per + b * chunk, e = o * per + std::min(per, (b + 1) * chunk);
      std::int64_t turns = 0;
      for (std::size_t i = 0; i < nd; ++i)
        if (back[i]) turns += multiples(span[i], s, e) - (i > 0 ? multiples(span[i - 1], s, e) : 0);
      most = std::max(most, turns);
    }
  }
  return most + 1;
}

}  // namespace

std::optional<FileOrderPlan> plan_file_order(const NodePtr& in, const BufferMap& buffers, const Shape& out_shape,
                                             const std::optional<std::vector<std::int64_t>>& standard) {
  const std::size_t nd = in->shape.size();
  std::vector<std::int64_t> own(nd);
  std::iota(own.begin(), own.end(), 0);
  if (standard) own = *standard;
  const std::int64_t outputs = prod(out_shape), total = prod(in->shape);
  if (outputs == 0 || total == 0) return std::nullopt;
  const std::int64_t per = total / outputs;
  const auto chunk = static_cast<std::int64_t>(kChunk);
  if (outputs * ((per + chunk - 1) / chunk) > kMaxPartials) return std::nullopt;
  // Candidates: the axes by how far a step of each moves a Load read out of order in its buffer,
  // farthest first (through all its views: x.T[::2] may stack two).
  const Program plain = lower(in, buffers, std::nullopt, false);
  const std::vector<std::int64_t> in_cs = c_strides(in->shape);
  std::vector<std::vector<std::int64_t>> candidates;
  for (const Instance& i : plain.nodes) {
    if (i.kind != Instance::Load || i.order != 0 || i.views.empty()) continue;
    std::vector<std::int64_t> st(nd);
    const std::int64_t origin = read_at(i.views, 0);
    for (std::size_t a = 0; a < nd; ++a) st[a] = in->shape[a] > 1 ? read_at(i.views, in_cs[a]) - origin : 0;
    std::vector<std::int64_t> order(nd);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int64_t a, std::int64_t b) { return std::abs(st[static_cast<std::size_t>(a)]) >
                                                                 std::abs(st[static_cast<std::size_t>(b)]); });
    if (order != own && std::find(candidates.begin(), candidates.end(), order) == candidates.end())
      candidates.push_back(order);
  }
  if (candidates.empty()) return std::nullopt;
  std::int64_t best = file_loads(lower(in, buffers, standard, false));
  std::optional<std::vector<std::int64_t>> chosen;
  for (const auto& c : candidates) {
    const std::int64_t n = file_loads(lower(in, buffers, c, false));
    if (n > best) best = n, chosen = c;
  }
  if (!chosen) return std::nullopt;
  // Where each input axis lies in the kernel's order and in the reduction's.
  std::vector<std::size_t> at_kernel(nd), at_own(nd);
  for (std::size_t k = 0; k < nd; ++k) {
    at_kernel[static_cast<std::size_t>((*chosen)[k])] = k;
    at_own[static_cast<std::size_t>(own[k])] = k;
  }
  Shape kernel_shape, own_shape;
  for (std::size_t k = 0; k < nd; ++k) {
    kernel_shape.push_back(in->shape[static_cast<std::size_t>((*chosen)[k])]);
    own_shape.push_back(in->shape[static_cast<std::size_t>(own[k])]);
  }
  const std::vector<std::int64_t> kernel_cs = c_strides(kernel_shape), own_cs = c_strides(own_shape);
  FileOrderPlan plan{*chosen, std::vector<std::int64_t>(nd), per, outputs, 0};
  std::vector<std::int64_t> kernel_stride(nd);  // of the reduction's axis i in the kernel's index
  for (std::size_t k = 0; k < nd; ++k) {
    plan.logical_step[k] = own_cs[at_own[static_cast<std::size_t>((*chosen)[k])]];
    kernel_stride[k] = kernel_cs[at_kernel[static_cast<std::size_t>(own[k])]];
  }
  plan.passes = passes_of(own_shape, kernel_stride, per, outputs);
  if (plan.passes > kMaxPasses) return std::nullopt;
  if (plan.passes > 1 && std::any_of(plain.nodes.begin(), plain.nodes.end(), fetched_whole)) return std::nullopt;
  return plan;
}

std::vector<Word> fold_in_file_order(const Program& prog, const Fold& fold, const FileOrderPlan& plan) {
  const auto chunk = static_cast<std::int64_t>(kChunk);
  const std::int64_t per = plan.per, blocks = (per + chunk - 1) / chunk, total = per * plan.outputs;
  const std::size_t nd = prog.space.size();
  std::vector<Word> partial(static_cast<std::size_t>(blocks * plan.outputs));
  std::vector<std::uint16_t> next(partial.size(), 0);  // each block's elements folded so far
  std::int64_t folded = 0;
  ChunkEvaluator ev(prog);
  // A short sum of products is tinygrad's MULACC chain (mulacc.hpp), as in reduce.cpp.
  const Instance* product = mulacc_chain_product(prog, fold.op, fold.dtype, per);
  // Scans until every block is done: each one folds, in every block left, at least its next
  // element (the first scan: plan.passes of them).
  while (folded < total) {
    ReleaseBehind release(prog);
    std::vector<std::int64_t> idx(nd, 0);  // the kernel's multi-index, and its index in the reduction's order
    std::int64_t l = 0;
    for (std::int64_t start = 0; start < total; start += chunk) {
      const auto n = static_cast<std::size_t>(std::min(chunk, total - start));
      const Word* v = ev.run(start, n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t o = plan.outputs == 1 ? 0 : l / per, within = l - o * per;
        const std::int64_t b = within / chunk, g = o * blocks + b;
        const auto t = static_cast<std::uint16_t>(within % chunk);
        auto& at = next[static_cast<std::size_t>(g)];
        if (at == t) {
          Word& acc = partial[static_cast<std::size_t>(g)];
          if (product)
            acc = mulacc_chain_step(acc, ev.values(product->src[0])[i].f, ev.values(product->src[1])[i].f, t,
                                    fold.dtype);
          else
            acc = t == 0 ? fold.block(v + i, 1, b == 0) : fold.step(acc, v[i]);
          ++at, ++folded;
        }
        for (std::size_t k = nd; k-- > 0;) {  // the next kernel index
          l += plan.logical_step[k];
          if (++idx[k] < prog.space[k]) break;
          l -= plan.logical_step[k] * prog.space[k];
          idx[k] = 0;
        }
      }
      release(start + static_cast<std::int64_t>(n));
      if ((start / chunk) % 64 == 63) report_progress(folded, total);
    }
    release.finish();
  }
  std::vector<Word> out(static_cast<std::size_t>(plan.outputs));
  auto combine = [&fold](Word a, Word c) { return fold.combine(a, c); };
  for (std::int64_t o = 0; o < plan.outputs; ++o)
    out[static_cast<std::size_t>(o)] = tree_fold(partial.data() + o * blocks, blocks, combine);
  return out;
}

}  // namespace tensor_inspect::realize_detail
