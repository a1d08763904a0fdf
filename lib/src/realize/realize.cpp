// realize.cpp — the scheduler (graph -> kernels) and the CPU executor (kernels -> bytes).
//
// A Loop kernel evaluates its fused expression tree over chunks of output indices: each
// tree node maps a chunk of linear indices of its own shape to values. Movement ops turn
// into index maps (a short list of Views, tinygrad's ShapeTracker), so they never copy;
// pad's masked indices read as 0. Values travel as Scalars in the widest form of their
// kind and are rounded to the node's dtype after every op, as the dtype's own arithmetic
// would round them.
#include <spdlog/spdlog.h>

#include "tensor_inspect/realize.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {
namespace {

constexpr std::size_t kChunk = 1024;

// A same-size bitcast of an int is exact on the loop's values, so it fuses; other
// bitcasts (another itemsize, or float bits a double could not carry: signalling nans)
// reinterpret a realized buffer's bytes instead.
bool is_fused_bitcast(const Node& n) {
  const DType from = n.src[0]->dtype;
  return dtype_info(from).itemsize == dtype_info(n.dtype).itemsize && (is_int(from) || from == DType::Bool);
}

// A producer with an element formula is computed inside loops, like a constant.
bool is_formula(const Node& n) {
  return n.op == Op::Producer && std::get<std::shared_ptr<const Producer>>(n.arg)->element != nullptr;
}

bool is_boundary(const Node& n) {
  const Op op = n.op;
  if (op == Op::Bitcast) return !is_fused_bitcast(n);
  if (op == Op::Producer) return !is_formula(n);
  return op == Op::Buffer || op == Op::Contiguous || is_reduce(op);
}

// ------------------------------------------------------------------------------ scheduling

struct Scheduler {
  std::vector<Kernel> kernels;
  std::unordered_set<const Node*> done;

  void need_buffer(const NodePtr& n) {
    if (n->op == Op::Buffer || done.count(n.get())) return;
    done.insert(n.get());
    Kernel k{KernelKind::Loop, n, {}, {}};
    if (n->op == Op::Producer && !is_formula(*n)) {
      k.kind = KernelKind::Produce;
    } else if (n->op == Op::Bitcast && !is_fused_bitcast(*n)) {
      need_buffer(n->src[0]);
      k.kind = KernelKind::Alias;
      k.inputs.push_back(n->src[0]);
      k.fused.push_back(n->op);
    } else if (NodePtr base = reshaped_buffer(n)) {
      // Every buffer is C-contiguous, so reshaping one (or marking it contiguous) is free.
      need_buffer(base);
      k.kind = KernelKind::Alias;
      k.inputs.push_back(base);
      for (const Node* m = n.get(); m != base.get(); m = m->src[0].get()) k.fused.push_back(m->op);
    } else {
      NodePtr body = n->op == Op::Contiguous ? n->src[0] : n;
      std::unordered_set<const Node*> seen;
      if (is_reduce(body->op)) {
        k.kind = KernelKind::Reduce;
        k.fused.push_back(body->op);
        collect(body->src[0], k, seen);
      } else {
        collect(body, k, seen);
      }
    }
    kernels.push_back(std::move(k));
  }

  // The buffer-like node under a chain of Reshape/Contiguous, or nullptr.
  static NodePtr reshaped_buffer(const NodePtr& n) {
    if (n->op != Op::Reshape && n->op != Op::Contiguous) return nullptr;
    NodePtr m = n;
    while (m->op == Op::Reshape || m->op == Op::Contiguous) m = m->src[0];
    return is_boundary(*m) ? m : nullptr;
  }

  // Walks the fused part of a kernel once per node (the graph is a DAG), scheduling the
  // buffers it reads first.
  void collect(const NodePtr& n, Kernel& k, std::unordered_set<const Node*>& seen) {
    if (!seen.insert(n.get()).second) return;
    if (is_boundary(*n)) {
      need_buffer(n);
      k.inputs.push_back(n);
      return;
    }
    for (const auto& s : n->src) collect(s, k, seen);
    k.fused.push_back(n->op);
  }
};

// ------------------------------------------------------------------------------ execution

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

double round_float(DType d, double v) { return cast_scalar(Scalar::from_float(v), d).f; }

Scalar make_int(DType d, std::uint64_t bits) { return cast_scalar(Scalar::from_uint(bits), d); }

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (b == 0) return 0;
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1) return a;
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
std::int64_t py_mod(std::int64_t a, std::int64_t b) {
  if (b == 0 || b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

Scalar int_pow(DType d, Scalar a, Scalar b) {
  const bool sgn = dtype_info(d).kind == DKind::Signed;
  std::uint64_t base = a.as_bits(), result = 1;
  if (sgn && b.i < 0) {
    std::int64_t x = a.i;
    if (x == 1) return make_int(d, 1);
    if (x == -1) return make_int(d, (b.i % 2) ? static_cast<std::uint64_t>(-1) : 1);
    return make_int(d, 0);
  }
  std::uint64_t e = b.as_bits();
  while (e) {
    if (e & 1) result *= base;
    base *= base;
    e >>= 1;
  }
  return make_int(d, result);
}

bool compare(Op op, const Scalar& a, const Scalar& b) {
  auto cmp = [op](auto x, auto y) {
    switch (op) {
      case Op::CmpLt: return x < y;
      case Op::CmpLe: return x <= y;
      case Op::CmpEq: return x == y;
      default: return x != y;
    }
  };
  switch (a.kind) {
    case DKind::Bool: return cmp(a.b, b.b);
    case DKind::Signed: return cmp(a.i, b.i);
    case DKind::Unsigned: return cmp(a.u, b.u);
    case DKind::Float: return cmp(a.f, b.f);
  }
  return false;
}

// A float to int cast as compiled C does it on x86-64 (cvttsd2si): truncate toward zero;
// a value outside the converting instruction's range, or nan, gives its "integer
// indefinite" (INT_MIN of 32 or 64 bits), which narrower targets then wrap. NumPy does
// the same. (Python literals instead wrap exactly: int(3e9) -> c_int32 -> -1294967296.)
Scalar c_float_to_int(double x, DType d) {
  const DTypeInfo& info = dtype_info(d);
  const bool via64 = info.bits == 64 || (info.kind == DKind::Unsigned && info.bits == 32);
  const double lim = via64 ? 9223372036854775808.0 : 2147483648.0;
  std::int64_t t;
  if (info.kind == DKind::Unsigned && info.bits == 64 && x >= lim && x < 2 * lim) {
    return Scalar::from_uint(static_cast<std::uint64_t>(x));
  } else if (std::isnan(x) || x >= lim || x <= -lim - 1) {
    t = via64 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int32_t>::min();
  } else {
    t = static_cast<std::int64_t>(x);
  }
  return cast_scalar(Scalar::from_int(t), d);
}

Scalar apply_unary(Op op, DType d, const Scalar& a) {
  const DKind kind = dtype_info(d).kind;
  if (op == Op::Cast)
    return a.kind == DKind::Float && (kind == DKind::Signed || kind == DKind::Unsigned) ? c_float_to_int(a.f, d) : cast_scalar(a, d);
  if (op == Op::ByteSwap) {
    std::uint64_t x = a.as_bits(), r = 0;
    for (unsigned i = 0; i < dtype_info(d).itemsize; ++i, x >>= 8) r = (r << 8) | (x & 0xff);
    return make_int(d, r);
  }
  if (kind == DKind::Float) {
    double x = a.f, r = x;
    switch (op) {
      case Op::Neg: r = -x; break;
      case Op::Abs: r = std::fabs(x); break;
      case Op::Exp: r = std::exp(x); break;
      case Op::Exp2: r = std::exp2(x); break;
      case Op::Log: r = std::log(x); break;
      case Op::Log2: r = std::log2(x); break;
      case Op::Sin: r = std::sin(x); break;
      case Op::Cos: r = std::cos(x); break;
      case Op::Tan: r = std::tan(x); break;
      case Op::Sqrt: r = std::sqrt(x); break;
      case Op::Recip: r = 1.0 / x; break;
      case Op::Trunc: r = std::trunc(x); break;
      case Op::Tanh: r = std::tanh(x); break;
      case Op::Not: return Scalar::from_float(x == 0.0 ? 1.0 : 0.0);
      default: throw Error(ErrorCode::Unsupported, std::string(op_name(op)) + " is not defined for float dtypes");
    }
    return Scalar::from_float(round_float(d, r));
  }
  if (kind == DKind::Bool) {
    switch (op) {
      case Op::Not: return Scalar::from_bool(!a.b);
      case Op::Neg: return Scalar::from_bool(a.b);
      case Op::Abs: return a;
      default: break;
    }
    return cast_scalar(apply_unary(op, DType::Float32, cast_scalar(a, DType::Float32)), d);
  }
  std::uint64_t x = a.as_bits();
  switch (op) {
    case Op::Neg: return make_int(d, ~x + 1);
    case Op::Not: return make_int(d, ~x);
    case Op::Abs: return kind == DKind::Signed && a.i < 0 ? make_int(d, ~x + 1) : a;
    case Op::Trunc: return a;
    default: break;
  }
  // Transcendentals on ints compute in double and convert back, as a C cast would.
  return cast_scalar(apply_unary(op, DType::Float64, Scalar::from_float(a.as_double())), d);
}

Scalar apply_binary(Op op, DType src_dtype, const Scalar& a, const Scalar& b) {
  if (is_comparison(op)) return Scalar::from_bool(compare(op, a, b));
  const DType d = src_dtype;
  const DKind kind = dtype_info(d).kind;
  if (kind == DKind::Float) {
    double x = a.f, y = b.f, r;
    switch (op) {
      case Op::Add: r = x + y; break;
      case Op::Sub: r = x - y; break;
      case Op::Mul: r = x * y; break;
      case Op::Div: r = x / y; break;
      case Op::FloorDiv: r = std::floor(x / y); break;
      case Op::Mod: {
        r = std::fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        break;
      }
      case Op::Pow: r = std::pow(x, y); break;
      case Op::Max: r = x < y ? y : x; break;
      case Op::Min: r = y < x ? y : x; break;
      default: throw Error(ErrorCode::Unsupported, std::string(op_name(op)) + " is not defined for float dtypes");
    }
    return Scalar::from_float(round_float(d, r));
  }
  if (kind == DKind::Bool) {
    bool x = a.b, y = b.b;
    switch (op) {
      case Op::Add: case Op::Or: case Op::Max: return Scalar::from_bool(x || y);
      case Op::Mul: case Op::And: case Op::Min: return Scalar::from_bool(x && y);
      case Op::Sub: case Op::Xor: return Scalar::from_bool(x != y);
      default: return cast_scalar(apply_binary(op, DType::Int32, cast_scalar(a, DType::Int32), cast_scalar(b, DType::Int32)), d);
    }
  }
  const bool sgn = kind == DKind::Signed;
  std::uint64_t x = a.as_bits(), y = b.as_bits();
  switch (op) {
    case Op::Add: return make_int(d, x + y);
    case Op::Sub: return make_int(d, x - y);
    case Op::Mul: return make_int(d, x * y);
    case Op::Div:
      if (y == 0) return make_int(d, 0);
      if (sgn) return a.i == std::numeric_limits<std::int64_t>::min() && b.i == -1 ? a : make_int(d, static_cast<std::uint64_t>(a.i / b.i));
      return make_int(d, x / y);
    case Op::FloorDiv:
      if (sgn) return make_int(d, static_cast<std::uint64_t>(floor_div(a.i, b.i)));
      return make_int(d, y ? x / y : 0);
    case Op::Mod:
      if (sgn) return make_int(d, static_cast<std::uint64_t>(py_mod(a.i, b.i)));
      return make_int(d, y ? x % y : 0);
    case Op::Pow: return int_pow(d, a, b);
    case Op::Max: return (sgn ? a.i < b.i : x < y) ? b : a;
    case Op::Min: return (sgn ? b.i < a.i : y < x) ? b : a;
    case Op::And: return make_int(d, x & y);
    case Op::Or: return make_int(d, x | y);
    case Op::Xor: return make_int(d, x ^ y);
    default: break;
  }
  throw Error(ErrorCode::Internal, "internal: unhandled binary op");
}

Scalar zero_of(DType d) { return cast_scalar(Scalar::from_int(0), d); }

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

Scalar reduce_identity(Op op, DType d) {
  const DKind kind = dtype_info(d).kind;
  const unsigned bits = dtype_info(d).bits;
  switch (op) {
    case Op::ReduceSum: return zero_of(d);
    case Op::ReduceProd: return cast_scalar(Scalar::from_int(1), d);
    case Op::ReduceMax:
      if (kind == DKind::Float) return Scalar::from_float(-std::numeric_limits<double>::infinity());
      if (kind == DKind::Signed) return make_int(d, std::uint64_t{1} << (bits - 1));
      return zero_of(d);
    default:
      if (kind == DKind::Float) return Scalar::from_float(std::numeric_limits<double>::infinity());
      if (kind == DKind::Signed) return make_int(d, (std::uint64_t{1} << (bits - 1)) - 1);
      if (kind == DKind::Bool) return Scalar::from_bool(true);
      return make_int(d, ~std::uint64_t{0});
  }
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

std::string Kernel::to_string(std::size_t index) const {
  static constexpr const char* kKinds[] = {"LOOP", "REDUCE", "PRODUCE", "ALIAS"};
  std::ostringstream o;
  o << "kernel " << index << ": " << kKinds[static_cast<int>(kind)] << " " << dtype_info(output->dtype).name << " "
    << shape_repr(output->shape) << " <-";
  for (const auto& in : inputs) o << " " << op_name(in->op) << shape_repr(in->shape);
  if (inputs.empty()) o << " (none)";
  o << " [";
  for (std::size_t i = 0; i < fused.size(); ++i) o << (i ? " " : "") << op_name(fused[i]);
  o << "]";
  return o.str();
}

std::vector<Kernel> schedule(const NodePtr& root) {
  Scheduler s;
  s.need_buffer(root);
  return std::move(s.kernels);
}

NodePtr realize(const NodePtr& root) {
  if (root->op == Op::Buffer) return root;
  std::vector<Kernel> kernels = schedule(root);
  std::unordered_map<const Node*, NodePtr> buffers;
  auto resolve = [&buffers](const NodePtr& n) {
    auto it = buffers.find(n.get());
    return it != buffers.end() ? it->second : n;
  };
  for (const Kernel& k : kernels) {
    spdlog::debug("realize: {}", k.to_string(static_cast<std::size_t>(&k - kernels.data())));
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
