// The frontend's shared pieces: shape checks, axis resolution, reductions over axes and
// tensors produced element by element.
#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <string>
#include <unordered_set>

#include "internal.hpp"
#include "realize/scalar_ops.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect::tg {

namespace detail {

namespace {
// Producers by key, so that building the same arange, eye or triangle twice gives one node,
// as tinygrad's UOp graph of it is one: `x.argmax() / x.argmax()` is then x / x. Entries die
// with their producer; dead ones are swept as the table grows.
std::shared_ptr<const Producer> interned_producer(const std::string& key,
                                                  const std::function<std::shared_ptr<Producer>()>& make) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::weak_ptr<const Producer>> table;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = table.find(key); it != table.end())
    if (std::shared_ptr<const Producer> alive = it->second.lock()) return alive;
  if (table.size() >= 256) std::erase_if(table, [](const auto& entry) { return entry.second.expired(); });
  std::shared_ptr<const Producer> made = make();
  table[key] = made;
  return made;
}
}  // namespace

Tensor produced(const Shape& shape, DType dtype, std::string label, std::function<Scalar(std::int64_t)> value,
                const std::string& key) {
  check_shape(shape, label);
  auto make = [&] {
    auto producer = std::make_shared<Producer>();
    producer->label = std::move(label);
    producer->element = [dtype, value](std::int64_t i) { return cast_scalar(value(i), dtype); };
    producer->fill = [dtype, element = producer->element](std::span<std::byte> out) {
      std::size_t item = dtype_info(dtype).itemsize;
      for (std::size_t i = 0; i * item < out.size(); ++i) store_scalar(dtype, element(sz(i)), out.data() + i * item);
    };
    return producer;
  };
  if (key.empty()) return Tensor::from_producer(make(), dtype, shape);
  return Tensor::from_producer(interned_producer(key + " " + std::string(dtype_info(dtype).name), make), dtype, shape);
}

std::vector<std::int64_t> resolve_axes(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes) {
  std::int64_t nd = sz(t.ndim());
  std::vector<std::int64_t> out;
  if (!axes) {
    for (std::int64_t i = 0; i < nd; ++i) out.push_back(i);
    return out;
  }
  for (std::int64_t a : *axes) {
    std::int64_t r = resolve_dim(a, nd);
    if (nd > 0) out.push_back(r);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {
// The message of an op tinygrad cannot run (Producer::unrunnable) below `n`, or nullptr.
const std::string* unrunnable_below(const NodePtr& n, std::unordered_set<const Node*>& seen) {
  if (!seen.insert(n.get()).second) return nullptr;
  if (n->op == Op::Producer) {
    const auto& p = std::get<std::shared_ptr<const Producer>>(n->arg);
    return p->unrunnable.empty() ? nullptr : &p->unrunnable;
  }
  for (const NodePtr& s : n->src)
    if (const std::string* why = unrunnable_below(s, seen)) return why;
  return nullptr;
}
}  // namespace

const Node* peel_moves(const Tensor& t, std::vector<const Node*>& moves, bool with_regions) {
  const Node* n = t.node().get();
  auto moving = [with_regions](Op op) {
    return op == Op::Reshape || op == Op::Expand || op == Op::Permute || op == Op::Flip ||
           (with_regions && (op == Op::Shrink || op == Op::Pad));
  };
  for (; moving(n->op); n = n->src[0].get()) moves.push_back(n);
  return n;
}

Tensor moved_like(const std::vector<const Node*>& moves, Tensor x) {
  for (auto it = moves.rbegin(); it != moves.rend(); ++it)
    x = Tensor(make_node((*it)->op, x.dtype(), (*it)->shape, {x.node()}, (*it)->arg));
  return x;
}

bool runnable(const Tensor& t) {
  std::unordered_set<const Node*> seen;
  return unrunnable_below(t.node(), seen) == nullptr;
}

Tensor reduce_axes(const Tensor& t, Op op, const std::vector<std::int64_t>& axes, bool keepdim) {
  if (axes.empty()) return t;
  std::optional<Tensor> unparented = reduce_unparented(t, op, axes);
  if (!unparented) {
    if (std::optional<Tensor> copies = reduce_stacked_copies(t, op, axes, keepdim)) return *copies;
    if (std::optional<Tensor> moved = reduce_mul_chain(t, op, axes, keepdim)) return *moved;
  }
  Tensor r = unparented ? *unparented : t.reduce(op, axes);
  // A reduction of no elements into a non-empty output is a constant: tinygrad/schedule/rangeify.py
  // rewrites REDUCE(x) with 0 in x.shape and not in its own shape to reduce.const_like(identity_element),
  // so what consumes it folds as constants do (argmax of nothing is 0 - INT_MIN, unwrapped until stored).
  if (t.numel() == 0 && std::none_of(r.shape().begin(), r.shape().end(), [](std::int64_t d) { return d == 0; })) {
    std::unordered_set<const Node*> seen;  // the reduce kernel runs, so tinygrad's verifier sees its ops
    if (const std::string* why = unrunnable_below(t.node(), seen)) expr_error(*why);
    r = Tensor::full(r.shape(), realize_detail::reduce_identity(op, t.dtype()), t.dtype());
  }
  if (keepdim) return r;
  Shape s;
  for (std::size_t i = 0; i < t.ndim(); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), sz(i))) s.push_back(t.shape()[i]);
  return r.reshape(s);
}

std::int64_t reduced_count(const Tensor& t, const std::vector<std::int64_t>& axes) {
  std::int64_t n = 1;
  for (std::int64_t a : axes) n *= t.shape()[uz(a)];
  return n;
}

}  // namespace detail

using namespace detail;

std::int64_t max_elements() {
  return static_cast<std::int64_t>(std::min<std::uint64_t>(limits().expression_elements, std::uint64_t{1} << 62));
}

void check_shape(const Shape& shape, const std::string& what) {
  const std::int64_t kMaxElements = max_elements();
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) shape_error(what + ": negative dimension in shape " + shape_repr(shape));
    if (d != 0 && n > kMaxElements / d) n = kMaxElements + 1;
    else n *= d;
  }
  if (shape.size() > 64) shape_error(what + ": shape " + shape_repr(shape) + " has more than 64 dimensions");
  if (n > kMaxElements)
    throw limit_error("expression_elements", what + ": shape " + shape_repr(shape) + " has more than " +
                                                 std::to_string(kMaxElements) + " elements" +
                                                 limit_hint("expression_elements"));
}


std::int64_t resolve_dim(std::int64_t dim, std::int64_t ndim) {
  std::int64_t total = std::max<std::int64_t>(ndim, 1);
  if (dim < -total || dim >= total)
    shape_error("dim=" + std::to_string(dim) + " out of range [" + std::to_string(-total) + ", " +
                std::to_string(total - 1) + "]");
  return dim < 0 ? dim + total : dim;
}

}  // namespace tensor_inspect::tg
