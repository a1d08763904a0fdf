// tensor_inspect/limits.hpp — every resource cap of the library, in one place.
//
// Inputs are untrusted, so each parser bounds what an input can make it read, allocate or
// compute: header sizes, nesting depths, pickle memo, stack and container sizes, zip
// member counts and compression ratios, GGUF array elements, bytes read from pipes and
// special files, the text of a literal, buffer sizes and the elements a kernel computes. Each cap is one field of
// `Limits`, with its default here; parsers read `limits()` and name the field in their
// error, with how to raise it:
//
//   ti::Limits l = ti::limits();
//   l.stream_bytes = std::uint64_t{8} << 30;     // read up to 8 GiB from a pipe
//   ti::set_limits(l);                           // before opening files
//   ti::set_limit("stream_bytes=8589934592");    // the same, as the CLI's --limit says it
//
// A cap is not a format rule: rules of the formats themselves (GGML_MAX_DIMS, a .npy
// shape of non-negative ints) stay in the loaders and cannot be raised.
//
// A few caps bound the recursion of our own parsers over text the user types (a literal, an
// expression): they keep the stack safe rather than bound a file, so they are fixed
// (constexpr, after Limits) and their errors name no --limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

/// The caps. Units are bytes unless the name says otherwise (depth in levels, counts in
/// items); every default is large enough for any real file seen so far.
struct Limits {
  /// Bytes read from standard input, a pipe or a special file (/dev/zero) that cannot be
  /// memory-mapped: such input is read whole into memory, and may never end.
  std::uint64_t stream_bytes = std::uint64_t{1} << 30;
  /// Bytes of one CPU buffer (a realized tensor) or sparse stand-in of a compressed member.
  std::uint64_t buffer_bytes = std::uint64_t{1} << 40;
  /// Bytes of a .npy header dict (numpy's own reader refuses over 10,000 unless told not to).
  std::uint64_t npy_header_bytes = std::uint64_t{1} << 20;
  /// Nesting levels of a .npy header literal (a dict holding tuples is 2).
  std::uint64_t npy_header_depth = 32;
  /// Bytes of a safetensors JSON header (the reference implementation's MAX_HEADER_SIZE).
  std::uint64_t safetensors_header_bytes = 100'000'000;
  /// Bytes of a sharded checkpoint's *.safetensors.index.json.
  std::uint64_t index_bytes = 100'000'000;
  /// Nesting levels of JSON (safetensors headers are 3 deep; index metadata a few more).
  std::uint64_t json_depth = 64;
  /// Bytes of a GGUF metadata key or tensor name.
  std::uint64_t gguf_key_bytes = 65536;
  /// GGUF metadata array elements in all arrays of a file together (a vocabulary holds ~1e6).
  std::uint64_t gguf_array_elements = std::uint64_t{1} << 24;
  /// Members of a zip archive (.npz, PyTorch).
  std::uint64_t zip_members = std::uint64_t{1} << 20;
  /// Declared uncompressed size of a DEFLATED member over its compressed size. Deflate
  /// cannot exceed 1032:1 (a 258-byte match in under 2 bits), so a member declaring more
  /// cannot hold what it declares.
  std::uint64_t zip_ratio = 1032;
  /// Bytes of a PyTorch data.pkl that is compressed and must be inflated to be read.
  std::uint64_t pickle_bytes = std::uint64_t{1} << 30;
  /// Values a pickle makes, all kinds together.
  std::uint64_t pickle_values = std::uint64_t{1} << 22;
  /// Pickle memo entries.
  std::uint64_t pickle_memo = std::uint64_t{1} << 22;
  /// References a pickle holds: stack pushes, MARKs and container items.
  std::uint64_t pickle_refs = std::uint64_t{1} << 26;
  /// Nesting levels of the containers a PyTorch checkpoint's tensors are found in, and of
  /// a pickled dict key (a tuple in a tuple is 2).
  std::uint64_t pickle_depth = 64;
  /// Tensors and metadata entries a PyTorch checkpoint lists.
  std::uint64_t pickle_entries = std::uint64_t{1} << 20;
  /// Bytes of a remote file read whole when its server ignores Range requests (answers
  /// 200): a larger file is refused rather than downloaded whole.
  std::uint64_t remote_whole_bytes = std::uint64_t{1} << 20;
  /// Bytes of a remote file a whole-tensor scan (--stats, diff, hashing) holds in memory at
  /// once: the window it reads plus the windows fetched ahead of it; the blocks behind it
  /// are given back. Windows are min(32 MiB, this / 8), fetched up to this / 2 ahead.
  std::uint64_t remote_memory_bytes = std::uint64_t{256} << 20;
  /// Bytes of private memory a kernel holds for each Load of a larger tensor in a local file
  /// that it reads out of order (`x.T.sum()`, a broadcast of rows), split among its threads:
  /// the bytes are read in blocks (pread) into a cache of this size, not mapped, so the process
  /// holds the cache rather than every page it touched. A tensor of at most this many bytes is
  /// read through the file map. (A remote tensor of more than remote_memory_bytes / 2 read out
  /// of order takes a cache of remote_memory_bytes / 4; a smaller one is fetched whole.)
  std::uint64_t out_of_order_bytes = std::uint64_t{32} << 20;
  /// Element pairs a comparison (diff) visits when both tensors broadcast their stored
  /// values (torch's expand saved with a 0 stride) along different axes, so the repetition
  /// cannot be counted instead of visited: a few stored bytes could ask for 10**12 pairs.
  /// Broadcasts along the same axes compare their stored values once, whatever the shape.
  std::uint64_t broadcast_pairs = std::uint64_t{1} << 32;
  /// Elements of a tensor an expression builds (its shape's product, lazy or not): a
  /// product's (M, N, K) intermediate of 1300 x 1300 x 1300 is 2.2e9, never stored. What
  /// is realized is also held to buffer_bytes.
  std::uint64_t expression_elements = std::uint64_t{1} << 40;
  /// Elements one kernel computes one by one: a loop's or scan's output, a reduction's
  /// whole input (a product's M x N x K), a streamed tensor's. A lazy shape costs nothing
  /// until a kernel loops over it, and 2**40 elements then take hours; at the executor's
  /// 10**8 to 10**9 elements a second this cap is seconds to minutes. Products BLAS runs
  /// (float32/float64 matmul) and decompression are not counted.
  std::uint64_t compute_elements = std::uint64_t{1} << 34;
  /// Bytes of a tensor literal's text: three million floats as Python prints them (145 MB
  /// of memory to parse; 64 MiB of `1,1,...` is the worst case, 1.0 GB: 24 bytes a value
  /// while parsing, then the tensor). Above 4 GiB a literal is refused whatever this says. On standard input,
  /// text longer than this is refused as soon as it passes it, not read to its end.
  std::uint64_t literal_bytes = std::uint64_t{64} << 20;
  /// Bytes of a hash manifest (`hash --check`): one tensor takes 150 to 250 bytes with a
  /// SHA-256 hash, so this holds some 300,000 tensors (a 3,000-tensor checkpoint's is 600 KB).
  std::uint64_t manifest_bytes = std::uint64_t{64} << 20;
  /// Initializers an ONNX model lists, its subgraphs' included (a large language model has
  /// a few thousand).
  std::uint64_t onnx_initializers = std::uint64_t{1} << 20;
  /// Dims of one ONNX tensor (each costs 8 bytes of memory for 1 byte of file).
  std::uint64_t onnx_dims = 1024;
  /// Bytes of one ONNX string read: an initializer's name, an external_data key or value,
  /// a header field (producer_name, metadata_props).
  std::uint64_t onnx_string_bytes = 65536;
  /// Nesting levels of ONNX subgraphs (an If's branch inside a Loop's body is 2) walked for
  /// their initializers.
  std::uint64_t onnx_graph_depth = 64;
  /// Groups and datasets of an HDF5 file (.h5, a .keras archive's weights) visited when it
  /// is opened: a Keras model holds a few per layer.
  std::uint64_t hdf5_objects = std::uint64_t{1} << 20;
  /// Bytes of an HDF5 dataset's path ("layers/dense/vars/0").
  std::uint64_t hdf5_name_bytes = 65536;
  /// Chunks an HDF5 dataset's shape spans (h5py's automatic chunks are 16 KiB to 1 MiB, so
  /// a 1 TiB dataset spans a few million).
  std::uint64_t hdf5_chunks = std::uint64_t{1} << 24;
  /// Bytes of one HDF5 chunk once decompressed: libhdf5 allocates a chunk whole to read
  /// any of it (HDF5 itself allows up to 4 GiB).
  std::uint64_t hdf5_chunk_bytes = std::uint64_t{1} << 30;
  /// Bytes of a torch.distributed.checkpoint `.metadata` pickle, read whole before it is
  /// run (a model's of a few thousand tensors on a thousand ranks takes tens of MB).
  std::uint64_t dcp_metadata_bytes = std::uint64_t{1} << 30;
  /// Chunks a torch.distributed.checkpoint lists, all tensors together (one per tensor and
  /// rank holding a shard of it).
  std::uint64_t dcp_chunks = std::uint64_t{1} << 22;
  /// Cells of the grid a DCP tensor's chunk boundaries cut it into, one byte each, for the
  /// check that its chunks cover it once (a tensor cut 64 ways along two axes has 4,096).
  std::uint64_t dcp_grid_cells = std::uint64_t{1} << 26;
  /// Bytes of an AWS shared credentials or config file (~/.aws/credentials, ~/.aws/config)
  /// read for an s3:// input: such files hold a few profiles of a few hundred bytes each.
  std::uint64_t aws_config_bytes = std::uint64_t{1} << 20;
};

/// Most bytes of a bitsandbytes quant state (the `weight.quant_state.bitsandbytes__nf4` U8
/// tensor holding a JSON object of a few keys, about 200 bytes): a larger one is refused,
/// naming the part, before it is parsed. Fixed.
inline constexpr std::uint64_t kMaxQuantStateBytes = std::uint64_t{1} << 16;
/// Most bytes of a model folder's config.json read for its quantization config (that of the
/// largest models is a few KB): a larger one is Error(BadFile) naming it, before it is read. Fixed.
inline constexpr std::uint64_t kMaxConfigJsonBytes = std::uint64_t{16} << 20;
/// Most nesting levels of a tensor literal (`[[1, 2], [3, 4]]` is 2; a tuple counts as a
/// list): deeper literals are refused with Error(BadLiteral) "nesting deeper than 64 levels"
/// instead of exhausting the stack of the recursive-descent parser. Fixed: as many levels
/// as NumPy allows dimensions (NPY_MAXDIMS).
inline constexpr std::size_t kMaxLiteralDepth = 64;
/// Most nesting an expression may have (parentheses, calls, indexing, unary operators and
/// `**` chains); deeper expressions are refused with Error(BadExpression) "expression is
/// nested too deeply" instead of exhausting the stack. A flat chain (`1+1+...+1`,
/// `x.T.T.T`) is not nesting: it counts against kMaxExpressionNodes only. Fixed.
inline constexpr int kMaxExpressionDepth = 200;
/// Most parts (numbers, names, operators, attributes, calls, ...) an expression may have;
/// beyond it Error(BadExpression) "expression has more than 1024 parts". It bounds the
/// parse tree and the lazy graph the expression builds, and so every walk over them. Fixed.
inline constexpr int kMaxExpressionNodes = 1024;

/// The caps in force on this thread: those of the Context a ContextScope installed
/// (context.hpp), else the process default (the defaults above until set_limits is called).
const Limits& limits();
/// Replaces the caps of the process default. Not thread-safe: call it before opening files;
/// a thread that needs caps of its own installs a Context (context.hpp) instead.
void set_limits(const Limits& l);

/// One cap by name, for the command line and messages.
struct LimitInfo {
  std::string_view name;         ///< the field's name: "stream_bytes"
  std::uint64_t Limits::*field;  ///< the field
  std::string_view unit;         ///< "bytes", "levels", "items" or "ratio"
};
/// Every cap, in the order of the struct.
std::span<const LimitInfo> limit_table();
/// A byte count as people write it: decimal digits, optionally followed by K, M or G (either
/// case; 2**10, 2**20, 2**30) or by KiB, MiB, GiB ("64M" and "64MiB" alike). nullopt for
/// anything else or a count past 2**64 - 1. Zero is a count (the caller says what it allows).
std::optional<std::uint64_t> parse_byte_count(std::string_view text);
/// Sets one cap from "NAME=VALUE" (VALUE a parse_byte_count count). Throws Error(Usage)
/// naming the spec for an unknown name, a malformed or zero value.
void set_limit(std::string_view spec);
/// Sets the caps of every spec (the CLI's --limit, in order) as set_limit does, or none of
/// them: throws Error(Usage) for the first spec set_limit would refuse, and for a cap named
/// twice (`--limit stream_bytes given twice ('stream_bytes=1G' and 'stream_bytes=2G')`),
/// rather than letting the last one silently win.
void set_limits_from(std::span<const std::string> specs);
/// The suffix errors use to name a cap: " (limit NAME; raise it with --limit NAME=N)".
std::string limit_hint(std::string_view name);
/// The Error every hit cap throws: ErrorCode::LimitExceeded with `message` as given (it names
/// the input, the values and, through limit_hint(name), the cap), Error::limit() = `name`, and
/// `file` (the input `message` starts with) and `offset` as its place when known.
Error limit_error(std::string_view name, const std::string& message, std::string file = {},
                  std::optional<std::uint64_t> offset = std::nullopt);

}  // namespace tensor_inspect
