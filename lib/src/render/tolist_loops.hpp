// tolist_loops.hpp — the typed printing loops behind write_tolist: one loop per dtype
// (and per text/JSON spelling) over a C-contiguous buffer, chosen once per tensor, so no
// value pays a type dispatch. A loop formats any element range [begin, end) on its own —
// brackets and separators follow from the global index — which lets blocks be formatted
// in parallel and written in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::render {

/// The repr of one 16-bit pattern, padded to kMaxValueRepr so it is copied whole.
struct ReprEntry {
  char text[kMaxValueRepr];
  std::uint8_t size;
};

/// What a loop needs to know about the tensor and the spelling.
struct TolistSource {
  const std::byte* data =
      nullptr;  ///< element 0, C-contiguous (elements byte-reversed when the view is stored_swapped)
  std::int64_t numel = 0;            ///< elements in all (> 0)
  std::int64_t inner = 1;            ///< length of the last axis (> 0)
  int ndim = 1;                      ///< axes (>= 1; 0-d tensors do not come here)
  std::vector<std::int64_t> spans;   ///< spans[d] = prod(shape[d:]) for d < ndim - 1
  std::string_view nan, inf, ninf;   ///< spellings of non-finite floats in JSON
  const std::string* bytes = nullptr;  ///< 256 spellings of format 'c' elements
  const ReprEntry* table = nullptr;    ///< float16/bfloat16: the repr of each of the 65536 patterns
};

/// Formats elements [begin, end) — each value, then what follows it (", ", or the closing
/// and opening brackets where rows end) — into `out`, which must hold
/// tolist_block_capacity(src, end - begin) bytes; element 0 also opens the ndim brackets.
/// Returns the end of what was written.
using TolistLoop = char* (*)(const TolistSource& src, std::int64_t begin, std::int64_t end, char* out);

/// Bytes that formatting `count` consecutive elements may take, at most.
std::size_t tolist_block_capacity(const TolistSource& src, std::int64_t count);

/// The loop for this memoryview's dtype (format 'c': bytes objects) and spelling; with
/// `table`, the loop that copies float16/bfloat16 reprs from src.table.
TolistLoop pick_tolist_loop(const MemoryView& mv, bool json, bool table);

/// float16 and bfloat16 have 65536 values: past this many elements printing looks each
/// repr up in a table made once (in parallel) instead of formatting it again.
inline constexpr std::int64_t kReprTableElements = 1 << 17;
/// The table of src.table for a float16 or bfloat16 `mv` (65536 entries, 2 MiB), with the
/// spelling of src (JSON non-finite values).
std::unique_ptr<ReprEntry[]> make_repr_table(const MemoryView& mv, bool json, const TolistSource& src);

/// The spelling of a format 'c' element (a bytes object: b'a', b'\x00', b"'"; JSON: a
/// 1-character string of that code point), one per byte value.
const std::string& bytes_repr(std::uint8_t c, bool json);

}  // namespace tensor_inspect::render
