// schedule.cpp — the scheduler: cuts the lazy graph into kernels at realization
// boundaries. Element-wise ops and the movement ops between them fuse into one loop per
// output buffer; the result is a plain list that can be printed (`--graph`) or tested.
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "realize/fusion.hpp"
#include "tensor/const_fold.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect {
namespace {

using realize_detail::is_boundary;
using realize_detail::is_formula;
using realize_detail::is_fused_bitcast;

// tinygrad has no int power of two tensors ("TODO: int pow"): xpow computes it in float32
// (codegen/decomp/transcendental.py), which the frontend gives to the casts and comparisons that
// take it (frontend/power.cpp); a kernel that computes it otherwise stores the float as an int,
// where DEV=PYTHON raises (and the compiled CPU backend fails or differs).
const std::string kIntPower =
    "x ** y of two int or bool tensors, stored or used as ints: tinygrad has no integer power (its float "
    "result raises when stored); cast the base to a float dtype first";

struct Scheduler {
  std::vector<Kernel> kernels;
  std::unordered_set<const Node*> done;
  /// Kernel outputs whose loop computes an int power of two tensors.
  std::unordered_set<const Node*> int_powers;

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
    if (const_fold::is_int_power_of_tensors(*n)) int_powers.insert(k.output.get());
    k.fused.push_back(n->op);
  }
};

// tinygrad verifies a kernel's ops when it runs one: an op it cannot run (Producer::unrunnable,
// an int power of two tensors: `int_powers`) raises once a kernel with elements runs or reads it,
// directly or through kernels of no elements.
void check_runnable(const std::vector<Kernel>& kernels, const std::unordered_set<const Node*>& int_powers) {
  std::unordered_map<const Node*, const std::string*> tainted;  // kernel output -> the message
  for (const Kernel& k : kernels) {
    const std::string* why = nullptr;
    if (k.output->op == Op::Producer) {
      const auto& p = std::get<std::shared_ptr<const Producer>>(k.output->arg);
      if (!p->unrunnable.empty()) why = &p->unrunnable;
    }
    if (int_powers.count(k.output.get())) why = &kIntPower;
    for (const NodePtr& in : k.inputs)
      if (auto it = tainted.find(in.get()); why == nullptr && it != tainted.end()) why = it->second;
    if (why == nullptr) continue;
    if (prod(k.output->shape) > 0) throw Error(ErrorCode::BadExpression, *why);
    tainted.emplace(k.output.get(), why);
  }
}

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
  check_runnable(s.kernels, s.int_powers);
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
