// stats/bit_patterns.hpp — counting the stored bit patterns of 1- and 2-byte elements, in the
// statistics pass, so that a histogram of them needs no second pass (ScanOptions::bit_patterns):
// a remote --stats --hist fetched the tensor twice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tensor_inspect/stored_elements.hpp"

namespace tensor_inspect {

/// Entries a count of `source`'s patterns holds: 256 for 1-byte elements, 65,536 for 2-byte ones.
std::size_t pattern_count(const StoredElements& source);

/// Adds the patterns of the stored elements in `bytes` (whole elements of `itemsize`, 1 or 2
/// bytes) to `counts` (pattern_count entries): entry k for bytes that read as little-endian k.
void count_patterns(std::span<const std::byte> bytes, std::size_t itemsize, std::uint64_t* counts);

}  // namespace tensor_inspect
