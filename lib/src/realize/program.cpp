// program.cpp — lowering a kernel body to instances (program.hpp) and running chunks of it.
#include "realize/program.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <type_traits>

#include "realize/fusion.hpp"
#include "buffer/byte_source.hpp"
#include "tensor_inspect/error.hpp"

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

std::int64_t map_index(const View& v, std::int64_t idx);

class Lowering {
 public:
  Lowering(const BufferMap& buffers, Program& program) : buffers_(buffers), program_(program) {}

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
    if (is_load) {
      const NodePtr& buf = n->op == Op::Buffer ? n : buffers_.at(n.get());
      inst.kind = Instance::Load;
      // With no views left (all contiguous), the loop reads elements [0, numel) of its own
      // shape: the shape of the topmost movement above the load, or the load's own.
      const Shape& loop = steps_.empty() ? n->shape : steps_.front().shape;
      const Buffer& buffer = *std::get<std::shared_ptr<Buffer>>(buf->arg);
      // A remote file read with no views is fetched chunk by chunk as the kernel reads it;
      // under views (a slice, a permute) the elements they reach are fetched once, here.
      inst.fetch_on_read = views.empty() && buffer.device() == Device::DISK && buffer.file() &&
                           buffer.file()->is_remote() && buffer.nbytes() > 0;
      inst.data = inst.fetch_on_read ? buffer.bytes_unfetched().data() : fetch_reachable(buffer, views, loop, n->dtype);
      if (views.empty() && buffer.device() == Device::DISK && buffer.file()) {
        inst.file = buffer.file().get();
        inst.file_offset = static_cast<std::uint64_t>(inst.data - inst.file->bytes().data());
        inst.file_bytes = buffer.nbytes();
      }
    } else if (n->op == Op::Const) {
      inst.kind = Instance::Const;
      inst.value = word_of(cast_scalar(std::get<Scalar>(n->arg), compute_dtype(n->dtype)));
    } else if (is_formula(*n)) {
      inst.kind = Instance::Formula;
      inst.formula = std::get<std::shared_ptr<const Producer>>(n->arg).get();
    } else if (is_elementwise(n->op)) {
      inst.kind = n->op == Op::Bitcast ? Instance::Bitcast : Instance::Elem;
      for (const auto& s : n->src) inst.src.push_back(visit(s));
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
  static const std::byte* fetch_reachable(const Buffer& buffer, const std::vector<View>& views, const Shape& loop,
                                          DType dtype) {
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
      std::vector<std::int64_t> at;
      for (std::int64_t i = 0; i < count; ++i) {
        std::int64_t idx = i;
        for (std::size_t j = views.size(); j-- > 0 && idx >= 0;) idx = map_index(views[j], idx);
        if (idx >= 0) at.push_back(idx);
      }
      std::sort(at.begin(), at.end());
      const std::int64_t gap = static_cast<std::int64_t>(kFetchBlock) / itemsize;
      for (std::size_t k = 0; k < at.size();) {
        std::size_t e = k;
        while (e + 1 < at.size() && at[e + 1] - at[e] < gap) ++e;
        fetch(at[k], at[e]);
        k = e + 1;
      }
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
    std::erase_if(views, [](const View& view) { return view.contiguous; });
    return views;
  }

  const BufferMap& buffers_;
  Program& program_;
  std::unordered_map<const Node*, std::vector<std::pair<std::vector<View>, std::size_t>>> memo_;
};

// Maps a linear index of view.shape through the view to a linear index of the space under
// it, or -1 where the mask hides it.
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

bool hidden(const View& v, const std::vector<std::int64_t>& c) {
  for (std::size_t d = 0; d < c.size(); ++d)
    if (c[d] < (*v.mask)[d].first || c[d] >= (*v.mask)[d].second) return true;
  return false;
}

// The view applied to the consecutive indices [start, start + n): one multi-index counter
// stepped like an odometer, so each element costs an add, not a division per axis.
void walk_view(const View& v, std::int64_t start, std::size_t n, std::int64_t* out, std::vector<std::int64_t>& c) {
  const std::size_t nd = v.shape.size();
  c.assign(nd, 0);
  std::int64_t rest = start, off = v.offset;
  for (std::size_t d = nd; d-- > 0;) {
    c[d] = rest % v.shape[d];
    rest /= v.shape[d];
    off += c[d] * v.strides[d];
  }
  if (nd == 0) {
    std::fill(out, out + n, off);
    return;
  }
  const std::int64_t last_stride = v.strides[nd - 1], last_dim = v.shape[nd - 1];
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = v.mask && hidden(v, c) ? -1 : off;
    off += last_stride;
    if (++c[nd - 1] < last_dim) continue;
    std::size_t d = nd - 1;
    while (true) {
      off -= c[d] * v.strides[d];
      c[d] = 0;
      if (d == 0) break;
      --d;
      off += v.strides[d];
      if (++c[d] < v.shape[d]) break;
    }
  }
}

}  // namespace

Program lower(const NodePtr& body, const BufferMap& buffers, const std::optional<std::vector<std::int64_t>>& permute) {
  Program p;
  Lowering l(buffers, p);
  p.space = body->shape;
  if (permute) {
    Shape s;
    for (auto a : *permute) s.push_back(body->shape[static_cast<std::size_t>(a)]);
    p.space = s;
    l.steps_.push_back(MoveStep{Op::Permute, s, *permute, {}});
  }
  l.visit(body);
  return p;
}

namespace {

/// Elements one chunk of `space` can hold: kChunk, or fewer for a smaller space, so a
/// scalar's evaluator holds words for one element, not 2048 (each fresh 4 KiB page of
/// scratch is a page fault; at start-up they were 12 of 160).
std::size_t chunk_capacity(const Shape& space) {
  std::size_t n = 1;
  for (const std::int64_t d : space) {
    if (d <= 0) return 1;
    if (static_cast<std::uint64_t>(d) >= kChunk) return kChunk;
    n = std::min<std::size_t>(kChunk, n * static_cast<std::size_t>(d));
  }
  return n;
}

}  // namespace

ChunkEvaluator::ChunkEvaluator(const Program& program)
    : program_(program),
      capacity_(chunk_capacity(program.space)),
      values_(program.nodes.size()),
      idx_(capacity_),
      const_ready_(program.nodes.size(), false) {
  for (auto& v : values_) v.resize(capacity_);
}

const std::int64_t* ChunkEvaluator::indices(const Instance& inst, std::int64_t start, std::size_t n) {
  std::int64_t* idx = idx_.data();
  if (inst.views.empty()) {
    for (std::size_t i = 0; i < n; ++i) idx[i] = start + static_cast<std::int64_t>(i);
    return idx;
  }
  walk_view(inst.views.back(), start, n, idx, counter_);
  for (std::size_t j = inst.views.size() - 1; j-- > 0;)
    for (std::size_t i = 0; i < n; ++i)
      if (idx[i] >= 0) idx[i] = map_index(inst.views[j], idx[i]);
  return idx;
}

void ChunkEvaluator::gather(std::size_t k, std::int64_t start, std::size_t n, std::byte* out) {
  assert(n <= capacity_);
  const Instance& inst = program_.nodes[k];
  const std::size_t itemsize = dtype_info(inst.dtype).itemsize;
  if (inst.views.empty()) {
    if (inst.fetch_on_read)
      inst.file->fetch(inst.file_offset + static_cast<std::uint64_t>(start) * itemsize, n * itemsize);
    std::memcpy(out, inst.data + static_cast<std::size_t>(start) * itemsize, n * itemsize);
    return;
  }
  const std::int64_t* idx = indices(inst, start, n);
  const auto copy = [&](auto size) {  // a fixed size per dtype: each copy is one move
    for (std::size_t i = 0; i < n; ++i, out += size) {
      if (idx[i] < 0) std::memset(out, 0, size);
      else std::memcpy(out, inst.data + static_cast<std::size_t>(idx[i]) * size, size);
    }
  };
  switch (itemsize) {
    case 1: copy(std::integral_constant<std::size_t, 1>{}); break;
    case 2: copy(std::integral_constant<std::size_t, 2>{}); break;
    case 4: copy(std::integral_constant<std::size_t, 4>{}); break;
    case 8: copy(std::integral_constant<std::size_t, 8>{}); break;
    default: copy(itemsize);
  }
}

const Word* ChunkEvaluator::run(std::int64_t start, std::size_t n) {
  assert(n <= capacity_);
  for (std::size_t k = 0; k < program_.nodes.size(); ++k) {
    const Instance& inst = program_.nodes[k];
    Word* out = values_[k].data();
    switch (inst.kind) {
      case Instance::Load:
        if (inst.views.empty()) {
          const std::size_t itemsize = dtype_info(inst.dtype).itemsize;
          if (inst.fetch_on_read)
            inst.file->fetch(inst.file_offset + static_cast<std::uint64_t>(start) * itemsize, n * itemsize);
          decode(inst.dtype, inst.data + static_cast<std::size_t>(start) * itemsize, nullptr, n, out);
        } else
          decode(inst.dtype, inst.data, indices(inst, start, n), n, out);
        continue;
      case Instance::Const:
        if (!inst.masked) {
          if (!const_ready_[k]) std::fill(out, out + capacity_, inst.value);
          const_ready_[k] = true;
        } else {
          const std::int64_t* idx = indices(inst, start, n);
          for (std::size_t i = 0; i < n; ++i) out[i] = idx[i] < 0 ? Word{} : inst.value;
        }
        continue;
      case Instance::Formula: {
        if (inst.formula->float_range && inst.views.empty()) {
          // NOTE: Word is a union of 8-byte members; its array is written as doubles.
          inst.formula->float_range(start, std::span<double>(&out[0].f, n));
          continue;
        }
        const std::int64_t* idx = indices(inst, start, n);
        for (std::size_t i = 0; i < n; ++i) out[i] = idx[i] < 0 ? Word{} : word_of(inst.formula->element(idx[i]));
        continue;
      }
      case Instance::Bitcast: {
        const Instance& from = program_.nodes[inst.src[0]];
        bytes_.resize(n * dtype_info(from.dtype).itemsize);
        // Stored elements are reinterpreted as they lie (bit for bit); computed ones as
        // their dtype encodes them.
        if (from.kind == Instance::Load) gather(inst.src[0], start, n, bytes_.data());
        else encode(from.dtype, values_[inst.src[0]].data(), n, bytes_.data());
        decode(inst.dtype, bytes_.data(), nullptr, n, out);
        break;
      }
      case Instance::Elem: {
        const Word* a = values_[inst.src[0]].data();
        if (inst.op == Op::Where) {
          apply_where_chunk(a, values_[inst.src[1]].data(), values_[inst.src[2]].data(), n, out);
        } else if (is_binary(inst.op)) {
          apply_binary_chunk(inst.op, program_.nodes[inst.src[0]].dtype, a, values_[inst.src[1]].data(), n, out);
        } else {
          apply_unary_chunk(inst.op, program_.nodes[inst.src[0]].dtype, inst.dtype, a, n, out);
        }
        break;
      }
    }
    if (inst.masked) {
      const std::int64_t* idx = indices(inst, start, n);
      for (std::size_t i = 0; i < n; ++i)
        if (idx[i] < 0) out[i] = Word{};
    }
  }
  return values_[program_.root()].data();
}

}  // namespace tensor_inspect::realize_detail
