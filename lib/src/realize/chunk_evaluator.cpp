// chunk_evaluator.cpp — running a lowered kernel (program.hpp) over chunks of its index space.
#include <algorithm>
#include <cassert>
#include <cstring>

#include "buffer/byte_source.hpp"
#include "realize/program.hpp"
#include "realize/mulacc.hpp"

namespace tensor_inspect::realize_detail {
namespace {

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

/// Kernel elements whose reads settle a Load's block size (BlockReads::settle): 32 chunks.
constexpr std::int64_t kBlockSample = std::int64_t{1} << 16;

// A remote Load under views read in order (fetch_on_read): the elements `idx` reads (sorted one
// way or the other, -1 aside) fetched before they are read, in runs of nearby ones, so a large
// step fetches the blocks it reads, not the ones between (those the windows ahead have brought
// are here already: nothing to fetch).
void fetch_reads(const Instance& inst, const std::int64_t* idx, std::size_t n) {
  const auto itemsize = static_cast<std::int64_t>(dtype_info(inst.dtype).itemsize);
  const std::int64_t gap = static_cast<std::int64_t>(kFetchBlock) / itemsize;
  std::int64_t lo = -1, hi = -1, prev = -1;
  auto flush = [&] {
    if (lo >= 0)
      inst.file->fetch(inst.file_offset + static_cast<std::uint64_t>(lo * itemsize),
                       static_cast<std::uint64_t>((hi - lo + 1) * itemsize));
  };
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t at = idx[i];
    if (at < 0) continue;
    if (lo >= 0 && (at > prev ? at - prev : prev - at) < gap) {
      lo = std::min(lo, at), hi = std::max(hi, at);
    } else {
      flush();
      lo = hi = at;
    }
    prev = at;
  }
  flush();
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

BlockReads& ChunkEvaluator::block_reads(std::size_t k) {
  if (block_reads_.empty()) block_reads_.resize(program_.nodes.size(), nullptr);
  if (!block_reads_[k]) {
    const Instance& inst = program_.nodes[k];
    block_reads_[k] = &inst.block_caches->mine([&] {  // the kernel's first reads, once per Load
      std::vector<std::int64_t> sample;  // its first chunks, in the order they run
      const ChunkOrder& order = program_.order;
      for (std::int64_t item = 0; item < order.items() && sample.size() < static_cast<std::size_t>(kBlockSample);
           ++item) {
        const auto [at, n] = order.at(item);
        const std::int64_t* idx = indices(inst, at, n);
        sample.insert(sample.end(), idx, idx + n);
      }
      return sample;
    });
  }
  return *block_reads_[k];
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
  if (inst.views.empty() && inst.block_reads == Instance::BlockReadsFrom::None) {
    if (inst.fetch_on_read)
      inst.file->fetch(inst.file_offset + static_cast<std::uint64_t>(start) * itemsize, n * itemsize);
    std::memcpy(out, inst.data + static_cast<std::size_t>(start) * itemsize, n * itemsize);
    return;
  }
  // (block_reads before indices: its first call reads a sample of indices into the same scratch)
  BlockReads* blocks = inst.block_reads != Instance::BlockReadsFrom::None ? &block_reads(k) : nullptr;
  const std::int64_t* idx = indices(inst, start, n);
  if (blocks) return blocks->gather(idx, n, out);
  if (inst.fetch_on_read) fetch_reads(inst, idx, n);
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
        if (inst.block_reads != Instance::BlockReadsFrom::None) {  // out of order: the block cache
          BlockReads& blocks = block_reads(k);                       // first: see gather
          if (blocks.through_map()) {
            decode(inst.dtype, inst.data, indices(inst, start, n), n, out);  // given up to the map
          } else {
            bytes_.resize(n * dtype_info(inst.dtype).itemsize);
            blocks.gather(indices(inst, start, n), n, bytes_.data());
            decode(inst.dtype, bytes_.data(), nullptr, n, out);
          }
        } else if (inst.views.empty()) {
          const std::size_t itemsize = dtype_info(inst.dtype).itemsize;
          if (inst.fetch_on_read)
            inst.file->fetch(inst.file_offset + static_cast<std::uint64_t>(start) * itemsize, n * itemsize);
          decode(inst.dtype, inst.data + static_cast<std::size_t>(start) * itemsize, nullptr, n, out);
        } else {
          const std::int64_t* idx = indices(inst, start, n);
          if (inst.fetch_on_read) fetch_reads(inst, idx, n);
          decode(inst.dtype, inst.data, idx, n, out);
        }
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
      case Instance::MulAcc:
        apply_mulacc_chunk(inst, values_[inst.src[0]].data(), values_[inst.src[1]].data(),
                           values_[inst.src[2]].data(), n, out);
        break;
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
