// tensor_inspect/graph.hpp — immutable, interned nodes of the lazy graph.
//
// A Node is {op, dtype, shape, src, arg}. Nodes come only from `make_node`, which returns
// the existing node when one with the same fields is alive: same structure, same pointer.
// Building never computes; realize (realize.hpp) is the one door to execution.
//
//   NodePtr a = ti::make_node(Op::Const, DType::Int32, {2, 2}, {}, Scalar::from_int(1));
//   NodePtr b = ti::make_node(Op::Const, DType::Int32, {2, 2}, {}, Scalar::from_int(1));
//   assert(a == b);                                     // interned
//   std::string dump = ti::graph_to_string(a);          // one line per node
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/ops.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

/// Fills `out` (numel * itemsize bytes, native order, C-contiguous) with a source's
/// elements at realize time. May throw Error (e.g. a corrupt compressed member).
struct Producer {
  std::string label;                                    ///< shown in graph dumps
  std::function<void(std::span<std::byte> out)> fill;
  /// Optional: element i (C order, already of the node's dtype) as a formula of i. When
  /// set, loops compute elements on demand and no buffer is made (arange, eye): a slice
  /// of a huge arange computes only the slice.
  std::function<Scalar(std::int64_t i)> element;
  /// Optional, with `element`, for float dtypes: elements [first, first + out.size()) as
  /// doubles, for loops that read a run of consecutive elements (GGUF dequantizes whole
  /// blocks). Unlike `element`, it must be safe to call from several threads at once:
  /// loops over a formula without it run on one thread.
  std::function<void(std::int64_t first, std::span<double> out)> float_range;
  /// Optional, for float32 producers that decode stored bytes (quantization schemes): the
  /// elements of float_range as float32, so a statistics scan decodes each block straight
  /// into its float lane (stats/streamed.cpp) instead of running the executor. The same
  /// threading rule as float_range.
  std::function<void(std::int64_t first, std::span<float> out)> float32_range;
  /// Optional, with float32_range: drops from the resident set the pages of stored bytes
  /// that only elements [first, last) read, once a scan has read all of them (other
  /// elements may still be read meanwhile). A scan calls it with runs it finished, and
  /// once with [0, numel) at its end. Safe to call from any thread.
  std::function<void(std::int64_t first, std::int64_t last)> release_scanned;
  /// Set on a producer of no elements standing for an op tinygrad builds but cannot run (a
  /// bitwise op on floats): tinygrad raises only once a kernel with elements reads it, so
  /// schedule() throws Error(BadExpression) with this message for such a kernel, and an
  /// empty result stays an answer.
  std::string unrunnable;
};

struct Node;
using NodePtr = std::shared_ptr<const Node>;

/// The argument of a node, by op: Reshape/Expand the new Shape; Permute/Flip/Reduce* the
/// axes (also a std::vector<int64_t>, i.e. a Shape); ScanSum the Shape (axis, length,
/// first): the axis length its summation order is laid out for (its input's, unless a
/// shrink moved below it cut that short) and the first output it keeps; Pad/Shrink
/// Ranges; Const a Scalar; Buffer a buffer; Producer a producer.
using NodeArg = std::variant<std::monostate, Shape, Ranges, Scalar, std::shared_ptr<Buffer>,
                             std::shared_ptr<const Producer>>;

/// One operation of the graph. Immutable; compare by pointer.
struct Node {
  Op op;
  DType dtype;
  Shape shape;               ///< the shape of this node's result
  std::vector<NodePtr> src;
  NodeArg arg;
};

/// The interning factory: returns the live node with these fields, or a new one.
/// Checks each op's dtype and shape rules (tinygrad's spec) and throws Error(Internal)
/// when a caller breaks them.
NodePtr make_node(Op op, DType dtype, Shape shape, std::vector<NodePtr> src = {}, NodeArg arg = {});

/// Number of entries in the intern table: exactly the nodes alive now (a node's deleter
/// erases its entry, so dropped graphs return their memory). For tests and leak checks.
std::size_t intern_table_size();

/// Text dump of the graph below `root`, one line per node in topological order:
/// `%3 = ADD float32 (2, 3) %1 %2`.
std::string graph_to_string(const NodePtr& root);
/// Graphviz dot source of the same graph.
std::string graph_to_dot(const NodePtr& root);

}  // namespace tensor_inspect
