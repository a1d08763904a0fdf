// loaders/pytorch_storage.hpp — a torch tensor over its storage member: where its
// elements lie (storage, offset, size, stride in elements) and the lazy tensor that reads
// them, as a DISK view when the layout allows and a gather into C order otherwise.
//
//   TorchTensorRef t = ...;                                   // checked against the member
//   std::function<Tensor()> load = torch_tensor_loader(file, zip, t, "fc.weight", false);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loaders/zip_archive.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// Where a tensor's elements lie: storage member, dtype and the strided view over it.
struct TorchTensorRef {
  std::string storage_type;
  std::optional<DType> dtype;
  std::uint64_t itemsize = 0;  ///< bytes per element, also of a storage type without a dtype (complex); 0 when unknown
  ZipMember member;  ///< where the storage's bytes lie (the legacy layout: a STORED one made for them)
  std::uint64_t storage_numel = 0;
  std::int64_t offset = 0;
  Shape size;
  std::vector<std::int64_t> stride;
};

/// True when `stride` is the C-contiguous layout of `size` (size-1 axes may have any stride).
bool is_c_contiguous(const Shape& size, const std::vector<std::int64_t>& stride);

/// The axes of a view that walk memory (size > 1, stride > 0), outermost first, when
/// their strides are a permutation of a C-contiguous layout; nullopt when elements
/// overlap or are skipped (a step slice), which only a gather can express.
std::optional<std::vector<std::size_t>> permuted_layout(const Shape& size, const std::vector<std::int64_t>& stride);

/// The lazy tensor of `t` (already checked to lie inside its member) in `file`: a DISK view of a
/// STORED member when contiguous or permuted, else a producer into C order, byte-swapping
/// when `swap`. A compressed member is inflated straight into the output when the view
/// is contiguous, else as far as the view reaches and gathered; past kInflateWholeBytes
/// its elements are inflated as loops read them (zip_stream.hpp), so a slice or summary
/// holds no copy of the storage and --stats streams it.
/// `zip` is only read for a compressed member (nullptr when none is: the legacy layout).
/// Calling it throws Error(Unsupported) for a storage type without a dtype.
std::function<Tensor()> torch_tensor_loader(std::shared_ptr<const MappedFile> file, std::shared_ptr<ZipArchive> zip,
                                            const TorchTensorRef& t,
                                            const std::string& name, bool swap);

}  // namespace tensor_inspect
