// loaders/tensor_entry.cpp — TensorEntry::load(): the lazy tensor of one listed entry.
// A plain slice of the file (safetensors) is built from the entry's own fields on demand,
// so a listing of many tensors keeps no closure, no second shape and no allocation per
// entry for it; formats that need more (byte swaps, Fortran order, zip members, GGUF
// blocks) set a loader in the entry's details.
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

namespace {
const EntryDetails kNoDetails;
}  // namespace

TensorEntry::TensorEntry(const TensorEntry& other)
    : name(other.name),
      stored_type(other.stored_type),
      dtype(other.dtype),
      stored_reversed(other.stored_reversed),
      shape(other.shape),
      offset(other.offset),
      nbytes(other.nbytes),
      note(other.note),
      file(other.file),
      details_(other.details_ ? std::make_unique<EntryDetails>(*other.details_) : nullptr) {}

TensorEntry& TensorEntry::operator=(const TensorEntry& other) {
  if (this != &other) *this = TensorEntry(other);
  return *this;
}

const EntryDetails& TensorEntry::details() const { return details_ ? *details_ : kNoDetails; }

EntryDetails& TensorEntry::details_for_write() {
  if (!details_) details_ = std::make_unique<EntryDetails>();
  return *details_;
}

std::span<const std::byte> TensorEntry::stored_blocks() const {
  if (!details_ || !details_->blocks_file)
    throw Error(ErrorCode::Internal, "tensor '" + name + "' has no stored blocks");
  const std::span<const std::byte> all = details_->blocks_file->bytes();
  if (offset > all.size() || nbytes > all.size() - offset)
    throw Error(ErrorCode::BadFile,
                details_->blocks_file->name() + ": tensor '" + name + "' lies past the end of the file");
  return all.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(nbytes));
}

Tensor TensorEntry::load() const {
  if (details_ && details_->loader) return details_->loader();
  if (!file || !dtype) throw Error(ErrorCode::Internal, "tensor '" + name + "' has no loader");
  return Tensor::from_buffer(Buffer::disk(file, offset, nbytes), *dtype, shape);
}

}  // namespace tensor_inspect
