// execute.cpp — the CPU executor: runs a schedule's kernels and returns buffers.
//
// A Loop kernel evaluates its fused expression tree over chunks of output indices: each
// tree node maps a chunk of linear indices of its own shape to values. Movement ops turn
// into index maps (a short list of Views, tinygrad's ShapeTracker), so they never copy;
// pad's masked indices read as 0. Values travel as Scalars in the widest form of their
// kind and are rounded to the node's dtype after every op (scalar_ops.hpp).
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "realize/fusion.hpp"
#include "realize/scalar_ops.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect {
namespace {

using namespace realize_detail;

constexpr std::size_t kChunk = 1024;

struct KNode {
  enum Kind { Load, Const, Formula, Move, Elem } kind = Const;
  Op op = Op::Const;
  DType dtype = DType::Float32;
  std::vector<KNode*> src;
  const std::byte* data = nullptr;  // Load
  Scalar value;                     // Const
  const Producer* formula = nullptr;  // Formula
  std::vector<View> views;          // Move: applied last to first
  std::vector<std::vector<Scalar>> scratch;
  std::vector<std::int64_t> idx_scratch;
};

// Maps a linear index of view.shape through the view to a linear index of the space under
// it, or -1 where the mask hides it.
inline std::int64_t map_index(const View& v, std::int64_t idx) {
  if (v.contiguous) return idx;
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

class LoopProgram {
 public:
  LoopProgram(const NodePtr& body, const std::unordered_map<const Node*, NodePtr>& buffers) : buffers_(buffers) {
    root_ = build(body);
  }
  KNode* root() const { return root_; }

  void eval(KNode* k, const std::int64_t* idx, std::size_t n, Scalar* out) {
    switch (k->kind) {
      case KNode::Load: {
        const std::size_t isz = dtype_info(k->dtype).itemsize;
        for (std::size_t i = 0; i < n; ++i)
          out[i] = idx[i] < 0 ? zero_of(k->dtype) : load_scalar(k->dtype, k->data + static_cast<std::size_t>(idx[i]) * isz);
        return;
      }
      case KNode::Const:
        for (std::size_t i = 0; i < n; ++i) out[i] = k->value;
        return;
      case KNode::Formula:
        for (std::size_t i = 0; i < n; ++i) out[i] = idx[i] < 0 ? zero_of(k->dtype) : k->formula->element(idx[i]);
        return;
      case KNode::Move: {
        std::int64_t* m = k->idx_scratch.data();
        for (std::size_t i = 0; i < n; ++i) {
          std::int64_t v = idx[i];
          for (std::size_t j = k->views.size(); j-- > 0 && v >= 0;) v = map_index(k->views[j], v);
          m[i] = v;
        }
        eval(k->src[0], m, n, out);
        for (std::size_t i = 0; i < n; ++i)
          if (m[i] < 0) out[i] = zero_of(k->dtype);
        return;
      }
      case KNode::Elem: {
        for (std::size_t s = 0; s < k->src.size(); ++s) eval(k->src[s], idx, n, k->scratch[s].data());
        const auto& s0 = k->scratch[0];
        if (k->op == Op::Where) {
          for (std::size_t i = 0; i < n; ++i) out[i] = s0[i].b ? k->scratch[1][i] : k->scratch[2][i];
        } else if (is_binary(k->op)) {
          const DType sd = k->src[0]->dtype;
          for (std::size_t i = 0; i < n; ++i) out[i] = apply_binary(k->op, sd, s0[i], k->scratch[1][i]);
        } else if (k->op == Op::Bitcast) {
          const DType from = k->src[0]->dtype;
          std::byte bytes[8];
          for (std::size_t i = 0; i < n; ++i) {
            store_scalar(from, s0[i], bytes);
            out[i] = load_scalar(k->dtype, bytes);
          }
        } else {
          for (std::size_t i = 0; i < n; ++i) out[i] = apply_unary(k->op, k->dtype, s0[i]);
        }
        return;
      }
    }
  }

 private:
  KNode* add() {
    nodes_.push_back(std::make_unique<KNode>());
    return nodes_.back().get();
  }

  KNode* build(const NodePtr& n) {
    if (auto it = memo_.find(n.get()); it != memo_.end()) return it->second;
    KNode* k = add();
    k->dtype = n->dtype;
    k->op = n->op;
    if (auto b = buffers_.find(n.get()); b != buffers_.end() || n->op == Op::Buffer) {
      const NodePtr& buf_node = b != buffers_.end() ? b->second : n;
      k->kind = KNode::Load;
      k->data = std::get<std::shared_ptr<Buffer>>(buf_node->arg)->bytes().data();
    } else if (n->op == Op::Const) {
      k->kind = KNode::Const;
      k->value = std::get<Scalar>(n->arg);
    } else if (is_formula(*n)) {
      k->kind = KNode::Formula;
      k->formula = std::get<std::shared_ptr<const Producer>>(n->arg).get();
    } else if (is_movement(n->op)) {
      k->kind = KNode::Move;
      // Fold the chain of movement ops below into as few Views as possible.
      std::vector<NodePtr> chain;
      NodePtr cur = n;
      while (is_movement(cur->op) && !buffers_.count(cur.get())) {
        chain.push_back(cur);
        cur = cur->src[0];
      }
      View v = View::make(cur->shape);
      for (std::size_t i = chain.size(); i-- > 0;) {
        const Node& m = *chain[i];
        switch (m.op) {
          case Op::Reshape:
            if (auto r = v.reshape(m.shape)) {
              v = *r;
            } else {
              k->views.push_back(v);
              v = View::make(m.shape);
            }
            break;
          case Op::Permute: v = v.permute(std::get<Shape>(m.arg)); break;
          case Op::Expand: v = v.expand(m.shape); break;
          case Op::Pad: v = v.pad(std::get<Ranges>(m.arg)); break;
          case Op::Shrink: v = v.shrink(std::get<Ranges>(m.arg)); break;
          case Op::Flip: {
            std::vector<bool> axes(m.shape.size(), false);
            for (auto a : std::get<Shape>(m.arg)) axes[static_cast<std::size_t>(a)] = true;
            v = v.flip(axes);
            break;
          }
          default: break;
        }
      }
      k->views.push_back(v);
      std::erase_if(k->views, [](const View& view) { return view.contiguous; });
      k->idx_scratch.resize(kChunk);
      k->src.push_back(build(cur));
    } else {
      k->kind = KNode::Elem;
      for (const auto& s : n->src) {
        k->src.push_back(build(s));
        k->scratch.emplace_back(kChunk);
      }
    }
    memo_[n.get()] = k;
    return k;
  }

  const std::unordered_map<const Node*, NodePtr>& buffers_;
  std::vector<std::unique_ptr<KNode>> nodes_;
  std::unordered_map<const Node*, KNode*> memo_;
  KNode* root_ = nullptr;
};

std::shared_ptr<Buffer> buffer_of(const NodePtr& buffer_node) { return std::get<std::shared_ptr<Buffer>>(buffer_node->arg); }

NodePtr run_loop(const Kernel& k, const std::unordered_map<const Node*, NodePtr>& buffers) {
  const NodePtr& out = k.output;
  NodePtr body = out->op == Op::Contiguous ? out->src[0] : out;
  const DTypeInfo& info = dtype_info(out->dtype);
  auto n = static_cast<std::size_t>(prod(out->shape));
  auto buf = Buffer::cpu(n * info.itemsize);
  LoopProgram prog(body, buffers);
  std::vector<std::int64_t> idx(kChunk);
  std::vector<Scalar> vals(kChunk);
  std::byte* dst = buf->mutable_bytes().data();
  for (std::size_t start = 0; start < n; start += kChunk) {
    std::size_t m = std::min(kChunk, n - start);
    for (std::size_t i = 0; i < m; ++i) idx[i] = static_cast<std::int64_t>(start + i);
    prog.eval(prog.root(), idx.data(), m, vals.data());
    for (std::size_t i = 0; i < m; ++i) store_scalar(out->dtype, vals[i], dst + (start + i) * info.itemsize);
  }
  return make_node(Op::Buffer, out->dtype, out->shape, {}, buf);
}

NodePtr run_reduce(const Kernel& k, const std::unordered_map<const Node*, NodePtr>& buffers) {
  const NodePtr& out = k.output;
  NodePtr red = out->op == Op::Contiguous ? out->src[0] : out;
  const NodePtr& in = red->src[0];
  const DType d = red->dtype;
  const Op op = red->op;
  const Shape& in_shape = in->shape;
  auto n_out = static_cast<std::size_t>(prod(red->shape));
  auto n_in = static_cast<std::size_t>(prod(in_shape));
  std::vector<Scalar> acc(n_out, reduce_identity(op, d));
  std::vector<bool> seen(n_out, false);
  // Output index of an input index: the reduced axes contribute nothing.
  std::vector<std::int64_t> out_strides = strides_for_shape(red->shape);
  for (std::size_t i = 0; i < in_shape.size(); ++i)
    if (red->shape[i] == 1) out_strides[i] = 0;
  LoopProgram prog(in, buffers);
  // NOTE: float sums and products accumulate in double and round once at the end, so a
  // float32 sum keeps counting past 2**24 (tinygrad splits large reductions into stages
  // for the same reason); ints wrap in their own dtype as C would.
  const bool wide = dtype_info(d).kind == DKind::Float && (op == Op::ReduceSum || op == Op::ReduceProd);
  if (prog.root()->kind == KNode::Const && n_out > 0) {
    // A constant input reduces in closed form: n copies of v.
    const Scalar v = prog.root()->value;
    const auto count = static_cast<std::int64_t>(n_in / n_out);
    Scalar r = acc[0];
    if (count > 0) {
      if (op == Op::ReduceSum)
        r = wide ? Scalar::from_float(v.f * static_cast<double>(count))
                 : apply_binary(Op::Mul, d, v, cast_scalar(Scalar::from_int(count), d));
      else if (op == Op::ReduceProd)
        r = wide ? Scalar::from_float(std::pow(v.f, static_cast<double>(count))) : int_pow(d, v, cast_scalar(Scalar::from_int(count), d));
      else
        r = v;
    }
    std::fill(acc.begin(), acc.end(), r);
    n_in = 0;
  }
  std::vector<std::int64_t> idx(kChunk);
  std::vector<Scalar> vals(kChunk);
  for (std::size_t start = 0; start < n_in; start += kChunk) {
    std::size_t m = std::min(kChunk, n_in - start);
    for (std::size_t i = 0; i < m; ++i) idx[i] = static_cast<std::int64_t>(start + i);
    prog.eval(prog.root(), idx.data(), m, vals.data());
    for (std::size_t i = 0; i < m; ++i) {
      std::int64_t rest = idx[i], o = 0;
      for (std::size_t ax = in_shape.size(); ax-- > 0;) {
        o += (rest % in_shape[ax]) * out_strides[ax];
        rest /= in_shape[ax];
      }
      auto oi = static_cast<std::size_t>(o);
      Scalar& a = acc[oi];
      if (wide) a.f = op == Op::ReduceSum ? a.f + vals[i].f : a.f * vals[i].f;
      else if (op == Op::ReduceSum) a = apply_binary(Op::Add, d, a, vals[i]);
      else if (op == Op::ReduceProd) a = apply_binary(Op::Mul, d, a, vals[i]);
      else if (!seen[oi]) a = vals[i];
      else a = apply_binary(op == Op::ReduceMax ? Op::Max : Op::Min, d, a, vals[i]);
      seen[oi] = true;
    }
  }
  const DTypeInfo& info = dtype_info(d);
  auto buf = Buffer::cpu(n_out * info.itemsize);
  std::byte* dst = buf->mutable_bytes().data();
  for (std::size_t i = 0; i < n_out; ++i) store_scalar(d, cast_scalar(acc[i], d), dst + i * info.itemsize);
  return make_node(Op::Buffer, d, red->shape, {}, buf);
}

}  // namespace

NodePtr realize(const NodePtr& root) {
  if (root->op == Op::Buffer) return root;
  std::vector<Kernel> kernels = schedule(root);
  std::unordered_map<const Node*, NodePtr> buffers;
  auto resolve = [&buffers](const NodePtr& n) {
    auto it = buffers.find(n.get());
    return it != buffers.end() ? it->second : n;
  };
  for (const Kernel& k : kernels) {
    const NodePtr& out = k.output;
    NodePtr result;
    switch (k.kind) {
      case KernelKind::Produce: {
        const auto& producer = std::get<std::shared_ptr<const Producer>>(out->arg);
        auto buf = Buffer::cpu(static_cast<std::size_t>(prod(out->shape)) * dtype_info(out->dtype).itemsize);
        producer->fill(buf->mutable_bytes());
        result = make_node(Op::Buffer, out->dtype, out->shape, {}, buf);
        break;
      }
      case KernelKind::Alias:
        result = make_node(Op::Buffer, out->dtype, out->shape, {}, buffer_of(resolve(k.inputs[0])));
        break;
      case KernelKind::Loop: result = run_loop(k, buffers); break;
      case KernelKind::Reduce: result = run_reduce(k, buffers); break;
    }
    buffers[out.get()] = result;
  }
  return buffers.at(root.get());
}

}  // namespace tensor_inspect
