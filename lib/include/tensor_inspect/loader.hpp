// tensor_inspect/loader.hpp — tensor files: detect the format, read the header into a
// listing of named tensors, and hand each tensor to the engine lazily over a DISK buffer.
//
// Opening a file reads its header only; the data stays in the memory map until a tensor
// is realized, and then only its bytes are touched. Offsets, lengths, counts and names in
// headers are untrusted: every loader reads through a bounded ByteReader and throws
// Error(BadFile) naming the file and the byte offset or field on any violation.
//
//   ti::LoadedFile f = ti::open_file("model.safetensors");       // header only
//   for (const auto& e : f.tensors) std::cout << e.name << ' ' << shape_repr(e.shape) << '\n';
//   ti::Tensor t = f.tensors[0].load();                           // lazy: nothing read yet
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/tensor.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

/// What only some entries carry, held out of line: a safetensors header of 20,000 tensors
/// sets none of it, and every byte of an entry costs its share of fresh pages (a page
/// fault each 4 KiB: 3 us on the CI machine). An entry without details reads these empty.
struct EntryDetails {
  /// The shape in the order the file stores it where that differs or the loader says so
  /// (Fortran-order .npy: reversed; PyTorch, raw); unset where it is `shape`, and where
  /// TensorEntry::stored_reversed says it (GGUF).
  std::optional<Shape> stored_shape;
  /// Builds the lazy tensor where a slice of `file` does not do (byte swaps, Fortran order,
  /// compressed members, dequantization, a missing shard); load() calls it when set.
  std::function<Tensor()> loader;
  /// GGUF block-quantized tensors the tool dequantizes: the ggml type id, so scans
  /// (statistics) dequantize block by block in place instead of realizing the float32
  /// tensor. Unset for every other tensor.
  std::optional<std::uint32_t> ggml_type;
  /// The file holding the tensor's stored bytes as they are at [offset, offset + nbytes)
  /// where `file` does not say it: GGUF block-quantized tensors (dequantized here or not)
  /// and tensors whose values cannot be shown but whose bytes lie there (a safetensors
  /// tag tinygrad lacks), so diff can compare their bytes. Unset for every other tensor
  /// (a missing shard, a PyTorch storage type tinygrad lacks).
  std::shared_ptr<const MappedFile> blocks_file;
  /// What reading every stored byte can check, for a caller that reads them all anyway
  /// (prints every element, scans statistics, compares): a STORED .npz member's CRC-32,
  /// which a read in place never meets. Throws Error(BadFile) naming the member and both
  /// CRCs. Unset where there is nothing to check (a deflated member's CRC is checked as it
  /// inflates, whole).
  std::function<void()> check_whole;
  /// The entry's shape, stored shape, byte size and offset are not known (a tensor of a
  /// shard that cannot be read): `shape` is empty and the sizes 0 as placeholders only,
  /// which a listing shows as unknown ('-', JSON null), never as a 0-d tensor.
  bool layout_unknown = false;
  /// A quantization scheme's logical tensor: the dtype its producer's dequantization hands
  /// back (bfloat16, float16 or float32; the values here stay float32), as the scheme's row
  /// says where it comes from (the scales' dtype, config.json's torch_dtype, the producer's
  /// default). Unset where not known, and for every other entry. (A byte beside
  /// layout_unknown: the details of 2,000 GGUF tensors grow by nothing.)
  std::optional<DType> producer_dtype;
  /// A quantization scheme's logical tensor (schemes.hpp): the names of the stored parts
  /// its values are decoded from, the first one where `offset` points; `nbytes` is their
  /// sum. Empty for every other entry.
  std::vector<std::string> scheme_parts;
};

/// One named tensor of a file, as its header describes it. Copies are deep (details too).
struct TensorEntry {
  std::string name;           ///< the format's name ("model.norm.weight"); "" for a lone .npy
  std::string stored_type;    ///< the format's own type name: "<f4", "F16", "Q4_0", "LongStorage"
  std::optional<DType> dtype; ///< the dtype values come out as; nullopt if they cannot be shown
  /// The file stores the dims innermost first (GGUF): the stored order is `shape` reversed,
  /// kept as this flag (in the padding after `dtype`), so a GGUF tensor of a plain type
  /// needs no EntryDetails.
  bool stored_reversed = false;
  Shape shape;                ///< row-major (outermost first), as NumPy and tinygrad show it
  std::uint64_t offset = 0;   ///< byte offset of the data in the file
  std::uint64_t nbytes = 0;   ///< bytes of stored data
  std::string note;           ///< e.g. "big-endian, converted to native order"; may be empty
  /// Where the values are the bytes [offset, offset + nbytes) of this file as they are,
  /// little-endian and C-contiguous, of `dtype` and `shape` (safetensors): load() slices
  /// it, and no loader is kept per entry. Null for every other entry.
  std::shared_ptr<const MappedFile> file;

  TensorEntry() = default;
  TensorEntry(const TensorEntry& other);
  TensorEntry& operator=(const TensorEntry& other);
  TensorEntry(TensorEntry&&) noexcept = default;
  TensorEntry& operator=(TensorEntry&&) noexcept = default;
  ~TensorEntry() = default;

  /// The entry's details; all empty for an entry that has none (allocates nothing).
  const EntryDetails& details() const;
  /// The details to set, made on first use.
  EntryDetails& details_for_write();
  /// The bytes [offset, offset + nbytes) of `details().blocks_file` as it stores them (a
  /// GGUF tensor's blocks, a tensor whose values are not decoded), not fetched. Throws
  /// Error(BadFile) naming the file and the tensor when they lie past the file's end, and
  /// Error(Internal) for an entry without blocks_file.
  std::span<const std::byte> stored_blocks() const;
  /// The dims in the order the file stores them: `shape` reversed where `stored_reversed`,
  /// else `details().stored_shape` when set, else `shape`. A copy; stored_dims() does not copy.
  Shape stored_order() const {
    return stored_reversed ? Shape(shape.rbegin(), shape.rend()) : stored_dims();
  }
  /// stored_order() without a copy: the dims to read backwards where `stored_reversed`.
  const Shape& stored_dims() const {
    return !stored_reversed && details_ && details_->stored_shape ? *details_->stored_shape : shape;
  }
  /// The lazy tensor (reads nothing): `details().loader()` when set, else
  /// Tensor::from_buffer over Buffer::disk(file, offset, nbytes). Throws what the loader
  /// throws (Error(Unsupported) naming the stored type when the values cannot be shown;
  /// Error(BadFile) for a bad entry), or Error(Internal) for an entry that has neither.
  Tensor load() const;

 private:
  std::unique_ptr<EntryDetails> details_;
};

/// A metadata array left in the file's bytes (GGUF) and decoded only when asked: a
/// listing that prints how many entries a file has reads its header without building one
/// JSON value per vocabulary token.
class MetaArray {
 public:
  virtual ~MetaArray() = default;
  /// Number of items.
  virtual std::uint64_t size() const = 0;
  /// Items [first, first + count), clamped to size(), decoded as a JSON array in file
  /// order. Throws Error(Io) when a remote file's bytes cannot be fetched.
  virtual nlohmann::ordered_json items(std::uint64_t first, std::uint64_t count) const = 0;
};

/// One metadata key of a file (safetensors __metadata__, GGUF key/values, npy header).
struct MetaEntry {
  std::string key;
  std::string type;           ///< the format's own type name ("string", "uint32", "array[string]")
  nlohmann::ordered_json value;  ///< null when `array` is set
  std::shared_ptr<const MetaArray> array = {};  ///< a GGUF array, decoded when asked
  /// The whole value: `value`, or every item of `array` decoded.
  nlohmann::ordered_json decoded() const {
    return array ? array->items(0, array->size()) : value;
  }
};

/// A file's tensors as its header lists them, each made into an entry only when asked, in
/// an entry the caller reuses: a listing of 2,000 GGUF tensors keeps no TensorEntry, and no
/// heap block, per tensor (each fresh 4 KiB page costs a page fault).
class TensorRows {
 public:
  virtual ~TensorRows() = default;
  /// Number of tensors.
  virtual std::size_t size() const = 0;
  /// Sets `e` to tensor `i` (< size()) as open_file lists it: every field a listing or its
  /// totals read, in the same words, reusing e's storage. What only loading needs is left
  /// out: load() of such an entry throws Error(Internal).
  virtual void fill(std::size_t i, TensorEntry& e) const = 0;
};

/// What opening a file found: its format, tensors in file order, and metadata.
struct LoadedFile {
  std::string path;
  std::string format;          ///< registry name: "npy", "safetensors", "npz", "gguf", "pytorch", "raw"
  std::vector<TensorEntry> tensors;
  /// Set by open_listing instead of `tensors` (then empty) where the format lists its
  /// tensors from the header in place (GGUF); ListedTensors reads either.
  std::shared_ptr<const TensorRows> rows;
  std::vector<MetaEntry> metadata;
  /// What a reader should know before trusting the file, one line each, naming the file
  /// and the place: pickle globals outside torch's weights_only allow-list, missing shards.
  std::vector<std::string> warnings;
  std::shared_ptr<const MappedFile> file;  ///< keeps the mapping alive for lazy tensors
};

/// The tensors of a LoadedFile one at a time, whether it holds entries or header rows (a
/// listing opened with open_listing). The entry at() returns stays valid until its next call.
///
///   ListedTensors all(file);
///   for (std::size_t i = 0; i < all.size(); ++i) std::cout << all.at(i).name << '\n';
class ListedTensors {
 public:
  explicit ListedTensors(const LoadedFile& file) : file_(file) {}
  /// Number of tensors.
  std::size_t size() const { return file_.rows ? file_.rows->size() : file_.tensors.size(); }
  /// Tensor `i` (< size()): the file's own entry, or one filled from its rows.
  const TensorEntry& at(std::size_t i) {
    if (!file_.rows) return file_.tensors[i];
    file_.rows->fill(i, scratch_);
    return scratch_;
  }

 private:
  const LoadedFile& file_;
  TensorEntry scratch_;
};

/// One supported format, registered in one table (loaders/registry.cpp).
struct FormatInfo {
  std::string_view name;
  std::vector<std::string_view> extensions;                 ///< ".npy", ".safetensors"
  bool (*sniff)(std::span<const std::byte> head);           ///< magic-byte test of the first bytes
  LoadedFile (*open)(std::shared_ptr<const MappedFile> file);
  /// Opens for a listing only (LoadedFile::rows instead of tensors); null where the
  /// format has no such reading, and open_listing calls `open`.
  LoadedFile (*list)(std::shared_ptr<const MappedFile> file);
};

/// The registered formats, in detection order.
const std::vector<FormatInfo>& formats();

/// Maps `path` ("-" is standard input) and opens it with `format` if given, else with the
/// first format whose magic bytes match, else by extension. Throws Error(Io) when the file
/// cannot be read, Error(BadFile) when no format matches, when `format` is forced but the
/// magic bytes are another format's (the message names it), or the header is malformed.
LoadedFile open_file(const std::string& path, const std::optional<std::string>& format = std::nullopt);

/// open_file for a listing only: where the format reads its listing in place (a GGUF file
/// that is not the first part of a split model), the tensors come as LoadedFile::rows and
/// `tensors` is empty; otherwise what open_file returns. Throws what open_file throws.
LoadedFile open_listing(const std::string& path, const std::optional<std::string>& format = std::nullopt);

/// Opens bytes already mapped (e.g. standard input) with `format` if given, else with the
/// first format whose magic bytes match; nullopt when none does. Throws Error(Usage) for
/// an unknown format name, and what that format's loader throws.
std::optional<LoadedFile> open_detected(const std::shared_ptr<const MappedFile>& file,
                                        const std::optional<std::string>& format = std::nullopt);

/// Options of numpy.frombuffer for raw bytes.
struct RawOptions {
  DType dtype = DType::UInt8;
  std::optional<Shape> shape;  ///< default: one axis from the length
  std::uint64_t offset = 0;    ///< bytes skipped at the start
  bool big_endian = false;
};
/// Reads `file` as numpy.frombuffer would. Throws Error(BadFile) when the length after
/// the offset is not a multiple of the itemsize or does not match the shape.
LoadedFile open_raw(std::shared_ptr<const MappedFile> file, const RawOptions& options);

/// What a tensor input read from a stream (standard input, a pipe, /dev/zero) may be.
struct StreamInput {
  std::string name;                   ///< "<stdin>" or the path, for messages and its extension
  std::optional<std::string> format;  ///< --format, when forced
  bool literal = false;               ///< text may be a tensor literal (standard input of the plain mode)
  std::optional<RawOptions> raw;      ///< --raw: read as numpy.frombuffer
  bool whole = false;                 ///< read to the end whatever the header says (validate)
  /// A character device (/dev/zero, /dev/urandom): it may never end, so raw bytes without
  /// a shape are refused at its first bytes rather than at Limits::stream_bytes.
  bool device = false;
};
/// The StreamCheck (buffer.hpp) of a stream read as `in` says: Error(BadFile) "NAME: not a
/// recognised tensor file (first bytes: ...)" once its first 64 bytes match no format's
/// magic, nor the name's extension, nor (with `literal`) text that may begin a literal
/// (may_begin_literal); such text stops at Limits::literal_bytes, a byte more being
/// Error(BadFile) naming the cap; a .npy stops where its
/// header says the data ends (np.load reads no more of a stream); raw bytes with a shape
/// stop at offset + nbytes, and a byte more is Error(BadFile), as a file of the wrong size;
/// raw bytes without a shape from a `device` that gives any are Error(Usage) at once.
StreamCheck tensor_stream_check(StreamInput in);

}  // namespace tensor_inspect
