// loaders/gguf.cpp — GGUF files (ggml docs/gguf.md), versions 2 and 3, little-endian.
//
// Byte layout:
//   1. magic "GGUF" (4 bytes),
//   2. version: u32 (2 or 3; version 1 had 32-bit counts and is refused),
//   3. tensor_count: u64, then metadata_kv_count: u64,
//   4. metadata key/values: key (u64 length + bytes), value type u32, value; types
//      UINT8=0 INT8=1 UINT16=2 INT16=3 UINT32=4 INT32=5 FLOAT32=6 BOOL=7 STRING=8
//      ARRAY=9 (element type u32, count u64, elements) UINT64=10 INT64=11 FLOAT64=12,
//   5. tensor infos: name (string), n_dims u32 (<= 4, GGML_MAX_DIMS), dims u64 each
//      (innermost first), ggml type u32, offset u64 relative to the data section,
//   6. padding to `general.alignment` (u32, a power of two, default 32),
//   7. the data section; each tensor's offset is a multiple of the alignment.
// A vocabulary-only file (no tensors) may end before the aligned data section. A split
// model (llama.cpp gguf-split: "<name>-00001-of-00003.gguf", keys split.no, split.count,
// split.tensors.count) opened at its first part lists the tensors of every part.
// Plain types (F32, F16, BF16, F64, I8..I64) are lazy DISK slices; quantized blocks are
// dequantized to float32 when realized (decode/ggml_types.cpp).
#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "decode/ggml_types.hpp"
#include "loaders/byte_reader.hpp"
#include "loaders/formats.hpp"
#include "loaders/gguf_metadata.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

namespace {

constexpr std::uint64_t kDefaultAlignment = 32;  // GGUF_DEFAULT_ALIGNMENT
constexpr std::uint32_t kGgmlMaxDims = 4;            // GGML_MAX_DIMS
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;  // empty name, n_dims 0, type, offset
constexpr std::uint64_t kMinKeyValueBytes = 8 + 4 + 1;        // empty key, type, a u8 value

/// One tensor info as read, before its data is checked.
struct GgufTensor {
  std::string name;
  Shape stored;  ///< innermost first
  const GgmlType* type = nullptr;
  std::uint64_t offset = 0;  ///< relative to the data section
  std::uint64_t nbytes = 0;
  std::uint64_t info_at = 0;  ///< file offset of the info, for messages
};

GgufTensor read_tensor_info(ByteReader& r) {
  GgufTensor t;
  t.info_at = r.offset();
  t.name = gguf_read_name(r, "tensor name", limits().gguf_key_bytes, "gguf_key_bytes");
  const std::string where = "tensor '" + t.name + "'";
  const std::uint32_t n_dims = r.u32le("n_dims");
  if (n_dims > kGgmlMaxDims)
    r.fail_at(where + ": n_dims " + std::to_string(n_dims) + " exceeds GGML_MAX_DIMS (" + std::to_string(kGgmlMaxDims) + ")",
              r.offset() - 4);
  std::uint64_t numel = 1;
  for (std::uint32_t i = 0; i < n_dims; ++i) {
    const std::uint64_t d = r.u64le("dimension");
    if (d > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      r.fail_at(where + ": dimension " + std::to_string(d) + " is too large", r.offset() - 8);
    if (d != 0 && numel > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / d)
      r.fail_at(where + ": element count overflows", r.offset() - 8);
    numel *= d;
    t.stored.push_back(static_cast<std::int64_t>(d));
  }
  const std::uint32_t type_id = r.u32le("tensor type");
  t.type = ggml_type_from_id(type_id);
  if (!t.type) r.fail_at(where + ": " + ggml_unknown_type_reason(type_id), r.offset() - 4);
  const std::uint64_t row = t.stored.empty() ? 1 : static_cast<std::uint64_t>(t.stored[0]);
  if (row % t.type->block_elems != 0)
    r.fail_at(where + ": row of " + std::to_string(row) + " elements is not a multiple of the " +
                  std::string(t.type->name) + " block size " + std::to_string(t.type->block_elems),
              r.offset() - 4);
  t.nbytes = checked_mul(numel / t.type->block_elems, t.type->block_bytes, r.name(), where + ": byte size");
  t.offset = r.u64le("tensor offset");
  return t;
}

// Each block decodes into a stack buffer of kGgmlMaxBlockElems floats, the largest block of
// any type (decode/ggml_types.cpp static_asserts every row against it).
std::function<Tensor()> make_loader(const std::shared_ptr<const MappedFile>& file, const GgufTensor& t,
                                    std::uint64_t abs_offset, const Shape& shape) {
  const GgmlType& type = *t.type;
  const std::string name = t.name;
  const std::uint64_t nbytes = t.nbytes;
  if (type.dtype) {
    const DType dtype = *type.dtype;
    return [file, abs_offset, nbytes, dtype, shape]() {
      return Tensor::from_buffer(Buffer::disk(file, abs_offset, nbytes), dtype, shape);
    };
  }
  if (!type.dequantizable) {
    return [file, name, &type]() -> Tensor {
      throw Error(ErrorCode::Unsupported, file->name() + ": tensor '" + name + "' is " + std::string(type.name) +
                                              ", which this tool cannot dequantize: " +
                                              std::string(ggml_refusal_reason(type)));
    };
  }
  return [file, name, &type, abs_offset, nbytes, shape]() {
    // NOTE: float_range runs on loop threads, where a failed fetch could not be reported:
    // a remote tensor's blocks are fetched here, when it is opened.
    file->fetch(abs_offset, nbytes);
    auto producer = std::make_shared<Producer>();
    producer->label = "dequantize " + std::string(type.name) + " '" + name + "'";
    producer->fill = [file, &type, abs_offset, nbytes](std::span<std::byte> out) {
      file->fetch(abs_offset, nbytes);
      const auto src = file->bytes().subspan(static_cast<std::size_t>(abs_offset), static_cast<std::size_t>(nbytes));
      const std::size_t blocks = src.size() / type.block_bytes;
      assert(out.size() == blocks * type.block_elems * sizeof(float));
      float block[kGgmlMaxBlockElems];
      for (std::size_t i = 0; i < blocks; ++i) {
        dequantize_ggml(type, src.subspan(i * type.block_bytes, type.block_bytes), std::span(block, type.block_elems));
        std::memcpy(out.data() + i * type.block_elems * sizeof(float), block, type.block_elems * sizeof(float));
      }
    };
    // Element by element, decoding a block once while reads stay inside it: a slice of a
    // large quantized tensor dequantizes only the blocks it reads.
    struct BlockCache {
      std::int64_t block = -1;
      float values[kGgmlMaxBlockElems];
    };
    auto cache = std::make_shared<BlockCache>();
    producer->element = [file, &type, abs_offset, cache](std::int64_t i) {
      const auto per_block = static_cast<std::int64_t>(type.block_elems);
      const std::int64_t b = i / per_block;
      if (b != cache->block) {
        const std::size_t at = static_cast<std::size_t>(abs_offset) + static_cast<std::size_t>(b) * type.block_bytes;
        file->fetch(at, type.block_bytes);
        dequantize_ggml(type, file->bytes().subspan(at, type.block_bytes), std::span(cache->values, type.block_elems));
        cache->block = b;
      }
      return Scalar::from_float(static_cast<double>(cache->values[i % per_block]));
    };
    // Runs of elements, block by block, with no shared state: loops call it on all threads.
    producer->float_range = [file, &type, abs_offset](std::int64_t first, std::span<double> out) {
      const auto per_block = static_cast<std::int64_t>(type.block_elems);
      float values[kGgmlMaxBlockElems];
      for (std::size_t done = 0; done < out.size();) {
        const std::int64_t i = first + static_cast<std::int64_t>(done), b = i / per_block;
        const std::size_t at = static_cast<std::size_t>(abs_offset) + static_cast<std::size_t>(b) * type.block_bytes;
        dequantize_ggml(type, file->bytes().subspan(at, type.block_bytes), std::span(values, type.block_elems));
        for (auto k = static_cast<std::size_t>(i % per_block); k < type.block_elems && done < out.size(); ++k)
          out[done++] = static_cast<double>(values[k]);
      }
    };
    return Tensor::from_producer(producer, DType::Float32, shape);
  };
}

/// Reads one GGUF file (one part of a split model).
LoadedFile read_gguf(const std::shared_ptr<const MappedFile>& file) {
  const std::string& name = file->name();
  ByteReader r(file->bytes(), name);
  const auto magic = r.bytes(4, "magic");
  if (std::memcmp(magic.data(), "GGUF", 4) != 0) r.fail_at("bad magic (expected \"GGUF\")", 0);
  const std::uint32_t version = r.u32le("version");
  const std::uint32_t swapped = (version >> 24) | ((version >> 8) & 0xFF00u) | ((version << 8) & 0xFF0000u) | (version << 24);
  if (version == 1)
    throw Error(ErrorCode::Unsupported, name + ": GGUF version 1 is not supported (it used 32-bit counts; "
                                               "convert the file with a newer llama.cpp) at byte 4");
  if (swapped == 2 || swapped == 3)
    throw Error(ErrorCode::Unsupported, name + ": big-endian GGUF is not supported at byte 4");
  if (version != 2 && version != 3)
    throw Error(ErrorCode::Unsupported, name + ": GGUF version " + std::to_string(version) +
                                            " is not supported (only 2 and 3) at byte 4");
  const std::uint64_t tensor_count = r.u64le("tensor count");
  const std::uint64_t kv_count = r.u64le("metadata count");
  if (tensor_count > r.remaining() / kMinTensorInfoBytes)
    r.fail_at("tensor count " + std::to_string(tensor_count) + " cannot fit in the file", 8);
  if (kv_count > r.remaining() / kMinKeyValueBytes)
    r.fail_at("metadata count " + std::to_string(kv_count) + " cannot fit in the file", 16);

  LoadedFile out;
  out.path = name;
  out.format = "gguf";
  out.file = file;

  std::uint64_t alignment = kDefaultAlignment;
  std::set<std::string> keys;
  std::uint64_t elements_left = limits().gguf_array_elements;
  for (std::uint64_t i = 0; i < kv_count; ++i) {
    const std::uint64_t at = r.offset();
    std::string key = gguf_read_name(r, "metadata key", limits().gguf_key_bytes, "gguf_key_bytes");
    if (!keys.insert(key).second) r.fail_at("duplicate metadata key '" + key + "'", at);
    const std::uint32_t type = r.u32le("metadata value type");
    const std::uint64_t value_at = r.offset();
    std::string type_str;
    nlohmann::ordered_json value = gguf_read_value(r, type, key, type_str, elements_left);
    if (key == "general.alignment") {
      if (type != kGgufUint32) r.fail_at("general.alignment is " + gguf_type_name(type) + ", not uint32", value_at - 4);
      alignment = value.get<std::uint64_t>();
      if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        r.fail_at("general.alignment " + std::to_string(alignment) + " is not a power of two", value_at);
    }
    out.metadata.push_back(MetaEntry{std::move(key), std::move(type_str), std::move(value)});
  }

  std::vector<GgufTensor> tensors;
  tensors.reserve(static_cast<std::size_t>(tensor_count));
  std::set<std::string> names;
  for (std::uint64_t i = 0; i < tensor_count; ++i) {
    GgufTensor t = read_tensor_info(r);
    if (!names.insert(t.name).second) r.fail_at("duplicate tensor name '" + t.name + "'", t.info_at);
    tensors.push_back(std::move(t));
  }

  // The data section starts at the next multiple of the alignment (maybe past the end
  // of a file with no tensor data).
  const std::uint64_t data_start = (r.offset() + alignment - 1) / alignment * alignment;
  const std::uint64_t size = file->size();
  for (const GgufTensor& t : tensors) {
    const std::string where = "tensor '" + t.name + "'";
    if (t.offset % alignment != 0)
      r.fail_at(where + ": data offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                    std::to_string(alignment),
                t.info_at);
    if (data_start > size || t.offset > size - data_start || t.nbytes > size - data_start - t.offset)
      r.fail_at(where + ": data offset " + std::to_string(t.offset) + " + " + std::to_string(t.nbytes) +
                    " bytes is past the end of the file (" + std::to_string(size) + " bytes)",
                t.info_at);
  }
  std::vector<const GgufTensor*> by_offset;
  for (const GgufTensor& t : tensors) by_offset.push_back(&t);
  std::stable_sort(by_offset.begin(), by_offset.end(),
                   [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
  for (std::size_t i = 1; i < by_offset.size(); ++i) {
    const GgufTensor& a = *by_offset[i - 1];
    const GgufTensor& b = *by_offset[i];
    if (b.offset < a.offset + a.nbytes)
      r.fail_at("tensor '" + b.name + "': data at offset " + std::to_string(b.offset) + " overlaps tensor '" + a.name +
                    "' (" + std::to_string(a.offset) + " + " + std::to_string(a.nbytes) + " bytes)",
                b.info_at);
  }

  for (const GgufTensor& t : tensors) {
    TensorEntry e;
    e.name = t.name;
    e.stored_type = std::string(t.type->name);
    e.details_for_write().stored_shape = t.stored;
    e.shape = Shape(t.stored.rbegin(), t.stored.rend());
    e.offset = data_start + t.offset;
    e.nbytes = t.nbytes;
    if (t.type->dtype) {
      e.dtype = t.type->dtype;
    } else {
      e.dtype = t.type->dequantizable ? std::optional<DType>(DType::Float32) : std::nullopt;
      e.note = "blocks of " + std::to_string(t.type->block_elems) + " elements in " +
               std::to_string(t.type->block_bytes) + " bytes" +
               (t.type->dequantizable ? ", dequantized to float32" : ", not dequantizable here");
    }
    e.details_for_write().loader = make_loader(file, t, e.offset, e.shape);
    if (t.type->dequantizable) e.details_for_write().ggml_type = t.type->id;
    if (!t.type->dtype) e.details_for_write().blocks_file = file;  // blocks, decoded here or not: diff compares their bytes
    out.tensors.push_back(std::move(e));
  }
  return out;
}

/// The parts of a split model as llama.cpp's gguf-split names them:
/// "<prefix>-00001-of-00003.gguf". nullopt for other names.
struct SplitName {
  std::string prefix;
  unsigned part = 0;
  unsigned count = 0;
};

std::optional<SplitName> split_name(const std::string& path) {
  static constexpr std::string_view kTail = "-00000-of-00000.gguf";
  if (path.size() <= kTail.size()) return std::nullopt;
  const std::string tail = path.substr(path.size() - kTail.size());
  unsigned part = 0, count = 0;
  for (std::size_t i = 0; i < kTail.size(); ++i) {
    const char want = kTail[i], got = tail[i];
    if (want == '0') {
      if (got < '0' || got > '9') return std::nullopt;
      unsigned& n = i < 7 ? part : count;
      n = n * 10 + static_cast<unsigned>(got - '0');
    } else if (got != want) {
      return std::nullopt;
    }
  }
  if (part == 0 || count < 2 || part > count) return std::nullopt;
  return SplitName{path.substr(0, path.size() - kTail.size()), part, count};
}

std::string part_path(const SplitName& s, unsigned part) {
  char tail[32];
  std::snprintf(tail, sizeof tail, "-%05u-of-%05u.gguf", part, s.count);
  return s.prefix + tail;
}

/// The value of an unsigned integer metadata key, if present.
std::optional<std::uint64_t> meta_uint(const LoadedFile& f, std::string_view key) {
  for (const MetaEntry& m : f.metadata)
    if (m.key == key && m.value.is_number_integer() && m.value.get<std::int64_t>() >= 0)
      return m.value.get<std::uint64_t>();  // llama.cpp writes split.no as uint16, split.tensors.count as int32
  return std::nullopt;
}

}  // namespace

bool sniff_gguf(std::span<const std::byte> head) {
  return head.size() >= 4 && std::memcmp(head.data(), "GGUF", 4) == 0;
}

LoadedFile open_gguf(std::shared_ptr<const MappedFile> file) {
  LoadedFile out = read_gguf(file);
  // The first part of a split model opens the others and lists all tensors as one file;
  // a later part opened on its own lists only itself.
  const std::optional<SplitName> split = split_name(file->name());
  if (!split || split->part != 1) return out;
  const std::string& name = file->name();
  if (auto n = meta_uint(out, "split.count"); n && *n != split->count)
    throw Error(ErrorCode::BadFile, name + ": split.count " + std::to_string(*n) + " does not match the file name's " +
                                        std::to_string(split->count) + " parts");
  std::set<std::string> names;
  for (TensorEntry& e : out.tensors) {
    names.insert(e.name);
    e.note += std::string(e.note.empty() ? "" : "; ") + "in part 1 of " + std::to_string(split->count);
  }
  for (unsigned part = 2; part <= split->count; ++part) {
    const std::string path = part_path(*split, part);
    LoadedFile more = read_gguf(MappedFile::open(path));
    if (auto no = meta_uint(more, "split.no"); no && *no != part - 1)
      throw Error(ErrorCode::BadFile, path + ": split.no " + std::to_string(*no) + " should be " + std::to_string(part - 1));
    for (TensorEntry& e : more.tensors) {
      if (!names.insert(e.name).second)
        throw Error(ErrorCode::BadFile, path + ": tensor '" + e.name + "' is also in an earlier part");
      e.note += std::string(e.note.empty() ? "" : "; ") + "in part " + std::to_string(part) + " of " +
                std::to_string(split->count);
      out.tensors.push_back(std::move(e));
    }
  }
  if (auto total = meta_uint(out, "split.tensors.count"); total && *total != out.tensors.size())
    throw Error(ErrorCode::BadFile, name + ": split.tensors.count is " + std::to_string(*total) + ", but the " +
                                        std::to_string(split->count) + " parts hold " +
                                        std::to_string(out.tensors.size()) + " tensors");
  return out;
}

}  // namespace tensor_inspect
