// loaders/dcp_metadata.hpp — the `.metadata` file of a torch.distributed.checkpoint (DCP)
// folder, decoded by the non-executing pickle reader (pickle.hpp) against an allow-list of
// the classes DCP writes; any other global is refused, naming the file and the class.
//
// PyTorch 2.x (torch/distributed/checkpoint/filesystem.py, _FileSystemWriter.finish) writes
// `pickle.dump(metadata)` of (torch/distributed/checkpoint/metadata.py):
//   Metadata(state_dict_metadata: {fqn: TensorStorageMetadata | BytesStorageMetadata},
//            planner_data, storage_data: {MetadataIndex: _StorageInfo}, storage_meta, version)
//   TensorStorageMetadata(properties: TensorProperties, size: torch.Size,
//                         chunks: [ChunkStorageMetadata(offsets: torch.Size, sizes: torch.Size)])
//   TensorProperties: __getstate__ is the tuple (dtype, layout, requires_grad,
//                     _MEM_FORMAT_ENCODING(n), pin_memory); the enum member pickles as
//                     REDUCE of the class over (n,), or on Python 3.11+ getattr(class, name)
//   MetadataIndex(fqn, offset: torch.Size of the chunk's offsets, index: hint)
//   _StorageInfo(relative_path: "__<rank>_<n>.distcp", offset, length[, transform_descriptors])
// Dataclasses pickle as NEWOBJ of the class and BUILD of their __dict__ (none when empty:
// BytesStorageMetadata); torch.Size as REDUCE of torch.Size over a tuple; dtypes as the
// globals torch.float32, .... TensorProperties lived in
// torch/distributed/_shard/sharded_tensor/metadata.py (with MEM_FORMAT_ENCODING) before 2.4.
//
//   DcpMetadata m = parse_dcp_metadata(bytes, "ckpt/.metadata");   // throws at the first fault
//   for (const DcpTensor& t : m.tensors) ... t.fqn, t.size, t.chunks[i].storage->relative_path
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

/// Where a chunk's bytes lie (filesystem.py's _StorageInfo): a torch.save archive of the
/// chunk at bytes [offset, offset + length) of `relative_path` in the checkpoint's folder.
struct DcpStorage {
  std::string relative_path;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool transformed = false;  ///< transform_descriptors set (an extension, e.g. compression): not read
  std::uint64_t at = 0;      ///< byte of the .metadata pickle that made it
};

/// One chunk of a global tensor: its place (offsets) and extent (sizes) per axis, in elements.
struct DcpChunk {
  Shape offsets;
  Shape sizes;
  std::optional<DcpStorage> storage;  ///< nullopt when storage_data has no entry for it
  std::uint64_t at = 0;
};

/// One global tensor of the state dict.
struct DcpTensor {
  std::string fqn;                  ///< the state_dict key ("model.layers.0.weight")
  std::string torch_dtype;          ///< "float32", as torch names it
  std::optional<DType> dtype;       ///< nullopt for a torch dtype with no dtype here (complex64)
  std::uint64_t itemsize = 0;       ///< bytes per element of torch_dtype; 0 when unknown
  Shape size;
  std::vector<DcpChunk> chunks;
  std::uint64_t at = 0;
};

/// A non-tensor item (BytesStorageMetadata): the torch.save bytes of a Python object.
struct DcpBytes {
  std::string fqn;
  std::optional<DcpStorage> storage;  ///< nullopt when storage_data has no entry for it
};

/// What the .metadata file says.
struct DcpMetadata {
  std::vector<DcpTensor> tensors;      ///< in state_dict_metadata's order
  std::vector<DcpBytes> bytes_entries; ///< BytesStorageMetadata items (pickled objects, not tensors)
  std::string version;                      ///< Metadata.version ("1.0.0"), "" before PyTorch 2.4
};

/// One fault of the .metadata file, in validate's terms: rule "class", "structure",
/// "dtype", "shape", "chunk_bounds", "chunk_overlap", "coverage", "storage_missing",
/// "storage_path", "limit", "transform" (a note: unsupported).
struct DcpFault {
  std::string rule;
  std::string place;  ///< "tensor 'w'", "tensor 'w' chunk 1", "" for the file
  std::uint64_t at = 0;
  std::string message;
  bool unsupported = false;
};
/// Receives every fault (validate); when empty, the first fault throws.
using DcpFaultSink = std::function<void(const DcpFault&)>;

/// True for a global the .metadata pickle of DCP may name (the classes above, torch.Size,
/// torch's dtypes and torch.strided, pathlib's paths of StorageMeta.checkpoint_id).
bool dcp_allows_global(const std::string& name);

/// Decodes a .metadata pickle. `name` names it in messages. Without `sink`, throws
/// Error(BadFile) "<name>: <place>: <message> at byte N" at the first fault (a class outside
/// the allow-list, a field of the wrong type, chunks out of bounds, overlapping or not
/// covering their tensor, a chunk without storage, a path leaving the folder, a cap of
/// limits.hpp: dcp_metadata_bytes, dcp_chunks, dcp_grid_cells), Error(Unsupported) for
/// transformed storage; and what read_pickle throws. With `sink`, reports each fault and
/// returns what could be read (a fault that leaves nothing to read still throws).
DcpMetadata parse_dcp_metadata(std::span<const std::byte> bytes, const std::string& name,
                               const DcpFaultSink& sink = {});

/// Why chunks (offsets, sizes) do not tile `size` exactly once, or "" when they do: a chunk
/// past the tensor ("chunk_bounds"), two chunks sharing elements ("chunk_overlap"),
/// elements no chunk holds ("coverage"). `rule` receives the rule. Checked on the grid the
/// chunk boundaries cut the tensor into, at most Limits::dcp_grid_cells cells.
std::string dcp_tiling_fault(const Shape& size, const std::vector<DcpChunk>& chunks, std::string& rule);

}  // namespace tensor_inspect
