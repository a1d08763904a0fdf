// tensor_inspect/counts.hpp — a count with its noun, singular for one: "1 tensor", "2 tensors",
// "1 metadata entry". Every message and summary line that counts goes through it, so no
// run prints "1 tensors" or "all 1 checks passed".
//
//   count_of(items.size(), "tensor")                                 // "1 tensor", "3 tensors"
//   count_of(n, "metadata entry", "metadata entries")
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tensor_inspect {

/// `n` and `one` when n is 1, else `n` and `many` (default: `one` + "s").
inline std::string count_of(std::uint64_t n, std::string_view one, std::string_view many = {}) {
  return std::to_string(n) + " " +
         std::string(n == 1         ? one
                     : many.empty() ? std::string(one) + "s"
                                    : std::string(many));
}

}  // namespace tensor_inspect
