// loaders/safetensors.cpp — safetensors files (huggingface/safetensors, docs "Format").
//
// Byte layout:
//   1. header length N: u64 little-endian at byte 0; N <= 100,000,000 (the reference
//      implementation's MAX_HEADER_SIZE),
//   2. the header: N bytes of UTF-8 JSON, an object padded with JSON whitespace before
//      and after (nothing else: no NUL bytes); a map from tensor name to {"dtype",
//      "shape", "data_offsets": [begin, end)} plus an optional "__metadata__" map of
//      string to string, read in one pass by safetensors_header.cpp,
//   3. the byte buffer: everything after byte 8 + N. Offsets are relative to it, and the
//      tensors must tile it exactly: no overlap, no hole, nothing after the last tensor
//      (the reference `Metadata::validate` and its MetadataIncompleteBuffer check).
// Values are little-endian and C-contiguous. Tensors are listed in data-offset order.
// Sub-byte dtypes (F4, F6_*) count elements in `shape` and pack them: F4 two per byte, the
// first in the low nibble (torch.float4_e2m1fn_x2's order, which safetensors' torch binding maps F4 to).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "decode/minifloat.hpp"
#include "loaders/byte_reader.hpp"
#include "loaders/decoded_tensor.hpp"
#include "loaders/formats.hpp"
#include "loaders/safetensors_header.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

namespace {

/// One safetensors dtype tag: a tinygrad dtype, or a tag we recognise but cannot show.
struct StTag {
  std::string_view tag;
  std::optional<DType> dtype;
  std::uint32_t bits;  ///< bits per element (the reference Dtype::bitsize)
};

// The tags tinygrad has no dtype for; their bit sizes are the reference's Dtype::bitsize.
constexpr StTag kUnshownTags[] = {
    {"F8_E8M0", std::nullopt, 8}, {"F8_E4M3FNUZ", std::nullopt, 8}, {"F8_E5M2FNUZ", std::nullopt, 8},
    {"F6_E2M3", std::nullopt, 6}, {"F6_E3M2", std::nullopt, 6},     {"F4", std::nullopt, 4},
    {"C64", std::nullopt, 64},
};

std::optional<StTag> tag_from_safetensors(std::string_view tag) {
  for (std::size_t i = 0; i < kDTypeCount; ++i) {
    const DTypeInfo& info = dtype_info(static_cast<DType>(i));
    if (!info.safetensors.empty() && info.safetensors == tag && !is_weak(info.dtype))
      return StTag{tag, info.dtype, static_cast<std::uint32_t>(info.itemsize) * 8u};
  }
  for (const StTag& t : kUnshownTags)
    if (t.tag == tag) return t;
  return std::nullopt;
}

[[noreturn]] void refuse(const std::string& file, const std::string& what) {
  throw Error(ErrorCode::BadFile, file + ": " + what);
}

// "tensor 'NAME'", made only when a message needs it (a listing of 20,000 tensors would
// otherwise build 40,000 strings that are never shown).
std::string where_of(std::string_view name) { return "tensor '" + std::string(name) + "'"; }

Shape shape_from_dims(std::span<const std::int64_t> dims) { return Shape(dims.begin(), dims.end()); }

/// Checks one header entry against its dtype tag (element count, whole bytes, the byte
/// length of data_offsets) and returns the tag. `last` caches the previous entry's tag:
/// a checkpoint uses a handful of tags, so the table is searched a handful of times.
StTag check_tensor_info(const std::string& file, const TensorEntry& entry,
                        std::pair<std::uint64_t, std::uint64_t> offsets, std::optional<StTag>& last) {
  const std::string_view name = entry.name;
  const std::span<const std::int64_t> shape = entry.shape;
  const auto [begin, end] = offsets;
  if (!last || last->tag != entry.stored_type) last = tag_from_safetensors(entry.stored_type);
  if (!last) refuse(file, where_of(name) + ": unknown dtype '" + entry.stored_type + "'");
  const StTag tag = *last;
  // A zero dimension does not excuse the others from the overflow check (the strides of
  // (0, 2**62, 2**62) overflow all the same): span is the product of the dimensions over 1.
  std::uint64_t numel = 1, span = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const auto dim = static_cast<std::uint64_t>(shape[i]);
    if (dim > 1 && span > static_cast<std::uint64_t>(INT64_MAX) / dim)
      refuse(file, where_of(name) + ": element count of shape " + shape_repr(shape_from_dims(shape.first(i + 1))) +
                       " overflows");
    numel *= dim;  // numel <= span: no overflow
    if (dim > 1) span *= dim;
  }
  if (end < begin)
    refuse(file, where_of(name) + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                   ") end before they begin");
  // checked_mul's own test first, so its message is only built when it throws.
  if (numel != 0 && tag.bits > static_cast<std::uint64_t>(INT64_MAX) / numel)
    checked_mul(numel, tag.bits, file, where_of(name) + ": byte size of shape " + shape_repr(shape_from_dims(shape)));
  const std::uint64_t bits = numel * tag.bits;
  if (bits % 8 != 0)
    refuse(file, where_of(name) + ": " + std::to_string(numel) + " elements of " + entry.stored_type +
                   " do not fill whole bytes");
  if (bits / 8 != end - begin)
    refuse(file, where_of(name) + ": shape " + shape_repr(shape_from_dims(shape)) + " of " + entry.stored_type +
                     " needs " + std::to_string(bits / 8) + " bytes, but data_offsets [" + std::to_string(begin) +
                     ", " + std::to_string(end) + ") hold " + std::to_string(end - begin));
  return tag;
}

/// The loader of a tag tinygrad has no dtype for. F8_E8M0 and F4 decode to float32 (as
/// dequantized GGUF tensors do; the entry's dtype says float32 and its note says why);
/// F6_* and C64 are listed and refused with the reason.
void set_unshown_loader(const std::shared_ptr<const MappedFile>& file, TensorEntry& e) {
  const std::string tag = e.stored_type, tensor_name = e.name;
  const std::uint64_t offset = e.offset, nbytes = e.nbytes;
  if (tag == "F8_E8M0" || tag == "F4") {
    e.dtype = DType::Float32;
    e.note = "no tinygrad dtype; decoded to float32";
    const bool fp4 = tag == "F4";
    e.details_for_write().loader = [file, tag, tensor_name, offset, nbytes, fp4, shape = e.shape]() {
      auto fetch = [file, offset, nbytes] { file->fetch(offset, nbytes); };
      RangeDecode decode = [file, offset, nbytes, fp4](std::int64_t first, std::span<float> out) {
        const auto bytes = file->bytes().subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(nbytes));
        if (fp4) decode_fp4_range(bytes, first, out);
        else decode_e8m0_range(bytes, first, out);
      };
      return decoded_tensor("decode " + tag + " '" + tensor_name + "'", shape, std::move(decode), std::move(fetch));
    };
    return;
  }
  // NOTE: safetensors (PR #611, "Adding support for MXFP4,6") gives F6_* a bit size but no
  // bit order, and no writer we know of settles one: decoding would be a guess.
  const std::string why = tag.starts_with("F6_")
                              ? ", a packed 6-bit float whose bit order safetensors does not define"
                          : tag == "C64" ? " (complex64), which tinygrad has no dtype for and float32 cannot hold"
                                         : ", which tinygrad has no dtype for";
  e.details_for_write().loader = [file, tag, tensor_name, why]() -> Tensor {
    throw Error(ErrorCode::Unsupported, file->name() + ": tensor '" + tensor_name + "' has dtype " + tag + why,
                {file->name(), tensor_name, std::nullopt, ""});
  };
}

}  // namespace

bool sniff_safetensors(std::span<const std::byte> head) {
  if (head.size() < 9) return false;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(head[i]) << (8 * i);
  if (n < 2 || n > limits().safetensors_header_bytes) return false;
  // Writers may pad before the '{' (the reference accepts JSON whitespace there).
  for (std::size_t i = 8; i < head.size() && i < 8 + n; ++i) {
    const auto c = static_cast<char>(head[i]);
    if (c == '{') return true;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return head.size() < 8 + n;  // all whitespace as far as `head` reaches
}

LoadedFile open_safetensors(std::shared_ptr<const MappedFile> file) {
  const std::string& name = file->name();
  ByteReader r(file->bytes(), name);
  const std::uint64_t n = r.u64le("header length");
  if (n > limits().safetensors_header_bytes)
    r.fail_at("header length " + std::to_string(n) + " exceeds the limit of " +
                  std::to_string(limits().safetensors_header_bytes) + limit_hint("safetensors_header_bytes"),
              0, "safetensors_header_bytes");
  if (n > r.remaining())
    r.fail_at("header length " + std::to_string(n) + " runs past the end of the file (" +
                  std::to_string(file->size()) + " bytes)",
              0);
  const auto header_bytes = r.bytes(n, "header");
  const std::string_view text(reinterpret_cast<const char*>(header_bytes.data()), header_bytes.size());
  SafetensorsHeader header = parse_safetensors_header(text, name, 8);

  LoadedFile out;
  out.path = name;
  out.format = "safetensors";
  out.file = file;
  // Metadata in key order, tensors in data order (name order among equal offsets), as a
  // sorted map of the header would give them.
  std::sort(header.metadata.begin(), header.metadata.end());
  out.metadata.reserve(header.metadata.size());
  for (auto& [key, value] : header.metadata)
    out.metadata.push_back(MetaEntry{key, "string", nlohmann::ordered_json(value)});
  std::vector<TensorEntry>& entries = header.tensors;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& spans = header.data_offsets;
  const std::uint64_t data_start = 8 + n;
  // One pass over the entries while each is checked: its dtype, where its bytes lie, and
  // how load() gets them. Each entry's values are a plain slice of the file
  // (TensorEntry::file): no closure per tensor, except for the rare tags tinygrad has no
  // dtype for, whose load() decodes them (F8_E8M0, F4) or says why not. (A second pass
  // over 20,000 entries of 200 bytes each misses the cache on every one.)
  std::optional<StTag> last_tag;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    TensorEntry& e = entries[i];
    e.dtype = check_tensor_info(name, e, spans[i], last_tag).dtype;
    e.offset = data_start + spans[i].first;
    e.nbytes = spans[i].second - spans[i].first;
    if (e.dtype) {
      e.file = file;
    } else {
      e.details_for_write().blocks_file = file;  // bytes compared by diff where values are not shown
      set_unshown_loader(file, e);
    }
  }

  // Tile the buffer: sorted by (begin, end), each tensor starts where the previous ended.
  // Zero-size tensors at one offset stay in name order (the header is read sorted).
  // Writers put the header in data order, so sorting is usually a check that it is.
  const auto before = [&](std::uint32_t ia, std::uint32_t ib) {
    if (spans[ia] != spans[ib]) return spans[ia] < spans[ib];
    return entries[ia].name < entries[ib].name;
  };
  std::vector<std::uint32_t> order(entries.size());  // fewer than 2**32 entries fit the header cap
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  const bool in_order = std::is_sorted(order.begin(), order.end(), before);
  if (!in_order) std::sort(order.begin(), order.end(), before);
  const std::uint64_t buffer_size = file->size() - data_start;
  std::uint64_t cursor = 0;
  const TensorEntry* previous = nullptr;
  for (std::uint32_t i : order) {
    const auto [begin, end] = spans[i];
    const std::string& tensor = entries[i].name;
    if (end > buffer_size)
      refuse(name, where_of(tensor) + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ") run past the end of the data (" + std::to_string(buffer_size) + " bytes) at byte " +
                     std::to_string(data_start + begin));
    if (begin < cursor)
      refuse(name, where_of(tensor) + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ") overlap tensor '" + previous->name + "' at byte " + std::to_string(data_start + begin));
    if (begin > cursor)
      refuse(name, where_of(tensor) + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ") leave a hole of " + std::to_string(begin - cursor) + " bytes before it at byte " +
                     std::to_string(data_start + cursor));
    cursor = end;
    previous = &entries[i];
  }
  if (cursor != buffer_size)
    refuse(name, std::to_string(buffer_size - cursor) + " bytes after the last tensor belong to no tensor at byte " +
                   std::to_string(data_start + cursor));

  // The entries the header was read into are handed out as they are (moved into data
  // order when the header was not in it).
  if (in_order) {
    out.tensors = std::move(entries);
  } else {
    out.tensors.reserve(entries.size());
    for (std::uint32_t i : order) out.tensors.push_back(std::move(entries[i]));
  }
  return out;
}

}  // namespace tensor_inspect
