// loaders/formats.hpp — the per-format entry points the registry (registry.cpp) lists.
//
// Each format provides a magic-byte test of the first bytes and an open function that
// reads the header of a mapped file into a LoadedFile (lazy tensors over DISK buffers).
//
//   auto file = MappedFile::open("x.npy");
//   if (sniff_npy(file->bytes())) LoadedFile f = open_npy(file);
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// A lazy tensor over stored elements of `dtype` in C order (`buffer` holds
/// prod(shape) * itemsize bytes). Big-endian data is made native element by element
/// (a byte swap fused into whatever reads it), so slicing a big file touches only the
/// slice. Throws what Tensor::from_buffer throws.
Tensor tensor_from_stored(std::shared_ptr<Buffer> buffer, DType dtype, const Shape& shape, bool big_endian);

/// True when `head` starts with the .npy magic "\x93NUMPY" (NEP 1, numpy.lib.format).
bool sniff_npy(std::span<const std::byte> head);
/// Reads a .npy header (versions 1.0, 2.0, 3.0). Throws Error(BadFile) for a malformed
/// header or short data, Error(Unsupported) for dtypes that cannot be shown.
LoadedFile open_npy(std::shared_ptr<const MappedFile> file);
/// open_npy of an .npz member: a dtype open_npy refuses as Error(Unsupported) gives an
/// entry with no dtype (its descr as stored_type, the rest of the file as its bytes) whose
/// load() throws that error, so the archive's other members still open.
LoadedFile open_npy_member(std::shared_ptr<const MappedFile> file);
/// Where a .npy header ends, from the first 12 bytes of `head` (magic, version, then the
/// header length: u16 LE in 1.0, u32 LE in 2.0 and 3.0), or 0 for fewer than 12 bytes.
/// Nothing is checked but the length field: open_npy says what else is wrong.
std::uint64_t npy_header_end(std::span<const std::byte> head);
/// The length of a .npy stream whose first bytes are `so_far`: its header's end plus the
/// data's nbytes (np.load reads no more from a stream), once the header is all there;
/// nullopt before. A header open_npy refuses gives so_far.size(): read no more, and let
/// open_npy say why.
std::optional<std::uint64_t> npy_stream_length(std::span<const std::byte> so_far, const std::string& name);
/// Why open_npy refuses a str descr as Error(Unsupported), as the start of its message
/// ("datetime64 dtype", "long double dtype", "dtype": a valid numpy dtype with no
/// tinygrad dtype), or nullopt when it takes the descr or refuses it as no numpy dtype.
std::optional<std::string> npy_unsupported_descr(std::string_view descr);

/// True when `head` starts with a safetensors header length (u64 LE, 2 to
/// Limits::safetensors_header_bytes) and the header starts with '{' after JSON
/// whitespace (huggingface/safetensors, "Format").
bool sniff_safetensors(std::span<const std::byte> head);
/// Reads a safetensors header in one pass (safetensors_header.hpp). Throws Error(BadFile)
/// naming the file and the tensor for a malformed header (length past the end or over
/// Limits::safetensors_header_bytes, bad JSON, trailing bytes, duplicate names, unknown
/// dtype tag, offsets out of bounds, overlapping, or not tiling the data).
LoadedFile open_safetensors(std::shared_ptr<const MappedFile> file);
/// True when `head` is a JSON object that names "weight_map" (a sharded checkpoint's
/// model.safetensors.index.json, as transformers writes it).
bool sniff_safetensors_index(std::span<const std::byte> head);
/// Opens every shard a *.safetensors.index.json names (relative to its directory) and
/// lists their tensors as one file. Throws Error(BadFile) when a shard name escapes the
/// directory, or the index and a shard disagree on a tensor. A shard that cannot be read
/// is a warning of the file; its tensors are listed and throw Error(Io) naming the index,
/// the tensor and the shard when loaded. The same JSON over torch.save shards
/// (pytorch_model.bin.index.json) opens each shard with open_pytorch, and its LoadedFile's
/// format is "pytorch-index" (the registry keeps a format a loader set).
LoadedFile open_safetensors_index(std::shared_ptr<const MappedFile> file);
/// A Hugging Face model folder: its one *.safetensors.index.json, else all its
/// *.safetensors files, else its one *.bin.index.json, else its PyTorch *.bin files, as
/// one checkpoint (loaders/checkpoint_dir.cpp).
LoadedFile open_checkpoint_dir(const std::string& path);
/// True for a URL that names a folder: http(s) ending in '/' (before any query), or
/// hf://ORG/REPO[@REV] with no file (loaders/remote_folder.cpp).
bool is_remote_folder(std::string_view input);
/// Such a folder as one checkpoint: its model.safetensors.index.json, else
/// model.safetensors, else pytorch_model.bin.index.json, else pytorch_model.bin, the first
/// the server has (404: the next), opened as open_file (open_listing with `listing`) opens
/// it. Throws Error(Io) naming the URL and the names tried when none is there, else what
/// opening the first one there throws.
LoadedFile open_remote_folder(const std::string& input, bool listing);
/// True when a shard an index names (its path, its first bytes) is a torch.save file:
/// by its first bytes (sniff_pytorch, sniff_safetensors), else by its extension (.bin,
/// .pt, .pth, .ckpt); false for safetensors.
bool index_shard_is_pytorch(const std::string& name, std::span<const std::byte> head);
/// Why a shard name an index gives could reach outside the index's directory ("is empty",
/// "is an absolute path", "holds a NUL or backslash", "leaves the index's directory"), or
/// "" when it cannot: the one rule of loading and validate (loaders/index_shard.cpp).
std::string index_shard_name_fault(std::string_view shard);
/// Opens a shard an index names with open_pytorch or open_safetensors, as
/// index_shard_is_pytorch says (loaders/index_shard.cpp). Throws what they throw, and
/// Error(Io) when it cannot be read.
LoadedFile open_index_shard(const std::string& path);

/// True when `head` starts with the GGUF magic "GGUF" (ggml docs/gguf.md).
bool sniff_gguf(std::span<const std::byte> head);
/// Reads a GGUF v2/v3 header: metadata key/values and tensor infos. Throws Error(BadFile)
/// naming the file, the field and the byte for a malformed header, Error(Unsupported) for
/// GGUF v1 and big-endian files.
LoadedFile open_gguf(std::shared_ptr<const MappedFile> file);
/// open_gguf for a listing only: the tensors as LoadedFile::rows over the header's records
/// (no TensorEntry each), the metadata as open_gguf reads it. The first part of a split
/// model is opened by open_gguf (its listing spans the parts).
LoadedFile list_gguf(std::shared_ptr<const MappedFile> file);

/// True when `head` is a zip local header ("PK\x03\x04") whose first member's name lies
/// whole inside `head` and ends with ".npy", as np.savez writes them (numpy/lib/npyio.py).
bool sniff_npz(std::span<const std::byte> head);
/// Reads an .npz: one tensor per "<key>.npy" member, named <key>, in archive order; other
/// members are listed in metadata as skipped. STORED members are read in place, DEFLATED
/// ones inflated at realize (listing inflates only their .npy header). Throws
/// Error(BadFile) naming the file and member for a corrupt archive or member.
LoadedFile open_npz(std::shared_ptr<const MappedFile> file);

/// True when `head` is a zip whose first member is "<archive>/data.pkl" (torch.save since
/// PyTorch 1.6, torch/serialization.py), or whose first name is cut off and has a '/'.
bool sniff_pytorch(std::span<const std::byte> head);
/// Reads a torch.save zip archive with a restricted unpickler that imports and calls
/// nothing: tensors (dotted names for nested dicts and lists) over the storages'
/// data/<key> members, other values as metadata. Throws Error(BadFile) naming the file and
/// the pickle byte offset for a malformed pickle, Error(Unsupported) for the legacy
/// (pre-1.6) format.
LoadedFile open_pytorch(std::shared_ptr<const MappedFile> file);

/// True when `head` starts as ONNX writers start a ModelProto (onnx_model.hpp: ir_version
/// first, then another ModelProto field).
bool sniff_onnx(std::span<const std::byte> head);
/// Reads an ONNX model's initializers (loaders/onnx.cpp): names, data types and dims from
/// the protobuf structure, values in place or in external files when loaded. Throws
/// Error(BadFile) naming the file, the initializer and the byte for a malformed model.
LoadedFile open_onnx(std::shared_ptr<const MappedFile> file);
/// True when `head` starts with the HDF5 superblock signature "\x89HDF\r\n\x1a\n" at byte 0
/// (HDF5 File Format Specification, Level 0A; h5py writes no user block before it).
bool sniff_hdf5(std::span<const std::byte> head);
/// Reads an HDF5 file through libhdf5 (loaders/hdf5.cpp): one tensor per dataset, named by
/// its path without the leading '/'. Throws Error(BadFile) naming the file and dataset when
/// libhdf5 refuses the file or a dataset's metadata, or contiguous data lies past the end.
LoadedFile open_hdf5(std::shared_ptr<const MappedFile> file);
/// open_hdf5 of the HDF5 image at bytes [base, base + size) of `file`, named `name` in
/// messages (a .keras member); the LoadedFile's format is left to the caller.
LoadedFile open_hdf5_image(std::shared_ptr<const MappedFile> file, std::uint64_t base, std::uint64_t size,
                           const std::string& name);
/// True when `head` is a zip whose first member is "metadata.json" or "config.json", as
/// Keras 3 writes a .keras archive (keras/src/saving/saving_lib.py).
bool sniff_keras(std::span<const std::byte> head);
/// Reads a .keras archive: the datasets of its STORED model.weights.h5 member, read in
/// place (loaders/hdf5_keras.cpp). Throws Error(BadFile) for a corrupt archive or a missing
/// member, Error(Unsupported) for a compressed one, and what open_hdf5 throws.
LoadedFile open_keras(std::shared_ptr<const MappedFile> file);

/// True when `head` starts as a pickle (0x80, PROTO) and names the module
/// torch.distributed.checkpoint.metadata, as a DCP .metadata does within its first 64 bytes.
bool sniff_dcp(std::span<const std::byte> head);
/// Reads a DCP folder's .metadata (and nothing else: the listing is the metadata's): one
/// tensor per TensorStorageMetadata, named by its state_dict key, values read from the
/// .distcp files beside it when loaded. Throws what parse_dcp_metadata throws.
LoadedFile open_dcp(std::shared_ptr<const MappedFile> file);

}  // namespace tensor_inspect
