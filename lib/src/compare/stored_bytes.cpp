// compare/stored_bytes.cpp — diff of two tensors whose values the tool cannot decode (a GGUF
// Q8_1, a safetensors C64): their stored bytes, as the file holds them, compared
// exactly. Equal bytes are equal tensors; where they differ, the first byte says where.
#include <algorithm>
#include <cstring>

#include "tensor_inspect/diff.hpp"

namespace tensor_inspect {
namespace {

// Compared a slice at a time: a remote file fetches it, a mapped one drops it behind.
constexpr std::uint64_t kSlice = std::uint64_t{16} << 20;

}  // namespace

bool has_stored_bytes(const TensorEntry& e) { return e.details().blocks_file != nullptr; }

std::optional<std::uint64_t> first_differing_byte(const TensorEntry& a, const TensorEntry& b,
                                                  const std::function<void(std::uint64_t done)>& progress) {
  const std::span<const std::byte> sa = a.stored_blocks(), sb = b.stored_blocks();
  const std::uint64_t common = std::min(sa.size(), sb.size());
  for (std::uint64_t at = 0; at < common; at += kSlice) {
    const std::uint64_t n = std::min(kSlice, common - at);
    a.details().blocks_file->fetch(a.offset + at, n);
    b.details().blocks_file->fetch(b.offset + at, n);
    const std::byte* pa = sa.data() + at;
    const std::byte* pb = sb.data() + at;
    if (std::memcmp(pa, pb, static_cast<std::size_t>(n)) != 0)
      return at + static_cast<std::uint64_t>(std::mismatch(pa, pa + n, pb).first - pa);
    a.details().blocks_file->release_pages(a.offset + at, n);
    b.details().blocks_file->release_pages(b.offset + at, n);
    if (progress) progress(at + n);
  }
  if (sa.size() != sb.size()) return common;
  return std::nullopt;
}

}  // namespace tensor_inspect
