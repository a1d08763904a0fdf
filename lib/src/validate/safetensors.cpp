// validate/safetensors.cpp — every rule of the safetensors format (huggingface/safetensors,
// "Format" and its Rust `validate`):
//   1. 8 bytes: N, the header length (u64 LE), at most 100,000,000 and inside the file;
//   2. N bytes of UTF-8 JSON: one object, no duplicate keys, padded with spaces only;
//      "__metadata__" a map of strings to strings; every other key a tensor
//      {"dtype": tag, "shape": [n, ...], "data_offsets": [begin, end]}, nothing else;
//   3. the data: each tensor's [begin, end) holds prod(shape) * bits / 8 bytes (whole bytes), and the
//      ranges tile the data exactly (no overlap, no hole, nothing after the last).
// The data starting at a multiple of 8 (writers pad the header) is a warning.
//
// The JSON is read by the loaders' one JSON reader (loaders/json_document.hpp) under its
// collecting policy: every duplicate key and the first syntax fault, at their file bytes.
// The rules below then look at the document rather than at the loader's header parser
// (loaders/safetensors_header.cpp), for a reason: that parser reads each entry straight
// into a TensorEntry on the fast path and skips what it does not need (unknown keys, the
// kind of a wrong value), where validate names every such value by its JSON kind and text.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "loaders/byte_reader.hpp"
#include "loaders/json_document.hpp"
#include "tensor_inspect/dtype.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

constexpr std::uint64_t kMaxHeader = 100'000'000;
constexpr int kMaxDepth = 8;  // the format needs 3: header, tensor, shape

// Bits per element of a tag: tinygrad's dtypes, and the tags of the format tinygrad has no
// dtype for, with the reference's Dtype::bitsize (as the loader's table, loaders/safetensors.cpp).
// Those are the format's own: the loader decodes F8_E8M0 and F4 and refuses the others, which
// the open below reports as notes, never as a fault of the file.
std::optional<std::uint64_t> bits_of_tag(const std::string& tag) {
  for (std::size_t i = 0; i < kDTypeCount; ++i) {
    const DTypeInfo& info = dtype_info(static_cast<DType>(i));
    if (!info.safetensors.empty() && info.safetensors == tag) return info.itemsize * 8;
  }
  static constexpr std::pair<std::string_view, std::uint64_t> kOther[] = {
      {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"F4", 4}, {"C64", 64}};
  for (const auto& [name, bits] : kOther)
    if (name == tag) return bits;
  return std::nullopt;
}

}  // namespace

namespace {

struct Range {
  std::uint64_t begin, end;
  std::string name;
};

std::string quoted(const std::string& name) { return "tensor '" + name + "'"; }

}  // namespace

void check_safetensors(std::span<const std::byte> bytes, Findings& f) {
  ByteReader r(bytes, f.prefix().empty() ? "file" : f.prefix());
  const std::uint64_t n = r.u64le("header length");
  if (n > kMaxHeader) {
    f.error("header_length", "header", 0,
            "header length " + std::to_string(n) + " exceeds the limit of 100000000 bytes");
    return;
  }
  if (n > r.remaining()) {
    f.error("header_length", "header", 0,
            "header length " + std::to_string(n) + " runs past the end of the file (" + std::to_string(bytes.size()) +
                " bytes)");
    return;
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, n);
  const std::uint64_t data_start = 8 + n, data_len = bytes.size() - data_start;
  if (data_start % 8 != 0)
    f.warning("alignment", "header", 0, "the data starts at byte " + std::to_string(data_start) +
                                            ", not a multiple of 8 (pad the header with spaces)");
  const std::size_t last = text.find_last_not_of(' ');
  if (last != std::string_view::npos && text[last] == '\0') {
    const std::size_t pad = text.find_last_not_of(std::string_view("\0 ", 2));
    f.error("header_padding", "header", 8 + (pad == std::string_view::npos ? 0 : pad + 1),
            "the header is padded with NUL bytes; only spaces may follow the JSON");
  }
  const std::string_view json_text = text.substr(0, text.find_last_not_of(std::string_view("\0 ", 2)) + 1);
  if (const int depth = json_nesting(json_text); depth > kMaxDepth) {
    f.error("depth", "header", 8,
            "the header nests " + std::to_string(depth) + " levels deep (a safetensors header has 3)");
    return;
  }
  // Duplicate keys: nlohmann and Python's json keep the last, safetensors (serde) refuses the file.
  // The loaders' JSON reader collects them, and the first syntax fault, at their file bytes.
  JsonFaults faults{[&](const JsonDuplicate& d) {
    const std::string first = " (first at byte " + std::to_string(d.first) + ")";
    if (d.object.empty())
      f.error("duplicate_key", d.key == "__metadata__" ? d.key : quoted(d.key), d.again,
              (d.key == "__metadata__" ? d.key : quoted(d.key)) + " appears again in the header" + first);
    else if (d.object == "__metadata__")
      f.error("duplicate_key", "__metadata__ '" + d.key + "'", d.again,
              "metadata key '" + d.key + "' appears again" + first);
    else
      f.error("duplicate_key", quoted(d.object), d.again, "key '" + d.key + "' appears again in the entry" + first);
  }};
  const std::string file = f.prefix().empty() ? "file" : f.prefix();
  const std::optional<nlohmann::json> read = JsonDocument(json_text, file, 8).collect(faults);
  if (!read) {
    f.error("json", "header", faults.fault->offset, "the header is not valid JSON: " + faults.fault->what);
    return;
  }
  const nlohmann::json& header = *read;
  if (!header.is_object()) {
    f.error("json", "header", 8, std::string("the header is a JSON ") + header.type_name() + ", not an object");
    return;
  }
  std::vector<Range> ranges;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) {
        f.error("metadata", "__metadata__", std::nullopt,
                "__metadata__ is " + with_article(v.type_name()) + ", not an object");
        continue;
      }
      for (auto m = v.begin(); m != v.end(); ++m)
        if (!m.value().is_string())
          f.error("metadata", "__metadata__ '" + m.key() + "'", std::nullopt,
                  "metadata value is " + with_article(m.value().type_name()) +
                      "; safetensors metadata maps strings to strings");
      continue;
    }
    const std::string place = quoted(name);
    if (!v.is_object()) {
      f.error("entry", place, std::nullopt, "the entry is " + with_article(v.type_name()) + ", not an object");
      continue;
    }
    for (auto k = v.begin(); k != v.end(); ++k)
      if (k.key() != "dtype" && k.key() != "shape" && k.key() != "data_offsets")
        f.error("entry_key", place, std::nullopt,
                "unknown key '" + k.key() + "' (allowed: dtype, shape, data_offsets)");
    std::optional<std::uint64_t> bits;
    if (!v.contains("dtype") || !v["dtype"].is_string()) {
      f.error("dtype", place, std::nullopt, "no \"dtype\" string");
    } else if (!(bits = bits_of_tag(v["dtype"].get<std::string>()))) {
      f.error("dtype", place, std::nullopt, "unknown dtype tag '" + v["dtype"].get<std::string>() + "'");
    }
    std::uint64_t count = 1;
    bool numel = true;
    if (!v.contains("shape") || !v["shape"].is_array()) {
      f.error("shape", place, std::nullopt, "no \"shape\" array");
      numel = false;
    } else {
      for (const auto& d : v["shape"]) {
        if (!d.is_number_unsigned()) {
          f.error("shape", place, std::nullopt,
                  "shape " + v["shape"].dump() + " holds " + d.dump() + ", not a size >= 0");
          numel = false;
          break;
        }
        // The loader's bounds (loaders/safetensors.cpp): the element count and the bit size
        // each at most 2^63 - 1, through the checked product.
        const std::optional<std::uint64_t> product = mul_in_range(count, d.get<std::uint64_t>());
        if (!product) {
          f.error("shape", place, std::nullopt, "shape " + v["shape"].dump() + " overflows");
          numel = false;
          break;
        }
        count = *product;
      }
    }
    const nlohmann::json* off = v.contains("data_offsets") ? &v["data_offsets"] : nullptr;
    if (!off || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned()) {
      f.error("data_offsets", place, std::nullopt, "\"data_offsets\" is not [begin, end] of two sizes >= 0");
      continue;
    }
    const auto begin = (*off)[0].get<std::uint64_t>(), end = (*off)[1].get<std::uint64_t>();
    const std::string span = "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
    if (begin > end) {
      f.error("data_offsets", place, std::nullopt, span + ": begin is after end");
      continue;
    }
    if (end > data_len)
      f.error("bounds", place, data_start + begin,
              span + " runs past the end of the data (" + std::to_string(data_len) + " bytes)");
    const std::optional<std::uint64_t> bit_size = bits && numel ? mul_in_range(count, *bits) : std::nullopt;
    const std::uint64_t total_bits = bit_size.value_or(0);
    if (bits && numel && !bit_size)
      f.error("size", place, data_start + begin,
              "shape " + v["shape"].dump() + " of " + v["dtype"].get<std::string>() + " overflows");
    else if (bits && numel && total_bits % 8 != 0)
      f.error("size", place, data_start + begin,
              std::to_string(count) + " elements of " + v["dtype"].get<std::string>() + " do not fill whole bytes");
    else if (bits && numel && end - begin != total_bits / 8)
      f.error("size", place, data_start + begin,
              span + " holds " + std::to_string(end - begin) + " bytes; shape " + v["shape"].dump() + " of " +
                  v["dtype"].get<std::string>() + " needs " + std::to_string(total_bits / 8));
    ranges.push_back({begin, end, name});
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t covered = 0;
  const Range* prev = nullptr;
  for (const Range& x : ranges) {
    if (x.begin < covered && x.begin != x.end) {
      f.error("overlap", quoted(x.name), data_start + x.begin,
              "data_offsets [" + std::to_string(x.begin) + ", " + std::to_string(x.end) + ") overlap " +
                  (prev ? quoted(prev->name) : std::string("another tensor")) + " (up to " + std::to_string(covered) +
                  ")");
    } else if (x.begin > covered) {
      f.error(
          "hole", quoted(x.name), data_start + covered,
          "bytes [" + std::to_string(covered) + ", " + std::to_string(x.begin) + ") of the data belong to no tensor");
    }
    if (x.end >= covered) {
      covered = x.end;
      prev = &x;
    }
  }
  if (covered < data_len)
    f.error("trailing", "data", data_start + covered,
            std::to_string(data_len - covered) + " bytes after the last tensor's data belong to no tensor");
}

}  // namespace tensor_inspect::validate
