// loaders/dcp.cpp — torch.distributed.checkpoint folders as PyTorch 2.x's FileSystemWriter
// writes them (torch/distributed/checkpoint/filesystem.py):
//   <folder>/.metadata           pickle.dump(Metadata) (dcp_metadata.hpp), written last;
//   <folder>/__<rank>_<n>.distcp each rank's items one after another: a tensor chunk as
//                                torch.save(chunk) (_write_item: a whole zip archive per
//                                chunk, its offsets relative to its own start), a non-tensor
//                                item (BytesStorageMetadata) as the bytes of its torch.save.
// storage_data maps MetadataIndex(fqn, chunk offsets) to _StorageInfo(relative_path, offset,
// length); the reader (FileSystemReader.read_data) torch.loads bytes [offset, offset +
// length) and copies the chunk into the global tensor at its offsets. Replicated tensors are
// written once (_dedup_save_plans.py), so every chunk of the metadata has one storage.
//
// The listing comes from the metadata alone: global names, dtypes, sizes. A tensor held by
// one chunk is that chunk's torch.save tensor, mapped in place; one of several chunks is
// assembled when realized, each chunk read in turn into its box of the global tensor.
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "loaders/dcp_load.hpp"
#include "loaders/dcp_metadata.hpp"
#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kDcpModuleName = "torch.distributed.checkpoint.metadata";

// Copies chunk `c` (C order, `itemsize` bytes each) into its box of `out`, C order of `size`.
void dcp_place_chunk(std::span<const std::byte> chunk, const DcpChunk& c, const Shape& size, std::size_t itemsize,
                     std::span<std::byte> out) {
  const std::size_t ndim = size.size();
  if (ndim == 0) {
    std::memcpy(out.data(), chunk.data(), itemsize);
    return;
  }
  const std::size_t run = static_cast<std::size_t>(c.sizes[ndim - 1]) * itemsize;
  Shape at(ndim - 1, 0);  // index inside the chunk over the outer axes
  std::size_t from = 0;
  for (;;) {
    std::uint64_t flat = 0;
    for (std::size_t d = 0; d + 1 < ndim; ++d)
      flat = flat * static_cast<std::uint64_t>(size[d]) + static_cast<std::uint64_t>(c.offsets[d] + at[d]);
    flat = flat * static_cast<std::uint64_t>(size[ndim - 1]) + static_cast<std::uint64_t>(c.offsets[ndim - 1]);
    std::memcpy(out.data() + flat * itemsize, chunk.data() + from, run);
    from += run;
    std::size_t d = ndim - 1;
    while (d > 0 && ++at[d - 1] == c.sizes[d - 1]) {
      at[d - 1] = 0;
      --d;
    }
    if (d == 0) return;
  }
}

bool dcp_whole(const DcpTensor& t) {
  if (t.chunks.size() != 1) return false;
  for (std::size_t d = 0; d < t.size.size(); ++d)
    if (t.chunks[0].offsets[d] != 0 || t.chunks[0].sizes[d] != t.size[d]) return false;
  return true;
}

}  // namespace

DcpFolder::DcpFolder(std::string metadata_name, std::filesystem::path dir)
    : metadata_name_(std::move(metadata_name)), dir_(std::move(dir)) {}

std::shared_ptr<const MappedFile> DcpFolder::file(const std::string& relative_path) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  auto it = files_.find(relative_path);
  if (it != files_.end()) return it->second;
  auto opened = MappedFile::open((dir_ / relative_path).string());
  files_.emplace(relative_path, opened);
  return opened;
}

std::shared_ptr<const MappedFile> DcpFolder::chunk_bytes(const DcpTensor& t, std::size_t i) const {
  const DcpChunk& c = t.chunks[i];
  const std::string place = metadata_name_ + ": tensor '" + t.fqn + "' chunk " + std::to_string(i);
  if (!c.storage) throw Error(ErrorCode::BadFile, place + ": storage_data holds no entry for it");
  const DcpStorage& s = *c.storage;
  if (s.transformed)
    throw Error(ErrorCode::Unsupported, place + ": its storage has transform_descriptors (a DCP extension such as "
                                                "compression), which this tool does not undo");
  std::shared_ptr<const MappedFile> f;
  try {
    f = file(s.relative_path);
  } catch (const Error& e) {
    throw Error(ErrorCode::BadFile, place + ": its file '" + s.relative_path + "' cannot be read (" + e.what() + ")");
  }
  if (s.offset > f->size() || s.length > f->size() - s.offset)
    throw Error(ErrorCode::BadFile, place + ": bytes " + std::to_string(s.offset) + " to " +
                                        std::to_string(s.offset + s.length) + " of '" + s.relative_path +
                                        "' reach past its end (" + std::to_string(f->size()) + " bytes)");
  return MappedFile::slice(f, s.offset, s.length,
                           f->name() + " (tensor '" + t.fqn + "' chunk " + std::to_string(i) + " at byte " +
                               std::to_string(s.offset) + ")");
}

TensorEntry DcpFolder::chunk_entry(const DcpTensor& t, std::size_t i) const {
  const std::shared_ptr<const MappedFile> bytes = chunk_bytes(t, i);
  const std::string place = bytes->name();
  LoadedFile saved = open_pytorch(bytes);
  if (saved.tensors.size() != 1)
    throw Error(ErrorCode::BadFile, place + ": holds " + std::to_string(saved.tensors.size()) +
                                        " tensors, not the one chunk torch.save writes");
  TensorEntry& e = saved.tensors[0];
  if (e.shape != t.chunks[i].sizes)
    throw Error(ErrorCode::BadFile, place + ": holds a tensor of shape " + shape_repr(e.shape) +
                                        ", the metadata says sizes " + shape_repr(t.chunks[i].sizes));
  if (e.dtype != t.dtype || (!e.dtype && e.nbytes != static_cast<std::uint64_t>(prod(e.shape)) * t.itemsize))
    throw Error(ErrorCode::BadFile, place + ": holds a tensor of " + e.stored_type + ", the metadata says " +
                                        t.torch_dtype);
  return std::move(e);
}

Tensor DcpFolder::load(const DcpTensor& t) const {
  if (!t.dtype)
    throw Error(ErrorCode::Unsupported, metadata_name_ + ": tensor '" + t.fqn + "': torch." + t.torch_dtype +
                                            " values cannot be shown");
  if (dcp_whole(t)) return chunk_entry(t, 0).load();  // in place, as open_pytorch maps it
  const DType dtype = *t.dtype;
  auto producer = std::make_shared<Producer>();
  producer->label = "assemble " + metadata_name_ + ":" + t.fqn + " from " + std::to_string(t.chunks.size()) + " chunks";
  producer->fill = [self = shared_from_this(), t](std::span<std::byte> out) {
    const std::size_t itemsize = dtype_info(*t.dtype).itemsize;
    for (std::size_t i = 0; i < t.chunks.size(); ++i) {
      if (prod(t.chunks[i].sizes) == 0) continue;
      const NodePtr done = realize(self->chunk_entry(t, i).load().contiguous().node());
      const auto& buffer = std::get<std::shared_ptr<Buffer>>(done->arg);
      dcp_place_chunk(buffer->bytes(), t.chunks[i], t.size, itemsize, out);
      // Read once: its pages leave the resident set, which then holds the tensor and one chunk.
      self->chunk_bytes(t, i)->release_pages(0, t.chunks[i].storage->length);
    }
  };
  return Tensor::from_producer(producer, dtype, t.size);
}

bool sniff_dcp(std::span<const std::byte> head) {
  if (head.size() < 2 || head[0] != std::byte{0x80}) return false;
  const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  return text.find(kDcpModuleName) != std::string_view::npos;
}

LoadedFile open_dcp(std::shared_ptr<const MappedFile> file) {
  const std::string& name = file->name();
  if (file->size() > limits().dcp_metadata_bytes)
    throw limit_error("dcp_metadata_bytes", name + ": the metadata pickle holds " + std::to_string(file->size()) +
                                                " bytes, over the limit of " +
                                                std::to_string(limits().dcp_metadata_bytes) +
                                                limit_hint("dcp_metadata_bytes"),
                      name);
  file->fetch(0, file->size());
  const DcpMetadata m = parse_dcp_metadata(file->bytes(), name);
  // The .distcp files lie beside the .metadata, opened as it was (a URL with its credentials).
  const std::filesystem::path dir =
      std::filesystem::path(file->location().empty() ? name : file->location()).parent_path();
  auto folder = std::make_shared<DcpFolder>(name, dir);
  LoadedFile out;
  out.path = name;
  out.format = "dcp";
  out.file = file;
  for (const DcpTensor& t : m.tensors) {
    TensorEntry e;
    e.name = t.fqn;
    e.stored_type = "torch." + t.torch_dtype;
    e.dtype = t.dtype;
    e.shape = t.size;
    e.nbytes = static_cast<std::uint64_t>(prod(t.size)) * t.itemsize;
    if (t.chunks.size() == 1 && t.chunks[0].storage) e.offset = t.chunks[0].storage->offset;
    e.note = t.chunks.size() == 1 && t.chunks[0].storage ? "in " + t.chunks[0].storage->relative_path
                                                         : "from " + std::to_string(t.chunks.size()) + " chunks";
    e.details_for_write().loader = [folder, t]() { return folder->load(t); };
    out.tensors.push_back(std::move(e));
  }
  if (!m.version.empty()) out.metadata.push_back({"dcp.version", "str", m.version});
  for (const DcpBytes& b : m.bytes_entries)
    out.metadata.push_back({b.fqn, "bytes", "<a pickled object (BytesStorageMetadata), not read>"});
  return out;
}

}  // namespace tensor_inspect
