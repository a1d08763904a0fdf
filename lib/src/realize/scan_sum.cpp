// scan_sum.cpp — Scan kernels: running sums along one axis (cumsum) in the order tinygrad's
// kernels add them, in one pass.
//
// tinygrad's cumsum (Tensor._split_cumalu) makes output i of a row of s elements a window
// sum: s-1 zeros padded in front, pooled, summed in the accumulation dtype (float32 for
// float32, float16, bfloat16 and fp8; float64 for float64) from 0.0 in element order, and
// rounded to the result dtype. Up to 512 elements that is the whole scan. Longer rows are
// padded in front to a multiple of 256 and cut into chunks of 256: an output is its chunk's
// running sum P plus its chunk's base B, both rounded to the result dtype, added in it. B(c)
// sums the chunk totals before c, another window sum, which tinygrad's scheduler splits in
// two stages once it adds 32768 totals or more (split_bases). Computed one output at a
// time, as the graph says, that is quadratic; here each lane (one row along the axis) keeps
// its running sums, so the same additions in the same order cost one pass. Checked bit for
// bit against tinygrad's CPU backend (tests/cumsum_vs_numpy.py holds the model).
//
// Ints wrap, so any order gives the same bits: they take one running sum.
//
// The input is (outer, len, inner) in C order, `len` the scanned axis, and the output the
// same from row `first` on (a shrink moved below the scan keeps only those); a work item is
// one outer index and a block of up to kChunk lanes, read a run of rows at a time. Where that
// C order reads a file out of order and the scanned axis moved first reads it in order (the
// scan of a transpose, x.T.cumsum(axis=1): the rows of x), the input is read in that order,
// every lane at once, and the outputs go to their places. A file read in order gives its pages
// back behind the rows done (release_behind.hpp): x.cumsum(axis=0)[-1] of a 256 MiB file held
// all of it, and x.T.cumsum(axis=1) read it through the map.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include "realize/kernels.hpp"

namespace tensor_inspect::realize_detail {
namespace {

constexpr std::int64_t kWhole = 512;                           // rows up to this: one window sum each
constexpr std::int64_t kSplit = 256;                           // longer rows: chunks of this many
constexpr std::int64_t kSplitThreshold = 32768;                // tinygrad's REDUCEOP_SPLIT_THRESHOLD
constexpr std::int64_t kSplitOutputs = std::int64_t{1} << 22;  // 2**REDUCEOP_SPLIT_SIZE

struct Layout {
  std::int64_t outer = 1, len = 0, inner = 1;
  std::int64_t s = 0;      ///< the row length the order is laid out for (len, or more when shrunk)
  std::int64_t first = 0;  ///< the first row kept in the output
  std::int64_t moved_inner = 0;  ///< read with the scanned axis first: the input's inner size (else 0)
  std::int64_t pad() const { return s > kWhole ? (kSplit - s % kSplit) % kSplit : 0; }
  std::int64_t chunks() const { return (s + pad()) / kSplit; }
};

// NOTE: tinygrad's kernels fold `x + 0.0` away where the padding is known when compiling:
// rows of up to 7 elements are unrolled whole, so every output starts from its first
// element and keeps a -0.0; rows of 8 to 32 unroll each window, not the outputs, so only
// the last output (no padding in its window) does; longer rows accumulate from 0.0, so a
// sum of negative zeros is 0.0 (tinygrad's CPU backend, cumsum of [-0.0] * n).
bool keeps_negative_zero(const Layout& l, std::int64_t i) { return l.s <= 7 || (l.s <= 32 && i == l.s - 1); }

// tinygrad's split_reduceop (schedule/rangeify.py) on the window sum that makes the bases:
// a window of C >= 32768 totals, over lanes * C outputs, is summed as d consecutive parts of
// C / d, then the parts in order, d the largest divisor of C in [8, min(256, 2**22 / (lanes
// * C))]. 0 when it does not split.
std::int64_t split_parts(const Layout& l) {
  const std::int64_t c = l.chunks(), outputs_cap = kSplitOutputs / std::max<std::int64_t>(c, 1);
  if (l.s <= kWhole || c < kSplitThreshold || l.outer * l.inner > outputs_cap) return 0;
  const std::int64_t top = std::min<std::int64_t>(256, kSplitOutputs / (l.outer * l.inner * c));
  for (std::int64_t d = top; d >= 8; --d)
    if (c % d == 0) return d;
  return 0;
}

struct ScanState {
  ChunkEvaluator ev;
  std::vector<Word> sums, bases;
  ReleaseBehind* release = nullptr;  ///< the one work item's: pages given back by rows
  std::function<void()> next_pass;    ///< with release, before a second pass over the rows: from row 0 again
  std::vector<std::byte> moved;      ///< a run's outputs in the moved order (moved_inner)
};

// Calls visit(i0, rows, values) for runs of rows of lanes [k0, k0 + kb) at outer index o:
// `values` holds rows x kb input words, row-major. Whole rows of lanes are contiguous, so a
// run holds as many as fit a chunk. With st.release (outer index 0, all lanes), the kernel
// indices of the rows done are given back after each run.
template <typename Visit>
void for_each_run(const Layout& l, std::int64_t o, std::int64_t k0, std::int64_t kb, ScanState& st, Visit visit) {
  const std::int64_t step = kb == l.inner ? std::max<std::int64_t>(1, static_cast<std::int64_t>(kChunk) / kb) : 1;
  for (std::int64_t i0 = 0; i0 < l.len; i0 += step) {
    const std::int64_t rows = std::min(step, l.len - i0);
    visit(i0, rows, st.ev.run((o * l.len + i0) * l.inner + k0, static_cast<std::size_t>(rows * kb)));
    if (st.release) (*st.release)((i0 + rows) * l.inner);
  }
}

// Writes the rows of a run that the output keeps (from l.first on) as `out` elements. With
// l.moved_inner, the lanes are the input's (outer, inner) lanes read with the scanned axis first:
// lane k goes to outer k / moved_inner, inner k % moved_inner of the output.
void emit(const Layout& l, DType out, std::int64_t o, std::int64_t k0, std::int64_t kb, std::int64_t i0,
          std::int64_t rows, const Word* w, std::byte* dst, ScanState& st) {
  const std::int64_t skip = std::clamp<std::int64_t>(l.first - i0, 0, rows);
  if (skip == rows) return;
  const std::size_t size = dtype_info(out).itemsize;
  const std::int64_t kept = l.len - l.first;
  if (l.moved_inner == 0) {
    const std::int64_t at = (o * kept + i0 + skip - l.first) * l.inner + k0;
    encode(out, w + skip * kb, static_cast<std::size_t>((rows - skip) * kb), dst + static_cast<std::size_t>(at) * size);
    return;
  }
  const auto n = static_cast<std::size_t>((rows - skip) * kb);
  st.moved.resize(n * size);
  encode(out, w + skip * kb, n, st.moved.data());
  const std::int64_t inner = l.moved_inner;
  for (std::int64_t r = skip; r < rows; ++r)
    for (std::int64_t k = 0; k < kb; k += inner) {  // a run of `inner` lanes is contiguous in the output
      const std::int64_t at = ((k / inner) * kept + i0 + r - l.first) * inner;
      std::memcpy(dst + static_cast<std::size_t>(at) * size,
                  st.moved.data() + static_cast<std::size_t>((r - skip) * kb + k) * size,
                  static_cast<std::size_t>(inner) * size);
    }
}

double round_to(DType d, double v) {
  Word w = wf(v);
  round_floats(d, &w, 1);
  return w.f;
}

// The bases of one lane's chunks [0, need) when tinygrad splits their window sum in d
// parts (see split_parts), from the lane's chunk totals t[0, need - 1).
template <typename Acc>
std::vector<double> split_bases(const std::vector<Acc>& t, std::int64_t c, std::int64_t d, std::int64_t need,
                                DType out) {
  const std::int64_t blk = c / d;
  // Base m is the sum over parts a of W(m - (c - 1) + blk * a), W(j) the sum of totals
  // [j, j + blk) (those before 0 are padding). W(j) for j < 0 is a prefix sum.
  std::vector<Acc> prefix(t.size());
  Acc run = 0;
  for (std::size_t j = 0; j < t.size(); ++j) prefix[j] = run += t[j];
  const std::int64_t direct = std::max<std::int64_t>(0, need - blk);  // W(j), 0 <= j < direct
  std::vector<Acc> w(static_cast<std::size_t>(direct));
  constexpr std::int64_t kLanes = 16, kBlock = 1024;
  // The costly part (direct * blk additions: tinygrad's own cost is c times more), in
  // blocks on all threads, 16 independent sums at a time.
  parallel_for((direct + kBlock - 1) / kBlock, [] { return 0; }, [&](int&, std::int64_t b) {
    for (std::int64_t j = b * kBlock; j < std::min(direct, (b + 1) * kBlock); j += kLanes) {
      Acc acc[kLanes] = {};
      const Acc* base = t.data() + j;
      const std::int64_t width = std::min(kLanes, direct - j);
      if (width == kLanes) {
        for (std::int64_t x = 0; x < blk; ++x)
          for (std::int64_t q = 0; q < kLanes; ++q) acc[q] += base[x + q];
      } else {
        for (std::int64_t q = 0; q < width; ++q)
          for (std::int64_t x = 0; x < blk; ++x) acc[q] += base[x + q];
      }
      std::copy(acc, acc + width, w.begin() + j);
    }
  });
  std::vector<double> bases(static_cast<std::size_t>(need), 0.0);
  for (std::int64_t m = 0; m + 1 < need; ++m) {
    Acc acc = 0;
    for (std::int64_t a = 0; a < d; ++a) {
      const std::int64_t j = m - (c - 1) + blk * a;
      const std::int64_t last = j + blk - 1;
      acc += j >= 0 ? w[static_cast<std::size_t>(j)] : last >= 0 ? prefix[static_cast<std::size_t>(last)] : Acc(0);
    }
    bases[static_cast<std::size_t>(m + 1)] = round_to(out, static_cast<double>(acc));
  }
  return bases;
}

// One work item of a float scan, summing in Acc (float or double) and rounding to `out`.
template <typename Acc>
void scan_floats(const Layout& l, DType out, std::int64_t o, std::int64_t k0, std::int64_t kb, ScanState& st,
                 std::byte* dst) {
  const auto lanes = static_cast<std::size_t>(kb);
  const bool chunked = l.s > kWhole;
  const std::int64_t pad = l.pad();
  std::vector<Acc> run(lanes, Acc(0));
  // The running sums of a run of rows, each rounded to `out`, into st.sums: the outputs of
  // a short row, the chunk sums P of a long one (restarting at each chunk).
  auto running_sums = [&](std::int64_t i0, std::int64_t rows, const Word* v) {
    for (std::int64_t r = 0; r < rows; ++r) {
      if (chunked && (i0 + r + pad) % kSplit == 0) std::fill(run.begin(), run.end(), Acc(0));
      const Word* in = v + r * kb;
      Word* p = st.sums.data() + r * kb;
      for (std::size_t k = 0; k < lanes; ++k) p[k].f = static_cast<double>(run[k] += static_cast<Acc>(in[k].f));
    }
    round_floats(out, st.sums.data(), static_cast<std::size_t>(rows * kb));
  };
  auto is_chunk_end = [&](std::int64_t i) { return (i + pad) % kSplit == kSplit - 1; };

  if (!chunked) {
    std::vector<unsigned char> negative_zeros(lanes, 1);  // every addend so far is -0.0
    for_each_run(l, o, k0, kb, st, [&](std::int64_t i0, std::int64_t rows, const Word* v) {
      running_sums(i0, rows, v);
      for (std::int64_t r = 0; l.s <= 32 && r < rows; ++r)
        for (std::size_t k = 0; k < lanes; ++k) {
          const double x = v[r * kb + static_cast<std::int64_t>(k)].f;
          negative_zeros[k] &= x == 0 && std::signbit(x);
          if (negative_zeros[k] && keeps_negative_zero(l, i0 + r))
            st.sums[static_cast<std::size_t>(r * kb) + k].f = -0.0;
        }
      emit(l, out, o, k0, kb, i0, rows, st.sums.data(), dst, st);
    });
    return;
  }

  // Bases: a running sum of the chunk totals, or, where tinygrad splits that sum, a table
  // made from all of a lane's totals in a first pass.
  const std::int64_t parts = split_parts(l), need = (l.len - 1 + pad) / kSplit + 1;
  std::vector<std::vector<double>> table;
  if (parts) {
    std::vector<std::vector<Acc>> totals(lanes);
    for_each_run(l, o, k0, kb, st, [&](std::int64_t i0, std::int64_t rows, const Word* v) {
      running_sums(i0, rows, v);
      for (std::int64_t r = 0; r < rows; ++r)
        if (is_chunk_end(i0 + r))
          for (std::size_t k = 0; k < lanes; ++k)
            totals[k].push_back(static_cast<Acc>(st.sums[static_cast<std::size_t>(r * kb) + k].f));
    });
    for (std::size_t k = 0; k < lanes; ++k) table.push_back(split_bases(totals[k], l.chunks(), parts, need, out));
    std::fill(run.begin(), run.end(), Acc(0));
    if (st.next_pass) st.next_pass();
  }
  std::vector<Acc> totals(lanes, Acc(0));
  std::vector<double> base(lanes, 0.0);  // chunk 0's base is the padding's 0
  for_each_run(l, o, k0, kb, st, [&](std::int64_t i0, std::int64_t rows, const Word* v) {
    running_sums(i0, rows, v);
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i = i0 + r;
      if (parts && (i + pad) % kSplit == 0)
        for (std::size_t k = 0; k < lanes; ++k) base[k] = table[k][static_cast<std::size_t>((i + pad) / kSplit)];
      const Word* p = st.sums.data() + r * kb;
      Word* b = st.bases.data() + r * kb;
      for (std::size_t k = 0; k < lanes; ++k) b[k].f = base[k];
      if (!parts && is_chunk_end(i))
        for (std::size_t k = 0; k < lanes; ++k)
          base[k] = round_to(out, static_cast<double>(totals[k] += static_cast<Acc>(p[k].f)));
    }
    // P + B, added in the result dtype as tinygrad's chunks.alu(ADD, base) is.
    const auto n = static_cast<std::size_t>(rows * kb);
    apply_binary_chunk(Op::Add, out, st.sums.data(), st.bases.data(), n, st.sums.data());
    emit(l, out, o, k0, kb, i0, rows, st.sums.data(), dst, st);
  });
}

// One work item of an int scan: one running sum, wrapping as the dtype does.
void scan_ints(const Layout& l, DType out, std::int64_t o, std::int64_t k0, std::int64_t kb, ScanState& st,
               std::byte* dst) {
  const auto lanes = static_cast<std::size_t>(kb);
  std::vector<std::uint64_t> run(lanes, 0);
  for_each_run(l, o, k0, kb, st, [&](std::int64_t i0, std::int64_t rows, const Word* v) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::size_t k = 0; k < lanes; ++k) {
        const auto at = static_cast<std::size_t>(r * kb) + k;
        st.sums[at].u = run[k] += v[at].u;
      }
    emit(l, out, o, k0, kb, i0, rows, st.sums.data(), dst, st);
  });
}

}  // namespace

namespace {

// A Scan kernel's layout: its rows (the scanned axis), the lanes before and after it.
Layout layout_of(const Kernel& k) {
  const NodePtr& node = k.output->op == Op::Contiguous ? k.output->src[0] : k.output;
  const Shape& arg = std::get<Shape>(node->arg);
  const auto axis = static_cast<std::size_t>(arg[0]);
  Layout l;
  l.len = node->src[0]->shape[axis];
  l.s = arg[1];
  l.first = arg[2];
  for (std::size_t d = 0; d < node->shape.size(); ++d) {
    if (d < axis) l.outer *= node->shape[d];
    if (d > axis) l.inner *= node->shape[d];
  }
  return l;
}

}  // namespace

int scan_passes(const Kernel& k) { return split_parts(layout_of(k)) != 0 ? 2 : 1; }

double scan_rows_read(const Kernel& k) {
  const NodePtr& node = k.output->op == Op::Contiguous ? k.output->src[0] : k.output;
  const Layout l = layout_of(k);
  const auto axis = static_cast<std::size_t>(std::get<Shape>(node->arg)[0]);
  if (l.len <= 0) return 0.0;
  return std::min(1.0, static_cast<double>(l.first + node->shape[axis]) / static_cast<double>(l.len));
}

NodePtr run_scan(const Kernel& k, const BufferMap& buffers) {
  const NodePtr& node = k.output->op == Op::Contiguous ? k.output->src[0] : k.output;
  const NodePtr& in = node->src[0];
  const auto axis = static_cast<std::size_t>(std::get<Shape>(node->arg)[0]);
  Layout l = layout_of(k);
  const DType out = node->dtype;
  const std::int64_t n = prod(node->shape);
  auto buf = Buffer::cpu(static_cast<std::size_t>(n) * dtype_info(out).itemsize);
  if (n > 0) {
    std::byte* dst = buf->mutable_bytes().data();
    Program prog = lower(in, buffers);  // the input's own C order
    const auto out_of_order = [](const Program& p) {
      return std::any_of(p.nodes.begin(), p.nodes.end(), [](const Instance& i) {
        return i.kind == Instance::Load && i.block_reads != Instance::BlockReadsFrom::None;
      });
    };
    if (l.outer > 1 && l.outer * l.inner <= static_cast<std::int64_t>(kChunk) && out_of_order(prog)) {
      std::vector<std::int64_t> axes{static_cast<std::int64_t>(axis)};
      for (std::size_t d = 0; d < in->shape.size(); ++d)
        if (d != axis) axes.push_back(static_cast<std::int64_t>(d));
      Program moved = lower(in, buffers, axes);
      if (!out_of_order(moved)) {  // the scanned axis first: every lane at once, in the file's order
        prog = std::move(moved);
        l.moved_inner = l.inner, l.inner *= l.outer, l.outer = 1;
      }
    }
    const std::int64_t lanes = std::min<std::int64_t>(l.inner, static_cast<std::int64_t>(kChunk));
    const std::int64_t blocks = (l.inner + lanes - 1) / lanes;
    const DType acc = in->dtype;
    // Pages given back behind the rows done: by rows inside one work item (a long float scan that
    // tinygrad splits reads its rows twice: given back in each pass, a remote file's fetched twice,
    // where it held all of them), or by work items, each a whole outer index, when there are several.
    const bool one_item = l.outer * blocks == 1;
    std::optional<ReleaseBehind> release;
    if (blocks == 1) release.emplace(prog);
    const auto next_pass = [&] {  // the same storage: ScanState's pointer stays good
      release->finish();
      release.emplace(prog);
    };
    const std::int64_t per_item = l.len * l.inner;
    const auto after_batch = [&](std::int64_t done) {
      if (release && !one_item) (*release)(done * per_item);
    };
    parallel_for(
        l.outer * blocks,
        [&] {
          const bool by_rows = release && one_item;
          return ScanState{ChunkEvaluator(prog), std::vector<Word>(kChunk), std::vector<Word>(kChunk),
                           by_rows ? &*release : nullptr, by_rows ? std::function<void()>(next_pass) : nullptr, {}};
        },
        [&](ScanState& st, std::int64_t item) {
          const std::int64_t o = item / blocks, k0 = item % blocks * lanes, kb = std::min(lanes, l.inner - k0);
          if (acc == DType::Float64) scan_floats<double>(l, out, o, k0, kb, st, dst);
          else if (acc == DType::Float32) scan_floats<float>(l, out, o, k0, kb, st, dst);
          else scan_ints(l, out, o, k0, kb, st, dst);
        },
        prog.serial(), after_batch,
        release && !one_item ? std::max<std::int64_t>(1, release->batch_items(per_item)) : kBatchItems);
    if (release) release->finish();
  }
  return make_node(Op::Buffer, out, node->shape, {}, buf);
}

}  // namespace tensor_inspect::realize_detail
