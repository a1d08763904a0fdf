// reread_copies.cpp — reread_copies: see reread_copies.hpp.
#include "realize/reread_copies.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "buffer/spill_file.hpp"
#include "log/log.hpp"
#include "realize/kernels.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect::realize_detail {
namespace {

bool remote_buffer(const Node& n) {
  if (n.op != Op::Buffer) return false;
  const auto& buffer = std::get<std::shared_ptr<Buffer>>(n.arg);
  return buffer && buffer->device() == Device::DISK && buffer->file() && buffer->file()->is_remote() &&
         buffer->nbytes() > limits().remote_memory_bytes / 4;
}

// Whether a read of `bytes` of a tensor of `whole` bytes counts: it reaches a quarter of them or more
// (a shrink, x[:10], reaches a few: fetched again at little cost, where a copy would fetch them all;
// a step, x[::2], reaches half, and fetches the blocks between).
bool large_read(double bytes, std::uint64_t whole) { return bytes >= static_cast<double>(whole) / 4; }

}  // namespace

BufferMap reread_copies(const std::vector<Kernel>& kernels) {
  std::unordered_set<const Node*> made;  // kernel outputs: loads of the kernels after them
  for (const Kernel& k : kernels) made.insert(k.output.get());
  // For each remote BUFFER node, its reads: (kernel, the movement chain it is read under, by its
  // top node). An op that reads it twice under one chain (x * x) is one read, two chains of one
  // kernel (x + x.T, x[:, :4] + x[:, :4].T) two, as two kernels under one chain (argmax's flatten).
  std::unordered_map<const Node*, std::set<std::pair<std::size_t, const Node*>>> readers;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    if (k.kind == KernelKind::Alias || k.kind == KernelKind::Produce) continue;
    std::unordered_set<const Node*> seen;
    std::vector<const Node*> stack{k.output.get()};
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      for (const NodePtr& s : n->src) {
        // Down the movement chain: the elements it reaches are at most the fewest along it.
        const Node* c = s.get();
        std::int64_t reach = prod(c->shape);
        while (is_movement(c->op) && !made.count(c)) c = c->src[0].get(), reach = std::min(reach, prod(c->shape));
        if (!remote_buffer(*c)) {
          if (!made.count(c)) stack.push_back(c);
          continue;
        }
        // A scan reads the rows up to the last it outputs, in one pass or two.
        const bool scan = k.kind == KernelKind::Scan && is_scan(n->op);
        const double bytes = static_cast<double>(reach) * dtype_info(c->dtype).itemsize *
                             (scan ? scan_rows_read(k) : 1.0);
        if (!large_read(bytes, std::get<std::shared_ptr<Buffer>>(c->arg)->nbytes())) continue;
        readers[c].insert({i, s.get()});
        if (scan && scan_passes(k) == 2) readers[c].insert({i, nullptr});
      }
    }
  }
  BufferMap copies;
  for (const auto& [node, by] : readers) {
    if (by.size() < 2) continue;
    const auto& buffer = std::get<std::shared_ptr<Buffer>>(node->arg);
    const auto start = std::chrono::steady_clock::now();
    std::string why;
    const std::shared_ptr<SpillFile> copy = SpillFile::make(buffer->bytes_unfetched().data(), buffer->nbytes(), why);
    if (!copy) {
      lib_log().info("realize: {} bytes of a remote file read {} times are fetched each time: {}", buffer->nbytes(),
                     by.size(), why);
      continue;
    }
    const std::shared_ptr<Buffer> local = Buffer::disk(copy->as_file(), 0, buffer->nbytes());
    copies[node] = make_node(Op::Buffer, node->dtype, node->shape, {}, local);
    lib_log().info("realize: {} bytes of a remote file read {} times were copied to a temporary file in {} in "
                   "{:.0f} ms (each read would fetch them again)",
                   buffer->nbytes(), by.size(), copy->folder(),
                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return copies;
}

}  // namespace tensor_inspect::realize_detail
