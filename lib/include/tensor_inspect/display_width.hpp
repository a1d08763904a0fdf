// tensor_inspect/display_width.hpp — how many terminal columns text takes, for the tables that pad
// names into columns (the listing, --stats of a file, diff).
#pragma once

#include <cstddef>
#include <string_view>

namespace tensor_inspect {

/// Terminal columns of UTF-8 text (escaped first, so only printable characters remain):
/// wcwidth() of each character under C.UTF-8, so wide CJK characters take two columns and
/// combining marks none, as a terminal lays them out; an invalid or cut-short sequence
/// takes one column per byte. ASCII text is its size in bytes.
std::size_t display_width(std::string_view s);

}  // namespace tensor_inspect
