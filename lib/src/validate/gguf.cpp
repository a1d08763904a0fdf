// validate/gguf.cpp — GGUF (ggml docs/gguf.md, and what ggml's gguf.cpp refuses). The
// layout is read by the loader's own parser (loaders/gguf_header.cpp) collecting every
// fault it finds: magic, version, counts, keys UTF-8 and unique, value types, general.alignment
// a uint32 power of two, tensor names UTF-8 and unique, at most 4 dims, byte sizes in range,
// a known ggml type, rows of whole blocks, offsets aligned, data inside the file and no two
// tensors overlapping. The rules here are about validity only, on the parser's header model:
//   - metadata keys non-empty; bool values 0 or 1 (scalars and arrays of bool);
//   - tensor names at most 63 bytes (GGML_MAX_NAME);
//   - a ggml type the tool cannot dequantize (a warning: valid, but unopenable here);
//   - nothing after the last tensor's data but its padding to the alignment (a warning).
// A truncated field ends the walk: one "structure" finding, after the rules on what was read.
#include <algorithm>
#include <string>
#include <vector>

#include "loaders/gguf_header.hpp"
#include "loaders/gguf_metadata.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

constexpr std::uint64_t kGgmlMaxName = 64;  // GGML_MAX_NAME, with the terminating NUL

void check_metadata(std::span<const std::byte> bytes, const GgufHeader& h, Findings& f) {
  for (std::size_t i = 0; i < h.kvs.size(); ++i) {
    const GgufKeyValue& kv = h.kvs[i];
    const std::string place = "key '" + gguf_utf8_or_escaped(kv.key) + "'";
    if (kv.key.empty())
      f.error("key_empty", "metadata " + std::to_string(i), kv.at, "metadata key " + std::to_string(i) + " is empty");
    // The parser walked these bytes: a bool, or an array of `count` bools after its u32 type and u64 count.
    std::uint64_t first = kv.value_at, n = 0;
    if (kv.type == kGgufBool) n = 1;
    if (kv.type == kGgufArray && kv.element == kGgufBool) first += 12, n = kv.count;
    for (std::uint64_t at = first; at < first + n; ++at) {
      const auto b = static_cast<unsigned>(bytes[static_cast<std::size_t>(at)]);
      if (b > 1) f.error("bool", place, at, "bool value " + std::to_string(b) + " is neither 0 nor 1");
    }
  }
}

void check_tensors(std::span<const std::byte> bytes, const GgufHeader& h, Findings& f) {
  for (const GgufTensorInfo& t : h.tensors) {
    const std::string place = "tensor '" + gguf_utf8_or_escaped(t.name()) + "'";
    if (t.name_size() >= kGgmlMaxName)
      f.error("name_length", place, t.info_at(bytes.data()),
              "the name is " + std::to_string(t.name_size()) + " bytes; GGML_MAX_NAME allows 63");
    const GgmlType* const type = t.type();
    if (type && !type->dtype && !type->dequantizable)  // the loader refuses it as unsupported
      f.warning("unsupported", place, t.type_at(bytes.data()),
                "ggml type " + std::string(type->name) + " (" + std::to_string(t.type_id()) +
                    ") is one this tool cannot dequantize: the tool cannot open this tensor");
  }
}

// gguf-py pads every tensor's data, the last one's too, to the alignment; ggml's reader
// stops there. More is nobody's: a warning, as readers ignore it (npy.trailing too).
void check_trailing(std::uint64_t size, const GgufHeader& h, Findings& f) {
  if (h.tensors.empty()) {
    if (size > h.data_start)
      f.warning("trailing", "data", h.data_start,
                std::to_string(size - h.data_start) + " bytes after the header's padding, in a file of no tensor");
    return;
  }
  if (h.data_start > size) return;
  const std::uint64_t data_len = size - h.data_start;
  std::vector<const GgufTensorInfo*> by_offset;
  for (const GgufTensorInfo& t : h.tensors) {
    if (!t.sized() || t.offset() > data_len || t.nbytes() > data_len - t.offset()) return;  // a fault already said so
    by_offset.push_back(&t);
  }
  std::stable_sort(by_offset.begin(), by_offset.end(),
                   [](const GgufTensorInfo* a, const GgufTensorInfo* b) { return a->offset() < b->offset(); });
  std::uint64_t covered = 0;
  std::string covered_by;
  for (const GgufTensorInfo* t : by_offset)
    if (t->offset() + t->nbytes() > covered) covered = t->offset() + t->nbytes(), covered_by = t->name();
  const std::uint64_t padded_end = covered + (h.alignment - covered % h.alignment) % h.alignment;
  if (padded_end < data_len)
    f.warning("trailing", "data", h.data_start + padded_end,
              std::to_string(data_len - padded_end) + " bytes after the last tensor's data (" +
                  (covered_by.empty()
                       ? std::string("none holds a byte")
                       : "tensor '" + gguf_utf8_or_escaped(covered_by) + "', up to " + std::to_string(covered)) +
                  ", padded to the alignment " + std::to_string(h.alignment) + ") belong to no tensor");
}

}  // namespace

void check_gguf(std::span<const std::byte> bytes, Findings& f) {
  const GgufFaults collect("GGUF", [&f](const GgufFault& x) {
    if (x.warning) f.warning(x.rule, x.place, x.at, x.message);
    else f.error(x.rule, x.place, x.at, x.message);
  });
  const GgufHeader h = parse_gguf_header(bytes, collect);
  check_metadata(bytes, h, f);
  check_tensors(bytes, h, f);
  if (!h.stopped.empty()) {
    f.error("structure", "", std::nullopt, h.stopped);
    return;
  }
  if (h.complete) check_trailing(bytes.size(), h, f);
}

}  // namespace tensor_inspect::validate
