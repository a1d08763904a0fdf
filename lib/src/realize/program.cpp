// program.cpp — lowering a kernel body to instances (program.hpp); chunk_evaluator.cpp runs them.
#include "realize/program.hpp"

#include <algorithm>
#include <bit>
#include <optional>
#include <utility>
#include <vector>

#include "realize/fusion.hpp"
#include "realize/mulacc.hpp"
#include "realize/view_merge.hpp"
#include "realize/view_order.hpp"
#include "buffer/byte_source.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect::realize_detail {
namespace {

// A movement op on the way from the kernel's root down to a node.
struct MoveStep {
  Op op;
  Shape shape;  // the op's result shape
  Shape axes;   // Permute order, Flip axes
  Ranges ranges;  // Pad, Shrink
};

bool same_view(const View& a, const View& b) {
  return a.shape == b.shape && a.strides == b.strides && a.offset == b.offset && a.mask == b.mask;
}
bool same_views(const std::vector<View>& a, const std::vector<View>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same_view);
}

// Reads of a remote buffer this many or fewer are fetched element by element (coalesced).
constexpr std::int64_t kEnumerateReads = std::int64_t{1} << 16;

// A local file read in order with more than this many bytes between its elements, on average, is
// read through block caches (pread) rather than its map: a chunk of kChunk such reads spans more
// than the 32 MiB of pages a scan's batch holds (release_behind.hpp), and each read fault maps the
// folio it lands in whole, so one chunk held them all (x[:, 5].sum() of an (8192, 8192) float32:
// 261 MiB; x[::3, 7].sum() 200 MiB with the batches cut to a chunk).
constexpr std::uint64_t kSparseStepBytes = std::uint64_t{16} << 10;

// Whether a Load of a local mapped file under `views` read in order `order` lies that sparsely.
bool sparse_in_file(const std::vector<View>& views, int order, std::uint64_t itemsize) {
  if (views.empty() || order == 0) return false;
  const auto reach = scan_reach(views, order);
  const std::int64_t reads = prod(views.back().shape);
  if (!reach || reads <= 0) return false;
  const auto span = static_cast<std::uint64_t>(reach->second - reach->first + 1) * itemsize;
  return span / static_cast<std::uint64_t>(reads) > kSparseStepBytes;
}

/// Element runs [lo, hi] of a buffer, ascending.
using Runs = std::vector<std::pair<std::int64_t, std::int64_t>>;

class Lowering {
 public:
  Lowering(const BufferMap& buffers, Program& program, bool fetch)
      : buffers_(buffers), program_(program), fetch_(fetch) {}

  // `steps_` holds the movement ops above the current node, top first.
  std::size_t visit(const NodePtr& n) {
    const bool is_load = n->op == Op::Buffer || buffers_.count(n.get());
    if (!is_load && is_movement(n->op)) {
      steps_.push_back(step_of(*n));
      std::size_t r = visit(n->src[0]);
      steps_.pop_back();
      return r;
    }
    std::vector<View> views = index_map(n->shape);
    auto& seen = memo_[n.get()];
    for (const auto& [v, at] : seen)
      if (same_views(v, views)) return at;

    Instance inst;
    inst.op = n->op;
    inst.dtype = n->dtype;
    inst.masked = std::any_of(views.begin(), views.end(), [](const View& v) { return v.mask.has_value(); });
    inst.views = views;
    inst.node_numel = prod(n->shape);
    inst.node_rank = n->shape.size();
    if (is_load) {
      inst.after_reduce = n->op != Op::Buffer && (is_reduce(n->op) || is_scan(n->op));
      // (a BUFFER node too may have a stand-in: a remote tensor read twice, copied to disk once)
      const auto stand_in = buffers_.find(n.get());
      const NodePtr& buf = stand_in != buffers_.end() ? stand_in->second : n;
      inst.kind = Instance::Load;
      // With no views left (all contiguous), the loop reads elements [0, numel) of its own
      // shape: the shape of the topmost movement above the load, or the load's own.
      const Shape& loop = steps_.empty() ? n->shape : steps_.front().shape;
      const Buffer& buffer = *std::get<std::shared_ptr<Buffer>>(buf->arg);
      // A file read in order (no views, or views of a scan order: view_order.hpp) is given back
      // behind the kernel's scan; a remote one is fetched chunk by chunk as the kernel reads it
      // (in windows ahead), unless its views reach few elements. Under other views (a permute, a
      // broadcast) the elements they reach are fetched once, here.
      const bool in_file = buffer.device() == Device::DISK && buffer.file() && buffer.nbytes() > 0;
      inst.order = views.empty() ? 1 : scan_order(views);
      const std::size_t itemsize = dtype_info(n->dtype).itemsize;
      // A local one whose scan goes back over more than out_of_order_bytes (the block of a flip of
      // its inner axes: `x.reshape(2, -1).flip(1)`) would hold that block's pages: out of order.
      if (in_file && inst.order != 0 && !buffer.file()->is_remote() &&
          static_cast<std::uint64_t>(scan_block(views)) * itemsize > limits().out_of_order_bytes)
        inst.order = 0;
      // One that lies sparsely in a large file: read in blocks, as one out of order.
      const bool sparse = in_file && !buffer.file()->is_remote() && buffer.file()->is_mapped() &&
                          buffer.nbytes() > limits().out_of_order_bytes && std::has_single_bit(itemsize) &&
                          sparse_in_file(views, inst.order, itemsize);
      if (sparse) inst.order = 0;
      const bool few = !views.empty() && prod(views.back().shape) <= kEnumerateReads;
      // The few elements of a remote one, enumerated once: to choose how it is read, and to fetch.
      std::optional<Runs> few_runs;
      if (in_file && buffer.file()->is_remote() && few)
        few_runs = enumerated_runs(views, static_cast<std::int64_t>(itemsize));
      const bool spread = few_runs && spread_over_remote(*few_runs, static_cast<std::int64_t>(itemsize));
      inst.fetch_on_read = in_file && buffer.file()->is_remote() && inst.order != 0 && (!few || spread);
      // A large one read out of order (a permute, a broadcast) goes through block caches
      // (block_reads.hpp); a remote one of at most half of remote_memory_bytes is fetched here.
      if (in_file && inst.order == 0 && !inst.fetch_on_read && std::has_single_bit(itemsize) &&
          (!few || spread || sparse)) {
        if (buffer.file()->is_remote()) {
          if (buffer.nbytes() > limits().remote_memory_bytes / 2)
            inst.block_reads = Instance::BlockReadsFrom::RemoteFile;
        } else if (buffer.file()->is_mapped() && buffer.nbytes() > limits().out_of_order_bytes) {
          inst.block_reads = Instance::BlockReadsFrom::LocalMap;
        }
      }
      const bool blocks = inst.block_reads != Instance::BlockReadsFrom::None;
      inst.data = inst.fetch_on_read || blocks || (!fetch_ && buffer.device() == Device::DISK)
                      ? buffer.bytes_unfetched().data()
                      : fetch_reachable(buffer, views, loop, n->dtype, few_runs ? &*few_runs : nullptr);
      if (in_file && inst.order != 0) {
        inst.file = buffer.file().get();
        inst.file_offset = static_cast<std::uint64_t>(inst.data - inst.file->bytes().data());
        inst.file_bytes = buffer.nbytes();
      }
      if (blocks) {
        inst.file_bytes = buffer.nbytes();
        inst.block_caches = std::make_shared<BlockReadsPerThread>(
            inst.data, inst.file_bytes, itemsize, inst.block_reads == Instance::BlockReadsFrom::RemoteFile);
      }
    } else if (n->op == Op::Const) {
      inst.kind = Instance::Const;
      inst.value = word_of(cast_scalar(std::get<Scalar>(n->arg), compute_dtype(n->dtype)));
    } else if (n->op == Op::Cast && n->src[0]->op == Op::Const && is_float(n->dtype) &&
               is_float(n->src[0]->dtype)) {
      // A float constant's cast (a Python float the kernel commits, late_fold::weak_valued) is
      // a constant: computed once here, not per chunk.
      const Node& c = *n->src[0];
      inst.kind = Instance::Const;
      inst.value = word_of(cast_scalar(cast_scalar(std::get<Scalar>(c.arg), compute_dtype(c.dtype)),
                                       compute_dtype(n->dtype)));
    } else if (is_formula(*n)) {
      inst.kind = Instance::Formula;
      inst.formula = std::get<std::shared_ptr<const Producer>>(n->arg).get();
    } else if (is_elementwise(n->op)) {
      inst.kind = n->op == Op::Bitcast ? Instance::Bitcast : Instance::Elem;
      for (const auto& s : n->src) {
        inst.src.push_back(visit(s));
        inst.after_reduce = inst.after_reduce || program_.nodes[inst.src.back()].after_reduce;
      }
      fuse_mulacc(program_, inst);
    } else {
      throw Error(ErrorCode::Internal,
                  std::string("internal: ") + std::string(op_name(n->op)) + " inside a fused loop");
    }
    program_.nodes.push_back(std::move(inst));
    seen.emplace_back(std::move(views), program_.nodes.size() - 1);
    return program_.nodes.size() - 1;
  }

  std::vector<MoveStep> steps_;

 private:
  /// The buffer's bytes, of which the elements `views` can reach have been fetched when the
  /// buffer lies in a remote file: a slice or a summary of a remote tensor reads only its part.
  /// `runs`: the views' enumerated_runs when already made (null: made here when needed).
  static const std::byte* fetch_reachable(const Buffer& buffer, const std::vector<View>& views, const Shape& loop,
                                          DType dtype, const Runs* runs) {
    if (buffer.device() != Device::DISK || !remote_files_open()) return buffer.bytes().data();
    const std::span<const std::byte> all = buffer.bytes_unfetched();
    const auto itemsize = static_cast<std::int64_t>(dtype_info(dtype).itemsize);
    const auto total = static_cast<std::int64_t>(all.size());
    // Fetches the elements [lo, hi] of the buffer, or all of it when they fall outside.
    auto fetch = [&](std::int64_t lo, std::int64_t hi) {
      if (lo < 0 || (hi + 1) * itemsize > total) return (void)buffer.bytes();
      fetch_bytes(
          all.subspan(static_cast<std::size_t>(lo * itemsize), static_cast<std::size_t>((hi - lo + 1) * itemsize)));
    };
    if (views.empty()) {  // x[:3] of a remote file: its first 3 elements, not the rest of the file
      std::int64_t n = 1;
      for (std::int64_t d : loop) n *= d;
      if (n > 0) fetch(0, n - 1);
      return all.data();
    }
    const View& top = views.back();
    std::int64_t count = 1;
    for (std::int64_t d : top.shape) count *= d;
    if (count <= kEnumerateReads) {
      // Few elements (a summary's edges, a small slice): each one's index, in runs of nearby ones.
      const Runs made = runs ? Runs{} : enumerated_runs(views, itemsize);
      for (const auto& [lo, hi] : runs ? *runs : made) fetch(lo, hi);
      return all.data();
    }
    // Otherwise the bottom view's image, within its mask.
    const View& v = views.front();
    std::int64_t lo = v.offset, hi = v.offset;
    for (std::size_t d = 0; d < v.shape.size(); ++d) {
      std::int64_t first = 0, last = v.shape[d] - 1;
      if (v.mask) first = std::max(first, (*v.mask)[d].first), last = std::min(last, (*v.mask)[d].second - 1);
      if (last < first) return all.data();  // nothing reachable
      const std::int64_t stride = v.strides.empty() ? 0 : v.strides[d];
      lo += std::min(stride * first, stride * last), hi += std::max(stride * first, stride * last);
    }
    if (v.strides.empty()) return buffer.bytes().data();
    fetch(lo, hi);
    return all.data();
  }

  /// The element runs [lo, hi] the views read, when their top view has at most kEnumerateReads
  /// elements: each element's index, ascending, joined where less than a fetch block apart.
  static Runs enumerated_runs(const std::vector<View>& views, std::int64_t itemsize) {
    std::vector<std::int64_t> at;
    for (std::int64_t i = 0; i < prod(views.back().shape); ++i) {
      std::int64_t idx = i;
      for (std::size_t j = views.size(); j-- > 0 && idx >= 0;) idx = map_index(views[j], idx);
      if (idx >= 0) at.push_back(idx);
    }
    std::sort(at.begin(), at.end());
    const std::int64_t gap = static_cast<std::int64_t>(kFetchBlock) / itemsize;
    Runs runs;
    for (const std::int64_t i : at) {
      if (!runs.empty() && i - runs.back().second < gap) runs.back().second = i;
      else runs.emplace_back(i, i);
    }
    return runs;
  }

  /// Whether the few elements a view reads (its enumerated_runs) lie in more fetch blocks of a
  /// remote file than half of remote_memory_bytes holds: fetched at once before the kernel,
  /// x[::4096] of a 120 MB tensor held all of it under a 16 MiB limit. Such a Load is read in
  /// windows (in order) or through a block cache (out of order) instead.
  static bool spread_over_remote(const Runs& runs, std::int64_t itemsize) {
    std::uint64_t bytes = 0;
    for (const auto& [lo, hi] : runs)
      bytes += static_cast<std::uint64_t>(hi - lo + 1) * static_cast<std::uint64_t>(itemsize) + kFetchBlock;
    return bytes > limits().remote_memory_bytes / 2;
  }

  static MoveStep step_of(const Node& m) {
    MoveStep s{m.op, m.shape, {}, {}};
    if (m.op == Op::Permute || m.op == Op::Flip) s.axes = std::get<Shape>(m.arg);
    if (m.op == Op::Pad || m.op == Op::Shrink) s.ranges = std::get<Ranges>(m.arg);
    return s;
  }

  // The Views that map the kernel's index space to C order over `base`: the movement ops
  // above the node applied bottom-up to a fresh view of it (tinygrad's ShapeTracker). A
  // reshape a view cannot express starts a new view on top.
  std::vector<View> index_map(const Shape& base) const {
    std::vector<View> views;
    View v = View::make(base);
    for (std::size_t i = steps_.size(); i-- > 0;) {
      const MoveStep& m = steps_[i];
      switch (m.op) {
        case Op::Reshape:
          if (auto r = v.reshape(m.shape)) {
            v = *r;
          } else {
            views.push_back(v);
            v = View::make(m.shape);
          }
          break;
        case Op::Permute: v = v.permute(m.axes); break;
        case Op::Expand: v = v.expand(m.shape); break;
        case Op::Pad: v = v.pad(m.ranges); break;
        case Op::Shrink: v = v.shrink(m.ranges); break;
        case Op::Flip: {
          std::vector<bool> axes(m.shape.size(), false);
          for (auto a : m.axes) axes[static_cast<std::size_t>(a)] = true;
          v = v.flip(axes);
          break;
        }
        default: break;
      }
    }
    views.push_back(v);
    // A View over another that one View can say (view_merge.hpp): x.T[::2] reads in order.
    while (views.size() >= 2) {
      std::optional<View> both = merge_views(views[views.size() - 2], views.back());
      if (!both) break;
      views.pop_back();
      views.back() = std::move(*both);
    }
    std::erase_if(views, [](const View& view) { return view.contiguous; });
    return views;
  }

  const BufferMap& buffers_;
  Program& program_;
  bool fetch_;  ///< false: a program only looked at, nothing fetched
  std::unordered_map<const Node*, std::vector<std::pair<std::vector<View>, std::size_t>>> memo_;
};

}  // namespace

std::int64_t map_index(const View& v, std::int64_t idx) {
  std::int64_t out = v.offset;
  for (std::size_t d = v.shape.size(); d-- > 0;) {
    std::int64_t dim = v.shape[d];
    std::int64_t i = idx % dim;
    idx /= dim;
    if (v.mask && (i < (*v.mask)[d].first || i >= (*v.mask)[d].second)) return -1;
    out += i * v.strides[d];
  }
  return out;
}


Program lower(const NodePtr& body, const BufferMap& buffers, const std::optional<std::vector<std::int64_t>>& permute,
              bool fetch) {
  Program p;
  Lowering l(buffers, p, fetch);
  p.space = body->shape;
  if (permute) {
    Shape s;
    for (auto a : *permute) s.push_back(body->shape[static_cast<std::size_t>(a)]);
    p.space = s;
    l.steps_.push_back(MoveStep{Op::Permute, s, *permute, {}});
  }
  l.visit(body);
  p.order = ChunkOrder{prod(p.space)};  // linear until a Loop kernel's runner bands it
  // The Loads read through block caches share the cap between them: three of x.T's in one kernel
  // held 32 MiB each (105 MiB peak for a 256 MiB file; 42 MiB shared).
  const auto cached = static_cast<std::uint64_t>(
      std::count_if(p.nodes.begin(), p.nodes.end(), [](const Instance& i) { return i.block_caches != nullptr; }));
  for (Instance& i : p.nodes)
    if (i.block_caches) i.block_caches->share(cached);
  return p;
}

}  // namespace tensor_inspect::realize_detail
