// schedule.cpp — the scheduler: cuts the lazy graph into kernels at realization
// boundaries. Element-wise ops and the movement ops between them fuse into one loop per
// output buffer; the result is a plain list that can be printed (`--graph`) or tested.
#include <set>
#include <sstream>
#include <utility>
#include <unordered_map>
#include <unordered_set>

#include "realize/fusion.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect {
namespace {

using realize_detail::is_boundary;
using realize_detail::is_formula;
using realize_detail::is_fused_bitcast;

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
      if (is_reduce(body->op) || is_scan(body->op)) {
        k.kind = is_reduce(body->op) ? KernelKind::Reduce : KernelKind::Scan;
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

// tinygrad verifies a kernel's ops when it runs one: an op it cannot run (Producer::unrunnable)
// raises once a kernel with elements reads it, directly or through kernels of no elements.
void check_runnable(const std::vector<Kernel>& kernels) {
  std::unordered_map<const Node*, const std::string*> tainted;  // kernel output -> the message
  for (const Kernel& k : kernels) {
    const std::string* why = nullptr;
    if (k.output->op == Op::Producer) {
      const auto& p = std::get<std::shared_ptr<const Producer>>(k.output->arg);
      if (!p->unrunnable.empty()) why = &p->unrunnable;
    }
    for (const NodePtr& in : k.inputs)
      if (auto it = tainted.find(in.get()); why == nullptr && it != tainted.end()) why = it->second;
    if (why == nullptr) continue;
    if (prod(k.output->shape) > 0) throw Error(ErrorCode::BadExpression, *why);
    tainted.emplace(k.output.get(), why);
  }
}

// tinygrad has no int power of two tensors ("TODO: int pow"): its rewrite lowers an int or bool
// POW through log2 and exp2 in floats (codegen/decomp/transcendental.py xpow), so the value is a
// float in the kernel. Compared or cast to a float, it answers (as the exact power here, which
// it equals where the float is exact); stored as an int, cast to one or taken by an int op,
// DEV=PYTHON raises (a float stored into an int buffer, inf cast to an int) and the compiled CPU
// backend fails or differs. Those are refused, once a kernel with elements runs them. A bool
// power is the same (DEV=PYTHON fails to store the float as a bool).
class IntPowerCheck {
 public:
  void kernel(const Kernel& k) {
    if (prod(k.output->shape) == 0 || k.kind == KernelKind::Produce || k.kind == KernelKind::Alias) return;
    const NodePtr& body = k.output->op == Op::Contiguous ? k.output->src[0] : k.output;
    visit(body, true, true);
  }

 private:
  static bool constant(const NodePtr& n) {
    const Node* m = n.get();
    while (m->op == Op::Reshape || m->op == Op::Expand) m = m->src[0].get();
    return m->op == Op::Const;
  }

  // `as_int`: whether n's value is stored or taken by an int op rather than compared or cast.
  // `root`: the kernel's own output (a reduce's or a scan's among them), read from no buffer.
  void visit(const NodePtr& n, bool as_int, bool root) {
    if (!seen_.insert({n.get(), as_int}).second) return;
    if (!root && is_boundary(*n)) return;
    if (n->op == Op::Pow && !is_float(n->dtype) && as_int && !constant(n->src[0]) && !constant(n->src[1]))
      throw Error(ErrorCode::BadExpression,
                  "x ** y of two int or bool tensors, stored or used as ints: tinygrad has no integer power (its float "
                  "result raises when stored); cast the base to a float dtype first");
    const bool movement = n->op == Op::Reshape || n->op == Op::Expand || n->op == Op::Permute ||
                          n->op == Op::Shrink || n->op == Op::Flip || n->op == Op::Pad;
    // A cast to a float or a bool, or a comparison, takes the float; a cast to an int converts
    // it as an int, raising for the inf an int power overflows to (a bool's 0 and 1 convert).
    const bool takes_float = n->op == Op::Cast && (is_float(n->dtype) || n->dtype == DType::Bool ||
                                                   n->src[0]->dtype == DType::Bool);
    bool keeps = true;
    if (takes_float || is_comparison(n->op)) keeps = false;
    else if (movement) keeps = as_int;
    for (const NodePtr& s : n->src) visit(s, keeps, false);
  }

  std::set<std::pair<const Node*, bool>> seen_;
};

}  // namespace

std::string Kernel::to_string(std::size_t index) const {
  static constexpr const char* kKinds[] = {"LOOP", "REDUCE", "PRODUCE", "ALIAS", "SCAN"};
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
  check_runnable(s.kernels);
  IntPowerCheck pow_check;
  for (const Kernel& k : s.kernels) pow_check.kernel(k);
  return std::move(s.kernels);
}


std::string graph_report(const NodePtr& root, bool dot) {
  if (dot) return graph_to_dot(root);
  std::string out = "graph:\n" + graph_to_string(root) + "schedule:\n";
  // The kernels of Tensor::contiguous(): what realizing it for printing runs.
  const bool whole = root->op == Op::Buffer || root->op == Op::Contiguous;
  const NodePtr printed = whole ? root : make_node(Op::Contiguous, root->dtype, root->shape, {root});
  const std::vector<Kernel> kernels = schedule(printed);
  for (std::size_t i = 0; i < kernels.size(); ++i) out += kernels[i].to_string(i) + "\n";
  return out;
}

}  // namespace tensor_inspect
