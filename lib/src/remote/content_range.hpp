// remote/content_range.hpp — the Content-Range header of a 206 or 416 answer (RFC 9110,
// section 14.4): "bytes FIRST-LAST/SIZE", SIZE possibly "*", or "bytes */SIZE" when the range
// asked for cannot be satisfied. http_source.cpp checks every range answer against it.
#pragma once

#include <cstdint>
#include <string_view>

namespace tensor_inspect {

/// One parsed Content-Range value. Offsets are bytes of the whole resource, `last` inclusive.
struct ContentRange {
  bool unsatisfied = false;  ///< "bytes */N": the server could not serve the range asked for
  std::uint64_t first = 0, last = 0;
  bool size_known = false;  ///< false for "bytes A-B/*"
  std::uint64_t size = 0;   ///< the whole resource's bytes, when known
};

/// Parses `v` into `out`; false when malformed: another unit than bytes, a missing slash or
/// dash, a number that is not 1-19 decimal digits, first > last, or "*/*". Never throws.
bool parse_content_range(std::string_view v, ContentRange& out);

}  // namespace tensor_inspect
