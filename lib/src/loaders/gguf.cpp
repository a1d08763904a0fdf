// loaders/gguf.cpp — GGUF files (ggml docs/gguf.md), versions 2 and 3, little-endian:
// the header as gguf_header.cpp parses it (layout there), turned into a LoadedFile.
// A vocabulary-only file (no tensors) may end before the aligned data section. A split
// model (llama.cpp gguf-split: "<name>-00001-of-00003.gguf", keys split.no, split.count,
// split.tensors.count) opened at its first part lists the tensors of every part.
// Metadata arrays stay in the file and are decoded when asked (MetaArray), so a listing
// of a 128k-token vocabulary builds no JSON per token.
// Plain types (F32, F16, BF16, F64, I8..I64) are lazy DISK slices; quantized blocks are
// dequantized to float32 when realized (decode/ggml_types.cpp).
#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "decode/ggml_types.hpp"
#include "loaders/byte_reader.hpp"
#include "loaders/formats.hpp"
#include "loaders/gguf_header.hpp"
#include "loaders/gguf_metadata.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

namespace {

/// One tensor info as the header parser read it.
using GgufTensor = GgufTensorInfo;

// Each block decodes into a stack buffer of kGgmlMaxBlockElems floats, the largest block of
// any type (decode/ggml_types.cpp static_asserts every row against it).
std::function<Tensor()> make_loader(const std::shared_ptr<const MappedFile>& file, const GgufTensor& t,
                                    std::uint64_t abs_offset, const Shape& shape) {
  const GgmlType& type = *t.type();
  const std::string name(t.name());
  const std::uint64_t nbytes = t.nbytes();
  if (type.dtype) {
    const DType dtype = *type.dtype;
    return [file, abs_offset, nbytes, dtype, shape]() {
      return Tensor::from_buffer(Buffer::disk(file, abs_offset, nbytes), dtype, shape);
    };
  }
  if (!type.dequantizable) {
    return [file, name, &type]() -> Tensor {
      throw Error(ErrorCode::Unsupported,
                  file->name() + ": tensor '" + name + "' is " + std::string(type.name) +
                      ", which this tool cannot dequantize: " + std::string(ggml_refusal_reason(type)),
                  {file->name(), name, std::nullopt, ""});
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

/// The metadata key/values of a parsed header; arrays stay in the file (MetaArray).
std::vector<MetaEntry> gguf_meta_entries(GgufHeader& h, const std::shared_ptr<const MappedFile>& file) {
  std::vector<MetaEntry> out;
  out.reserve(h.kvs.size());
  for (GgufKeyValue& kv : h.kvs) {
    MetaEntry m{std::move(kv.key), std::move(kv.type_name), std::move(kv.value)};
    if (kv.type == kGgufArray) m.array = gguf_array(file, kv.value_at, kv.count, kv.element);
    out.push_back(std::move(m));
  }
  return out;
}

/// Sets `e` to what the listing shows of tensor info `t` (every field but the loader of a
/// quantized tensor), reusing e's storage: read_gguf fills fresh entries, GgufRows one
/// entry over and over.
void fill_gguf_entry(const GgufTensor& t, std::uint64_t data_start, const std::shared_ptr<const MappedFile>& file,
                     TensorEntry& e) {
  const GgmlType& type = *t.type();  // loading: an unknown id was a fault
  e.name.assign(t.name());
  if (e.stored_type != type.name) e.stored_type.assign(type.name);  // a reused entry: mostly the last row's
  const std::uint32_t n_dims = t.n_dims();
  e.shape.resize(n_dims);
  for (std::uint32_t k = 0; k < n_dims; ++k) e.shape[k] = t.dim(n_dims - 1 - k);  // row-major: outermost first
  e.stored_reversed = n_dims > 1;  // innermost first, as GGUF stores it
  e.offset = data_start + t.offset();
  e.nbytes = t.nbytes();
  if (type.dtype) {
    e.dtype = type.dtype;
    e.note.clear();
    if (e.file != file) e.file = file;  // the values are the bytes as they are: load() slices the file
    if (const EntryDetails& d = e.details(); d.ggml_type || d.blocks_file) {  // a reused entry's last row was quantized
      e.details_for_write().ggml_type.reset();
      e.details_for_write().blocks_file.reset();
    }
    return;
  }
  e.dtype = type.dequantizable ? std::optional<DType>(DType::Float32) : std::nullopt;
  e.note = "blocks of " + std::to_string(type.block_elems) + " elements in " + std::to_string(type.block_bytes) +
           " bytes" + (type.dequantizable ? ", dequantized to float32" : ", not dequantizable here");
  e.file.reset();
  EntryDetails& d = e.details_for_write();
  if (type.dequantizable) d.ggml_type = type.id;
  else d.ggml_type.reset();
  d.blocks_file = file;  // blocks, decoded here or not: diff compares their bytes
}

/// Reads one GGUF file (one part of a split model).
LoadedFile read_gguf(const std::shared_ptr<const MappedFile>& file) {
  GgufHeader h = parse_gguf_header(file->bytes(), GgufFaults(file->name()));
  LoadedFile out;
  out.path = file->name();
  out.format = "gguf";
  out.file = file;
  out.metadata = gguf_meta_entries(h, file);
  out.tensors.resize(h.tensors.size());
  for (std::size_t i = 0; i < h.tensors.size(); ++i) {
    const GgufTensor& t = h.tensors[i];
    TensorEntry& e = out.tensors[i];
    fill_gguf_entry(t, h.data_start, file, e);
    if (!t.type()->dtype) e.details_for_write().loader = make_loader(file, t, e.offset, e.shape);
  }
  return out;
}

/// A listing's rows over the header's tensor infos (16 bytes each, the rest left in the file).
class GgufRows final : public TensorRows {
 public:
  GgufRows(std::vector<GgufTensor> infos, std::uint64_t data_start, std::shared_ptr<const MappedFile> file)
      : infos_(std::move(infos)), data_start_(data_start), file_(std::move(file)) {}
  std::size_t size() const override { return infos_.size(); }
  void fill(std::size_t i, TensorEntry& e) const override { fill_gguf_entry(infos_.at(i), data_start_, file_, e); }

 private:
  std::vector<GgufTensor> infos_;
  std::uint64_t data_start_;
  std::shared_ptr<const MappedFile> file_;  // holds the bytes the infos' names view
};

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

LoadedFile list_gguf(std::shared_ptr<const MappedFile> file) {
  if (const std::optional<SplitName> split = split_name(file->name()); split && split->part == 1)
    return open_gguf(file);
  GgufHeader h = parse_gguf_header(file->bytes(), GgufFaults(file->name()));
  LoadedFile out;
  out.path = file->name();
  out.format = "gguf";
  out.file = file;
  out.metadata = gguf_meta_entries(h, file);
  out.rows = std::make_shared<GgufRows>(std::move(h.tensors), h.data_start, file);
  return out;
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
      throw Error(ErrorCode::BadFile,
                  path + ": split.no " + std::to_string(*no) + " should be " + std::to_string(part - 1));
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
