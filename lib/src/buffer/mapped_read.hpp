// buffer/mapped_read.hpp — bytes of a mapped file copied with pread instead of read through
// the mapping, for a walk that reads a little of many pages once (a GGUF vocabulary's string
// lengths: 8.4 MB of header for a 128k-token Llama-3 file).
//
// Why: on the VM the benchmarks run on, mapping a page-cache page into the process costs
// about 3 us a page (fault-around maps 16 a fault, and each is accounted), copying it about
// 0.3 us: touching 8.6 MB of a mapped file took 8 ms over an empty process, reading it in
// 16 KiB pieces 2.3 ms (bench/README.md, "GGUF listings against gguf-tools").
// The mapping registry (mapping_registry.cpp) keeps the open descriptor of each file
// MappedFile::open maps, closed when the mapping is unregistered: the bytes read are the
// mapping's own, whatever the path names meanwhile.
#pragma once

#include <cstddef>
#include <span>

namespace tensor_inspect {

/// Hands the registry `fd`, the descriptor of the file mapped from its first byte at
/// `begin` (registered by register_mapping); unregister_mapping closes it. Returns false
/// when `begin` is not registered (past the registry's slots): the caller keeps and closes it.
bool keep_mapping_fd(const void* begin, int fd) noexcept;

/// Copies out.size() bytes starting at `at`, an address inside a registered file mapping
/// that keeps its descriptor, with pread. False, `out` undefined, when `at` lies in no such
/// mapping, the range leaves it, or the read comes up short (a file cut short since): then
/// read the mapping itself, which reports a truncated file as it always does.
bool read_mapped(const std::byte* at, std::span<std::byte> out) noexcept;

}  // namespace tensor_inspect
