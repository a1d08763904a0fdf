// graph.cpp — interned graph nodes, the op name table, per-op checks, and graph dumps.
#include "tensor_inspect/graph.hpp"

#include <array>
#include <cstring>
#include <functional>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {
namespace {

constexpr std::array<std::string_view, static_cast<std::size_t>(Op::ScanSum) + 1> kOpNames = {
    "BUFFER", "CONST", "PRODUCER", "RESHAPE", "PERMUTE", "EXPAND", "PAD", "SHRINK", "FLIP",
    "CAST", "BITCAST", "NEG", "NOT", "ABS", "EXP", "EXP2", "LOG", "LOG2", "SIN", "COS", "TAN", "SQRT",
    "RECIP", "TRUNC", "TANH", "BYTESWAP", "ADD", "SUB", "MUL", "DIV", "FLOORDIV", "MOD", "POW", "MAX", "MIN",
    "CMPLT", "CMPLE", "CMPEQ", "CMPNE", "AND", "OR", "XOR", "WHERE", "REDUCE_SUM", "REDUCE_PROD",
    "REDUCE_MAX", "REDUCE_MIN", "CONTIGUOUS", "SCAN_SUM"};

bool scalar_equal(const Scalar& a, const Scalar& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case DKind::Bool: return a.b == b.b;
    case DKind::Signed: return a.i == b.i && a.wide == b.wide && a.hi == b.hi;
    case DKind::Unsigned: return a.u == b.u;
    case DKind::Float: return std::memcmp(&a.f, &b.f, sizeof(double)) == 0;  // -0.0 != 0.0, nan == nan
  }
  return false;
}

bool arg_equal(const NodeArg& a, const NodeArg& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, Scalar>) return scalar_equal(x, y);
        else if constexpr (std::is_same_v<T, std::monostate>) return true;
        else return x == y;  // shared_ptr compares by pointer, vectors by value
      },
      a);
}

std::size_t mix(std::size_t h, std::size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

std::size_t arg_hash(const NodeArg& a) {
  std::size_t h = a.index();
  std::visit(
      [&h](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Shape>) {
          for (auto x : v) h = mix(h, std::hash<std::int64_t>{}(x));
        } else if constexpr (std::is_same_v<T, Ranges>) {
          for (auto [x, y] : v) h = mix(mix(h, std::hash<std::int64_t>{}(x)), std::hash<std::int64_t>{}(y));
        } else if constexpr (std::is_same_v<T, Scalar>) {
          std::uint64_t bits;
          std::memcpy(&bits, &v.u, sizeof bits);
          h = mix(mix(mix(h, static_cast<std::size_t>(v.kind)), std::hash<std::uint64_t>{}(bits)),
                  static_cast<std::size_t>(v.hi));
        } else if constexpr (!std::is_same_v<T, std::monostate>) {
          h = mix(h, std::hash<const void*>{}(v.get()));
        }
      },
      a);
  return h;
}

// The intern table: one entry per live node, erased by the node's own deleter, so the table
// holds exactly the live nodes and a dropped node's memory returns at once. Entries keep a
// raw pointer for comparing (valid under the lock: a dying node erases its entry, under the
// lock, before its memory is freed) and a weak_ptr for handing out a new reference.
struct InternEntry {
  const Node* node;
  std::weak_ptr<const Node> weak;
};

struct InternTable {
  std::mutex mutex;
  std::unordered_multimap<std::size_t, InternEntry> entries;
};

InternTable& intern_table() {
  // Never destroyed: nodes that outlive main's statics still erase themselves safely.
  static InternTable* table = new InternTable();
  return *table;
}

struct NodeDeleter {
  std::size_t hash;
  void operator()(const Node* n) const {
    {
      InternTable& table = intern_table();
      std::lock_guard<std::mutex> lock(table.mutex);
      auto [lo, hi] = table.entries.equal_range(hash);
      for (auto it = lo; it != hi; ++it)
        if (it->second.node == n) {
          table.entries.erase(it);
          break;
        }
    }
    delete n;  // outside the lock: its sources' deleters take it in turn
  }
};

[[noreturn]] void spec_fail(Op op, const std::string& why) {
  throw Error(ErrorCode::Internal, "internal: invalid " + std::string(op_name(op)) + " node: " + why);
}

// tinygrad's spec: what each op requires of its sources. A failure is our bug, not bad input.
void verify(Op op, DType dtype, const Shape& shape, const std::vector<NodePtr>& src, const NodeArg& arg) {
  for (auto d : shape)
    if (d < 0) spec_fail(op, "negative dimension");
  if (is_source(op)) {
    if (!src.empty()) spec_fail(op, "a source has no inputs");
    return;
  }
  if (src.empty()) spec_fail(op, "needs an input");
  if (is_binary(op) || op == Op::Where) {
    for (const auto& s : src)
      if (s->shape != shape) spec_fail(op, "input shapes differ");
    if (op != Op::Where && (is_comparison(op) ? dtype != DType::Bool : src[0]->dtype != dtype))
      spec_fail(op, "dtype mismatch");
    if (is_binary(op) && src[0]->dtype != src[1]->dtype) spec_fail(op, "input dtypes differ");
    if (op == Op::Where && (src[0]->dtype != DType::Bool || src[1]->dtype != dtype || src[2]->dtype != dtype))
      spec_fail(op, "where needs a bool condition and equal value dtypes");
  } else if (is_unary(op) && op != Op::Cast && op != Op::Bitcast) {
    if (src[0]->dtype != dtype || src[0]->shape != shape) spec_fail(op, "unary changes neither dtype nor shape");
  } else if (op == Op::Reshape) {
    if (prod(shape) != prod(src[0]->shape)) spec_fail(op, "element count changes");
  } else if (is_movement(op) || op == Op::Contiguous) {
    if (src[0]->dtype != dtype) spec_fail(op, "movement keeps the dtype");
  } else if (is_scan(op)) {
    // (axis, length, first): the input along the axis is a prefix of `length` (the row the
    // order is laid out for), of which the outputs from `first` on are kept.
    const Shape* a = std::get_if<Shape>(&arg);
    if (!a || a->size() != 3 || (*a)[0] < 0 || (*a)[0] >= static_cast<std::int64_t>(shape.size()) || (*a)[2] < 0)
      spec_fail(op, "needs (axis, length, first)");
    Shape kept = src[0]->shape;
    const auto axis = static_cast<std::size_t>((*a)[0]);
    if (kept[axis] > (*a)[1]) spec_fail(op, "input longer than the scanned length");
    kept[axis] -= (*a)[2];
    if (kept != shape) spec_fail(op, "shape is not the input's from `first` on");
    const DType in = src[0]->dtype;
    if (is_weak(in) || in == DType::Bool || (is_float(in) && in != DType::Float32 && in != DType::Float64))
      spec_fail(op, "sums an int, float32 or float64 input");
    const bool narrowed = in == DType::Float32 && is_float(dtype) && dtype_info(dtype).itemsize < 4;
    if (in != dtype && !narrowed)
      spec_fail(op, "rounds its sums to its input's dtype, or float32's to a narrower float");
  }
}

}  // namespace

std::string_view op_name(Op op) { return kOpNames[static_cast<std::size_t>(op)]; }

NodePtr make_node(Op op, DType dtype, Shape shape, std::vector<NodePtr> src, NodeArg arg) {
  verify(op, dtype, shape, src, arg);
  std::size_t h = mix(mix(static_cast<std::size_t>(op), static_cast<std::size_t>(dtype)), arg_hash(arg));
  for (auto d : shape) h = mix(h, std::hash<std::int64_t>{}(d));
  for (const auto& s : src) h = mix(h, std::hash<const void*>{}(s.get()));
  InternTable& table = intern_table();
  {
    std::lock_guard<std::mutex> lock(table.mutex);
    auto [lo, hi] = table.entries.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
      const Node& n = *it->second.node;
      if (n.op == op && n.dtype == dtype && n.shape == shape && n.src == src && arg_equal(n.arg, arg))
        if (NodePtr live = it->second.weak.lock()) return live;  // else it is dying: make a new one
    }
  }
  NodePtr node(new Node{op, dtype, std::move(shape), std::move(src), std::move(arg)}, NodeDeleter{h});
  std::lock_guard<std::mutex> lock(table.mutex);
  table.entries.emplace(h, InternEntry{node.get(), node});
  return node;
}

std::size_t intern_table_size() {
  InternTable& table = intern_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  return table.entries.size();
}

namespace {

void topo(const NodePtr& n, std::unordered_set<const Node*>& seen, std::vector<NodePtr>& order) {
  if (!seen.insert(n.get()).second) return;
  for (const auto& s : n->src) topo(s, seen, order);
  order.push_back(n);
}

std::string arg_text(const Node& n) {
  std::ostringstream o;
  std::visit(
      [&o, &n](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Shape>) {
          o << shape_repr(v);
        } else if constexpr (std::is_same_v<T, Ranges>) {
          o << "(";
          for (std::size_t i = 0; i < v.size(); ++i)
            o << (i ? ", " : "") << "(" << v[i].first << ", " << v[i].second << ")";
          o << (v.size() == 1 ? ",)" : ")");
        } else if constexpr (std::is_same_v<T, Scalar>) {
          switch (v.kind) {
            case DKind::Bool: o << (v.b ? "True" : "False"); break;
            case DKind::Signed:
              if (v.wide) o << static_cast<double>(v.as_wide()) << " (beyond 64 bits)";
              else o << v.i;
              break;
            case DKind::Unsigned: o << v.u; break;
            case DKind::Float: o << v.f; break;
          }
        } else if constexpr (std::is_same_v<T, std::shared_ptr<Buffer>>) {
          o << (v->device() == Device::DISK ? "DISK " : "CPU ") << v->nbytes() << " bytes";
        } else if constexpr (std::is_same_v<T, std::shared_ptr<const Producer>>) {
          o << v->label;
        }
        (void)n;
      },
      n.arg);
  return o.str();
}

}  // namespace

std::string graph_to_string(const NodePtr& root) {
  std::unordered_set<const Node*> seen;
  std::vector<NodePtr> order;
  topo(root, seen, order);
  std::unordered_map<const Node*, std::size_t> id;
  std::ostringstream o;
  for (const auto& n : order) {
    id[n.get()] = id.size();
    o << "%" << id[n.get()] << " = " << op_name(n->op) << " " << dtype_info(n->dtype).name << " "
      << shape_repr(n->shape);
    for (const auto& s : n->src) o << " %" << id[s.get()];
    std::string a = arg_text(*n);
    if (!a.empty()) o << " [" << a << "]";
    o << "\n";
  }
  return o.str();
}

std::string graph_to_dot(const NodePtr& root) {
  std::unordered_set<const Node*> seen;
  std::vector<NodePtr> order;
  topo(root, seen, order);
  std::unordered_map<const Node*, std::size_t> id;
  std::ostringstream o;
  o << "digraph tensor {\n  node [shape=box, fontname=monospace];\n";
  for (const auto& n : order) {
    std::size_t i = id[n.get()] = id.size();
    std::string a = arg_text(*n);
    for (auto& c : a)
      if (c == '"') c = '\'';
    o << "  n" << i << " [label=\"" << op_name(n->op) << "\\n"
      << dtype_info(n->dtype).name << " " << shape_repr(n->shape) << (a.empty() ? "" : "\\n" + a) << "\"];\n";
    for (const auto& s : n->src) o << "  n" << id[s.get()] << " -> n" << i << ";\n";
  }
  o << "}\n";
  return o.str();
}

}  // namespace tensor_inspect
