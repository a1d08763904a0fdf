// decode/lanes.hpp — stored bytes of any dtype (either byte order, GGUF blocks) decoded,
// a block at a time, into one of four lanes: float, double, int64 or uint64 (what the
// statistics scan, stats/scan.cpp and stats/streamed.cpp, reads).
//
//   Lane lane = lane_of(source);                      // Lane::F32 for bfloat16
//   float buf[kStatsBlock];
//   decode_block(source, first, n, buf);              // n elements from element `first`
#pragma once

#include <cstdint>

#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

/// What a block of values is decoded into before its moments are taken.
enum class Lane { F32, F64, I64, U64 };

/// The lane a source decodes into: float64 -> F64; other floats and GGUF blocks -> F32
/// (exact: every one of their values is a float32); signed ints -> I64; unsigned and
/// bool (0/1) -> U64.
Lane lane_of(const StoredElements& source);

/// Decodes elements [first, first + n) into `out`, which must hold n values of the lane
/// type (float, double, int64_t, uint64_t). For GGUF sources first and n are multiples of
/// the block size, or n reaches the end. The bytes were bounds-checked when the source was made.
void decode_block(const StoredElements& source, std::int64_t first, std::int64_t n, void* out);

/// The byte offset of element `first` in source.bytes (GGUF: of its block; a source with
/// `decode`: first * 4, as if it were float32).
std::uint64_t byte_offset_of(const StoredElements& source, std::int64_t first);

}  // namespace tensor_inspect
