// loaders/dcp_load.hpp — the .distcp files of a torch.distributed.checkpoint folder and the
// global tensors assembled from their chunks (loaders/dcp.cpp; the layout is described there).
//
//   auto folder = std::make_shared<DcpFolder>("ckpt/.metadata", "ckpt");
//   Tensor w = folder->load(metadata.tensors[0]);   // lazy: chunks are read when realized
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "loaders/dcp_metadata.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// The folder a .metadata names its files in, each file mapped once, on first use.
class DcpFolder : public std::enable_shared_from_this<DcpFolder> {
 public:
  /// `metadata_name` names the .metadata in messages; `dir` is where its relative paths start.
  DcpFolder(std::string metadata_name, std::filesystem::path dir);

  /// The file at `relative_path` of the folder, mapped. Throws Error(Io) when it cannot be.
  std::shared_ptr<const MappedFile> file(const std::string& relative_path) const;
  /// The bytes of chunk `i` of `t` (a torch.save archive) as a file of their own. Throws
  /// Error(BadFile) "<metadata>: tensor 'w' chunk i: ..." for a chunk without storage, a
  /// file that cannot be read, bytes past its end; Error(Unsupported) for transformed storage.
  std::shared_ptr<const MappedFile> chunk_bytes(const DcpTensor& t, std::size_t i) const;
  /// Chunk `i` of `t` opened by open_pytorch: its one tensor, checked to have the chunk's
  /// sizes and the tensor's dtype. Throws what chunk_bytes and open_pytorch throw, and
  /// Error(BadFile) naming the chunk when it holds anything else.
  TensorEntry chunk_entry(const DcpTensor& t, std::size_t i) const;
  /// The global tensor `t`, lazy: one chunk covering it is its torch.save tensor in place;
  /// several are read into their boxes (offsets, sizes) when realized (a producer, which
  /// throws what chunk_entry throws). Throws Error(Unsupported) for a torch dtype that has
  /// no dtype here (complex64).
  Tensor load(const DcpTensor& t) const;

 private:
  std::string metadata_name_;
  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const MappedFile>> files_;
};

}  // namespace tensor_inspect
