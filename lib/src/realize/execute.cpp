// execute.cpp — the CPU executor: runs a schedule's kernels and returns buffers, and
// streams a tensor's values in chunks without materializing it.
//
// A Loop kernel is its body lowered to a program (program.hpp) and evaluated over fixed
// chunks of output indices on all threads; each chunk writes its own slice of the output,
// so the bytes are the same on any number of threads.
#include <algorithm>
#include <vector>

#include "log/log.hpp"

#include "realize/encoded_stream.hpp"
#include "realize/kernels.hpp"
#include "realize/reread_copies.hpp"
#include "tensor_inspect/context.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {
namespace realize_detail {

void report_progress(std::int64_t done, std::int64_t total) {
  if (const ProgressHook& hook = current_context().progress) hook(done, total);
}

std::int64_t chunk_count(std::int64_t n) {
  return (n + static_cast<std::int64_t>(kChunk) - 1) / static_cast<std::int64_t>(kChunk);
}

NodePtr run_loop(const Kernel& k, const BufferMap& buffers) {
  const NodePtr& out = k.output;
  const NodePtr body = out->op == Op::Contiguous ? out->src[0] : out;
  const DTypeInfo& info = dtype_info(out->dtype);
  const std::int64_t n = prod(out->shape);
  auto buf = Buffer::cpu(static_cast<std::size_t>(n) * info.itemsize);
  Program prog = lower(body, buffers);
  prog.order = ChunkOrder::of(prog);  // a column walk runs band by band (chunk_order.hpp)
  std::byte* dst = buf->mutable_bytes().data();
  // A kernel that only moves stored elements copies their bytes (bit for bit, and without
  // decoding them); any other computes words and encodes them.
  const bool copy = prog.moves_only() && prog.nodes.back().dtype == out->dtype;
  ReleaseBehind release(prog);  // linear chunks finish in index order, batch by batch
  parallel_for(
      prog.order.items(), [&] { return ChunkEvaluator(prog); },
      [&](ChunkEvaluator& ev, std::int64_t c) {
        const auto [start, m] = prog.order.at(c);
        std::byte* at = dst + static_cast<std::size_t>(start) * info.itemsize;
        if (copy) ev.gather(prog.root(), start, m, at);
        else encode(out->dtype, ev.run(start, m), m, at);
      },
      prog.serial(), [&](std::int64_t done) { release(done * static_cast<std::int64_t>(kChunk)); },
      release.batch_items(static_cast<std::int64_t>(kChunk)));
  release.finish();
  return make_node(Op::Buffer, out->dtype, out->shape, {}, buf);
}

namespace {

// Refuses a kernel that would compute more than limits().compute_elements elements: its
// loop's index space (a reduction's input), before any of them is computed.
void check_compute(const Kernel& k) {
  if (k.kind == KernelKind::Alias || k.kind == KernelKind::Produce) return;
  const NodePtr& body = k.output->op == Op::Contiguous ? k.output->src[0] : k.output;
  const Shape& space = k.kind == KernelKind::Reduce ? body->src[0]->shape : body->shape;
  const auto n = static_cast<std::uint64_t>(prod(space));
  if (n > limits().compute_elements)
    throw limit_error("compute_elements", std::string(op_name(body->op)) + " over shape " + shape_repr(space) + ": " +
                                              std::to_string(n) + " elements to compute, more than " +
                                              std::to_string(limits().compute_elements) +
                                              limit_hint("compute_elements"));
}

std::shared_ptr<Buffer> buffer_of(const NodePtr& buffer_node) {
  return std::get<std::shared_ptr<Buffer>>(buffer_node->arg);
}

// Runs every kernel of `kernels` but the ones from `stop` on; returns the buffers made.
BufferMap run_kernels(const std::vector<Kernel>& kernels, std::size_t stop) {
  BufferMap buffers = reread_copies(kernels);  // a remote tensor read twice: copied to disk once
  auto resolve = [&buffers](const NodePtr& n) {
    auto it = buffers.find(n.get());
    return it != buffers.end() ? it->second : n;
  };
  for (std::size_t i = 0; i < stop; ++i) {
    const Kernel& k = kernels[i];
    lib_log().debug("realize: {}", k.to_string(i));
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
      case KernelKind::Loop:
        check_compute(k);
        result = run_loop(k, buffers);
        break;
      case KernelKind::Scan:
        check_compute(k);
        result = run_scan(k, buffers);
        break;
      case KernelKind::Reduce:
        result = try_run_matmul(k, buffers);
        if (!result) {
          check_compute(k);
          result = run_reduce(k, buffers);
        }
        break;
    }
    buffers[out.get()] = result;
  }
  return buffers;
}

}  // namespace
}  // namespace realize_detail

using namespace realize_detail;

ProgressHook set_progress_hook(ProgressHook hook) {
  std::swap(default_context().progress, hook);
  return hook;
}

NodePtr realize(const NodePtr& root) {
  if (root->op == Op::Buffer) return root;
  std::vector<Kernel> kernels = schedule(root);
  BufferMap buffers = run_kernels(kernels, kernels.size());
  return buffers.at(root.get());
}

Scalar ValueChunk::at(std::size_t k) const {
  if (f) return Scalar::from_float(f[k]);
  if (i) return Scalar::from_int(i[k]);
  if (dtype_info(dtype).kind == DKind::Bool) return Scalar::from_bool(u[k] != 0);
  return Scalar::from_uint(u[k]);
}

namespace {

// The program whose chunks are `root`'s values: everything before the last kernel is
// realized; a last Loop kernel is streamed, any other last kernel (a reduction, a
// producer) is realized and its buffer streamed. `buffers` keeps the realized ones alive.
Program streaming_program(const NodePtr& root, BufferMap& buffers) {
  std::vector<Kernel> kernels = schedule(root);
  const bool stream_last = !kernels.empty() && kernels.back().kind == KernelKind::Loop;
  if (stream_last) check_compute(kernels.back());
  buffers = run_kernels(kernels, stream_last ? kernels.size() - 1 : kernels.size());
  NodePtr body = root;
  if (!stream_last && root->op != Op::Buffer) body = buffers.at(root.get());
  else if (stream_last && root->op == Op::Contiguous) body = root->src[0];
  return lower(body, buffers);
}

// Elements a batch of max_elements holds: whole chunks, at least one.
std::size_t batch_of(std::size_t max_elements) { return std::max<std::size_t>(kChunk, max_elements / kChunk * kChunk); }

// Streams the last kernel of `root` (n > 0 elements) in batches of `batch` elements (whole
// chunks): fill(prog, ev, index, len, off) for each chunk of a batch on all threads (`off`: its
// place in the batch, kChunk a chunk), then done(order, first, count) for the batch's chunks
// order.at(first .. first + count) on the calling thread. Their order is C order, chunk after
// chunk, or, with `any_order`, a column walk's bands (chunk_order.hpp). A file read in place
// gives its pages back behind the stream.
template <class Fill, class Done>
void stream_batches(const NodePtr& root, std::size_t batch, bool any_order, const Fill& fill, const Done& done) {
  const std::int64_t n = prod(root->shape);
  BufferMap buffers;
  Program prog = streaming_program(root, buffers);
  if (any_order) prog.order = ChunkOrder::of(prog);
  const ChunkOrder& order = prog.order;
  const auto per_batch = static_cast<std::int64_t>(batch / kChunk);
  ReleaseBehind release(prog);  // nothing to give back when banded
  for (std::int64_t first = 0; first < order.items(); first += per_batch) {
    const std::int64_t count = std::min(per_batch, order.items() - first);
    parallel_for(
        count, [&] { return ChunkEvaluator(prog); },
        [&](ChunkEvaluator& ev, std::int64_t c) {
          const auto [at, len] = order.at(first + c);
          fill(prog, ev, at, len, static_cast<std::size_t>(c) * kChunk);
        },
        prog.serial());
    done(order, first, count);
    release(std::min(n, (first + count) * static_cast<std::int64_t>(kChunk)));
  }
  release.finish();
}

ValueChunk chunk_of(DType dtype, std::int64_t start, std::size_t n, const Word* words) {
  // NOTE: Word is a union of 8-byte members; its array is read as an array of one of them.
  ValueChunk chunk{dtype, start, n, nullptr, nullptr, nullptr};
  const DKind kind = dtype_info(dtype).kind;
  if (kind == DKind::Float) chunk.f = &words[0].f;
  else if (kind == DKind::Signed) chunk.i = &words[0].i;
  else chunk.u = &words[0].u;
  return chunk;
}

}  // namespace

void for_each_chunk_parallel(const NodePtr& root, const ChunkSink& sink) {
  const std::int64_t n = prod(root->shape);
  if (n == 0) return;
  BufferMap buffers;
  const Program prog = streaming_program(root, buffers);
  ReleaseBehind release(prog);  // a file read in place gives its pages back behind the stream
  parallel_for(
      chunk_count(n), [&] { return ChunkEvaluator(prog); },
      [&](ChunkEvaluator& ev, std::int64_t c) {
        const std::int64_t start = c * static_cast<std::int64_t>(kChunk);
        const auto m = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(kChunk), n - start));
        sink(chunk_of(root->dtype, start, m, ev.run(start, m)));
      },
      prog.serial(), [&](std::int64_t done) { release(done * static_cast<std::int64_t>(kChunk)); },
      release.batch_items(static_cast<std::int64_t>(kChunk)));
  release.finish();
}

void for_each_run_parallel(const NodePtr& root, std::size_t run_elements, const ChunkSink& sink) {
  const std::int64_t n = prod(root->shape);
  if (n == 0) return;
  BufferMap buffers;
  const Program prog = streaming_program(root, buffers);
  ReleaseBehind release(prog);  // a file read in place gives its pages back behind the stream
  const std::size_t run = std::max<std::size_t>(kChunk, (run_elements + kChunk - 1) / kChunk * kChunk);
  const auto runs = static_cast<std::int64_t>((static_cast<std::size_t>(n) + run - 1) / run);
  struct RunState {
    ChunkEvaluator ev;
    std::vector<Word> words;
  };
  parallel_for(
      runs,
      [&] {
        return RunState{ChunkEvaluator(prog), std::vector<Word>(std::min(run, static_cast<std::size_t>(n)))};
      },
      [&](RunState& st, std::int64_t r) {
        const std::int64_t start = r * static_cast<std::int64_t>(run);
        const auto m = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(run), n - start));
        for (std::size_t off = 0; off < m; off += kChunk) {
          const std::size_t len = std::min(kChunk, m - off);
          const Word* v = st.ev.run(start + static_cast<std::int64_t>(off), len);
          std::copy(v, v + len, st.words.data() + off);
        }
        sink(chunk_of(root->dtype, start, m, st.words.data()));
      },
      prog.serial(), [&](std::int64_t done) { release(done * static_cast<std::int64_t>(run)); },
      release.batch_items(static_cast<std::int64_t>(run)));
  release.finish();
}

void for_each_chunk(const NodePtr& root, std::size_t max_elements, const ChunkSink& sink) {
  const std::int64_t n = prod(root->shape);
  if (n == 0) return;
  const std::size_t batch = batch_of(max_elements);
  std::vector<Word> words(static_cast<std::size_t>(std::min<std::int64_t>(n, static_cast<std::int64_t>(batch))));
  stream_batches(
      root, batch, false,
      [&](const Program&, ChunkEvaluator& ev, std::int64_t at, std::size_t len, std::size_t off) {
        const Word* v = ev.run(at, len);
        std::copy(v, v + len, words.data() + off);
      },
      [&](const ChunkOrder& order, std::int64_t first, std::int64_t count) {
        const auto [start, m] = order.run(first, count);
        sink(chunk_of(root->dtype, start, m, words.data()));
      });
}

namespace realize_detail {

void for_each_encoded(const NodePtr& root, std::size_t max_elements, const EncodedSink& sink, bool any_order) {
  const std::int64_t n = prod(root->shape);
  if (n == 0) return;
  const std::size_t itemsize = dtype_info(root->dtype).itemsize, batch = batch_of(max_elements);
  // (A banded batch's chunks take kChunk elements each, the short ones at rows' ends too.)
  const auto whole = static_cast<std::int64_t>(batch);
  const std::int64_t held = any_order ? whole : std::min(n, whole);
  std::vector<std::byte> bytes(static_cast<std::size_t>(held) * itemsize);
  stream_batches(
      root, batch, any_order,
      [&](const Program& prog, ChunkEvaluator& ev, std::int64_t at, std::size_t len, std::size_t off) {
        std::byte* to = bytes.data() + off * itemsize;
        const bool copy = prog.moves_only() && prog.nodes.back().dtype == root->dtype;  // as run_loop
        if (copy) ev.gather(prog.root(), at, len, to);
        else encode(root->dtype, ev.run(at, len), len, to);
      },
      [&](const ChunkOrder& order, std::int64_t first, std::int64_t count) {
        if (!order.banded()) {  // the batch's chunks follow one another
          const auto [start, m] = order.run(first, count);
          sink(start, std::span<const std::byte>(bytes.data(), m * itemsize));
          return;
        }
        for (std::int64_t c = 0; c < count; ++c) {
          const auto [at, len] = order.at(first + c);
          sink(at, std::span<const std::byte>(bytes.data() + static_cast<std::size_t>(c) * kChunk * itemsize,
                                              len * itemsize));
        }
      });
}

}  // namespace realize_detail

void for_each_chunk_zipped(const std::vector<NodePtr>& roots, std::int64_t batch_chunks, const ZippedChunkSink& sink,
                           const std::function<void(std::int64_t done)>& batch_done) {
  if (roots.empty()) return;
  const std::int64_t n = prod(roots[0]->shape);
  for (const NodePtr& r : roots)
    if (prod(r->shape) != n)
      throw Error(ErrorCode::BadShape, "for_each_chunk_zipped: tensors of different element counts");
  if (n == 0) return;
  std::vector<BufferMap> buffers(roots.size());
  std::vector<Program> progs;
  bool serial = false;
  for (std::size_t r = 0; r < roots.size(); ++r) {
    progs.push_back(streaming_program(roots[r], buffers[r]));
    serial |= progs.back().serial();
  }
  const std::int64_t chunks = chunk_count(n), batch = std::max<std::int64_t>(1, batch_chunks);
  for (std::int64_t first = 0; first < chunks; first += batch) {
    const std::int64_t count = std::min(batch, chunks - first);
    parallel_for(
        count,
        [&] {
          std::vector<ChunkEvaluator> evs;
          evs.reserve(progs.size());
          for (const Program& p : progs) evs.emplace_back(p);
          return evs;
        },
        [&](std::vector<ChunkEvaluator>& evs, std::int64_t c) {
          const std::int64_t start = (first + c) * static_cast<std::int64_t>(kChunk);
          const auto m = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(kChunk), n - start));
          std::vector<ValueChunk> vs;
          vs.reserve(roots.size());
          for (std::size_t r = 0; r < roots.size(); ++r)
            vs.push_back(chunk_of(roots[r]->dtype, start, m, evs[r].run(start, m)));
          sink(vs.data());
        },
        serial);
    batch_done(std::min(n, (first + count) * static_cast<std::int64_t>(kChunk)));
  }
}

}  // namespace tensor_inspect
