// loaders/mapped_views.cpp — MappedFile views the zip-based loaders need: a slice of a
// mapping (a STORED member, zero copy) and a sparse stand-in for a compressed member.
// They live next to their users so buffer.cpp stays about files and memory.
#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

std::shared_ptr<MappedFile> MappedFile::slice(std::shared_ptr<const MappedFile> parent, std::uint64_t offset,
                                              std::uint64_t size, const std::string& name) {
  if (offset > parent->size() || size > parent->size() - offset)
    throw Error(ErrorCode::BadFile, parent->name() + ": bytes [" + std::to_string(offset) + ", +" +
                                        std::to_string(size) + ") of '" + name + "' run past the end of the file (" +
                                        std::to_string(parent->size()) + " bytes)");
  // The slice neither maps nor owns: it points into the parent, which the holder keeps alive.
  struct Holder {
    std::shared_ptr<const MappedFile> parent;
    std::unique_ptr<MappedFile> view;
  };
  auto holder = std::make_shared<Holder>();
  holder->parent = std::move(parent);
  holder->view.reset(new MappedFile());
  MappedFile& view = *holder->view;
  view.data_ = holder->parent->bytes().data() + offset;
  view.size_ = static_cast<std::size_t>(size);
  view.name_ = name;
  view.file_mapping_ = holder->parent->file_mapping_;
  return std::shared_ptr<MappedFile>(holder, holder->view.get());
}

std::shared_ptr<MappedFile> MappedFile::sparse(std::span<const std::byte> head, std::uint64_t size,
                                               const std::string& name) {
  if (size > limits().buffer_bytes)
    throw limit_error("buffer_bytes", name + ": " + std::to_string(size) + " bytes is over the limit of " +
                                          std::to_string(limits().buffer_bytes) + limit_hint("buffer_bytes"),
                      name);
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->name_ = name;
  if (size == 0) return file;
  // MAP_NORESERVE: untouched pages read as zeros and cost no memory.
  void* p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw Error(ErrorCode::Unsupported, name + ": cannot reserve " + std::to_string(size) + " bytes of address space");
  std::memcpy(p, head.data(), std::min<std::size_t>(head.size(), static_cast<std::size_t>(size)));
  ::mprotect(p, static_cast<std::size_t>(size), PROT_READ);
  file->data_ = static_cast<const std::byte*>(p);
  file->size_ = static_cast<std::size_t>(size);
  file->mapped_ = true;  // the destructor unmaps it
  return file;
}

}  // namespace tensor_inspect
