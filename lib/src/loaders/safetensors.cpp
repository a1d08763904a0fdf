// loaders/safetensors.cpp — safetensors files (huggingface/safetensors, docs "Format").
//
// Byte layout:
//   1. header length N: u64 little-endian at byte 0; N <= 100,000,000 (the reference
//      implementation's MAX_HEADER_SIZE),
//   2. the header: N bytes of UTF-8 JSON starting with '{', maybe padded with trailing
//      spaces; a map from tensor name to {"dtype", "shape", "data_offsets": [begin, end)}
//      plus an optional "__metadata__" map of string to string,
//   3. the byte buffer: everything after byte 8 + N. Offsets are relative to it, and the
//      tensors must tile it exactly: no overlap, no hole, nothing after the last tensor
//      (the reference `Metadata::validate` and its MetadataIncompleteBuffer check).
// Values are little-endian and C-contiguous. Tensors are listed in data-offset order.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "loaders/byte_reader.hpp"
#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

namespace {

constexpr std::uint64_t kMaxHeader = 100'000'000;

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

/// A header entry after validation, before sorting.
struct StTensor {
  std::string name;
  std::string tag;
  std::optional<DType> dtype;
  Shape shape;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw Error(ErrorCode::BadFile, file + ": " + what);
}

std::uint64_t json_uint(const nlohmann::ordered_json& v, const std::string& file, const std::string& where) {
  if (!v.is_number_unsigned())
    fail(file, where + " must be a non-negative integer, not " + v.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  return v.get<std::uint64_t>();
}

StTensor read_tensor_info(const std::string& file, const std::string& name, const nlohmann::ordered_json& info) {
  const std::string where = "tensor '" + name + "'";
  if (!info.is_object()) fail(file, where + ": header entry is not an object");
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!info.contains(field)) fail(file, where + ": header entry has no \"" + field + "\"");

  StTensor t;
  t.name = name;
  const auto& dtype = info["dtype"];
  if (!dtype.is_string()) fail(file, where + ": dtype is not a string");
  t.tag = dtype.get<std::string>();
  std::optional<StTag> tag = tag_from_safetensors(t.tag);
  if (!tag) fail(file, where + ": unknown dtype '" + t.tag + "'");
  t.dtype = tag->dtype;

  const auto& shape = info["shape"];
  if (!shape.is_array()) fail(file, where + ": shape is not a list");
  std::uint64_t numel = 1;
  for (const auto& d : shape) {
    const std::uint64_t dim = json_uint(d, file, where + ": shape dimension");
    if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(file, where + ": shape dimension " + std::to_string(dim) + " is too large");
    t.shape.push_back(static_cast<std::int64_t>(dim));
    numel = checked_mul(numel, dim, file, where + ": element count of shape " + shape_repr(t.shape));
  }

  const auto& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) fail(file, where + ": data_offsets is not a list [begin, end]");
  t.begin = json_uint(offsets[0], file, where + ": data_offsets begin");
  t.end = json_uint(offsets[1], file, where + ": data_offsets end");
  if (t.end < t.begin)
    fail(file, where + ": data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                   ") end before they begin");

  const std::uint64_t bits = checked_mul(numel, tag->bits, file, where + ": byte size of shape " + shape_repr(t.shape));
  if (bits % 8 != 0)
    fail(file, where + ": " + std::to_string(numel) + " elements of " + t.tag + " do not fill whole bytes");
  if (bits / 8 != t.end - t.begin)
    fail(file, where + ": shape " + shape_repr(t.shape) + " of " + t.tag + " needs " + std::to_string(bits / 8) +
                   " bytes, but data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + ") hold " +
                   std::to_string(t.end - t.begin));
  return t;
}

}  // namespace

nlohmann::ordered_json parse_json_header(std::string_view text, const std::string& file, std::uint64_t base) {
  using json = nlohmann::ordered_json;
  // Keys seen in each open object (arrays push an unused set so the stack pairs up), and
  // the key under which each object was opened, for messages. nlohmann keeps the last of
  // duplicate keys; the reference implementation (serde) refuses them, and so do we.
  std::vector<std::vector<std::string>> seen;
  std::vector<std::string> path;
  std::string last_key;
  auto callback = [&](int, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        seen.emplace_back();
        path.push_back(last_key);
        break;
      case E::object_end:
      case E::array_end:
        if (!seen.empty()) seen.pop_back();
        if (!path.empty()) path.pop_back();
        break;
      case E::key: {
        last_key = parsed.get<std::string>();
        auto& keys = seen.back();
        if (std::find(keys.begin(), keys.end(), last_key) != keys.end()) {
          if (seen.size() == 1)
            fail(file, "tensor '" + last_key + "' appears twice in the header");
          fail(file, "key '" + last_key + "' appears twice in header object '" + path.back() + "'");
        }
        keys.push_back(last_key);
        break;
      }
      case E::value:
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), callback);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const std::size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    const std::uint64_t at = base + (e.byte > 0 ? e.byte - 1 : 0);
    throw Error(ErrorCode::BadFile, file + ": header is not valid JSON (" + what + ") at byte " + std::to_string(at));
  }
}

bool sniff_safetensors(std::span<const std::byte> head) {
  if (head.size() < 9) return false;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(head[i]) << (8 * i);
  return n >= 2 && n <= kMaxHeader && head[8] == std::byte{'{'};
}

LoadedFile open_safetensors(std::shared_ptr<const MappedFile> file) {
  const std::string& name = file->name();
  ByteReader r(file->bytes(), name);
  const std::uint64_t n = r.u64le("header length");
  if (n > kMaxHeader)
    r.fail_at("header length " + std::to_string(n) + " exceeds the limit of " + std::to_string(kMaxHeader), 0);
  if (n > r.remaining())
    r.fail_at("header length " + std::to_string(n) + " runs past the end of the file (" +
                  std::to_string(file->size()) + " bytes)",
              0);
  const auto header_bytes = r.bytes(n, "header");
  const std::string_view text(reinterpret_cast<const char*>(header_bytes.data()), header_bytes.size());
  if (text.empty() || text.front() != '{') r.fail_at("header does not start with '{'", 8);
  const nlohmann::ordered_json header = parse_json_header(text, name, 8);
  if (!header.is_object()) r.fail_at("header is not a JSON object", 8);

  LoadedFile out;
  out.path = name;
  out.format = "safetensors";
  out.file = file;

  std::vector<StTensor> tensors;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (it.value().is_null()) continue;
      if (!it.value().is_object()) fail(name, "__metadata__ is not a map of strings");
      for (auto m = it.value().begin(); m != it.value().end(); ++m) {
        if (!m.value().is_string()) fail(name, "__metadata__ value of '" + m.key() + "' is not a string");
        out.metadata.push_back(MetaEntry{m.key(), "string", m.value()});
      }
      continue;
    }
    tensors.push_back(read_tensor_info(name, it.key(), it.value()));
  }

  // Tile the buffer: sorted by (begin, end), each tensor starts where the previous ended.
  std::stable_sort(tensors.begin(), tensors.end(), [](const StTensor& a, const StTensor& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const std::uint64_t data_start = 8 + n;
  const std::uint64_t buffer_size = file->size() - data_start;
  std::uint64_t cursor = 0;
  std::string previous;
  for (const StTensor& t : tensors) {
    const std::string where = "tensor '" + t.name + "'";
    if (t.end > buffer_size)
      fail(name, where + ": data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                     ") run past the end of the data (" + std::to_string(buffer_size) + " bytes) at byte " +
                     std::to_string(data_start + t.begin));
    if (t.begin < cursor)
      fail(name, where + ": data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                     ") overlap tensor '" + previous + "' at byte " + std::to_string(data_start + t.begin));
    if (t.begin > cursor)
      fail(name, where + ": data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                     ") leave a hole of " + std::to_string(t.begin - cursor) + " bytes before it at byte " +
                     std::to_string(data_start + cursor));
    cursor = t.end;
    previous = t.name;
  }
  if (cursor != buffer_size)
    fail(name, std::to_string(buffer_size - cursor) + " bytes after the last tensor belong to no tensor at byte " +
                   std::to_string(data_start + cursor));

  for (const StTensor& t : tensors) {
    TensorEntry e;
    e.name = t.name;
    e.stored_type = t.tag;
    e.dtype = t.dtype;
    e.shape = t.shape;
    e.stored_shape = t.shape;
    e.offset = data_start + t.begin;
    e.nbytes = t.end - t.begin;
    const std::optional<DType> dtype = t.dtype;
    const std::string tag = t.tag;
    const std::string tensor_name = t.name;
    const std::uint64_t offset = e.offset, nbytes = e.nbytes;
    const Shape shape = t.shape;
    e.load = [file, dtype, tag, tensor_name, offset, nbytes, shape]() {
      if (!dtype)
        throw Error(ErrorCode::Unsupported, file->name() + ": tensor '" + tensor_name + "' has dtype " + tag +
                                                ", which tinygrad has no dtype for");
      return Tensor::from_buffer(Buffer::disk(file, offset, nbytes), *dtype, shape);
    };
    out.tensors.push_back(std::move(e));
  }
  return out;
}

}  // namespace tensor_inspect
