// loaders/pytorch_storage.cpp — torch tensors over their storage members (see
// pytorch_storage.hpp): views over the mapping where the layout allows, gathers elsewhere.
#include "loaders/pytorch_storage.hpp"

#include <algorithm>
#include <cstring>

#include "loaders/zip_stream.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

/// True when `stride` is the C-contiguous layout of `size` (size-1 axes may have any stride).
bool is_c_contiguous(const Shape& size, const std::vector<std::int64_t>& stride) {
  std::int64_t expect = 1;
  for (std::size_t i = size.size(); i-- > 0;) {
    if (size[i] != 1 && stride[i] != expect) return false;
    expect *= size[i];
  }
  return true;
}

/// The axes of a view that walk memory (size > 1, stride > 0), outermost first, when
/// their strides are a permutation of a C-contiguous layout; nullopt when elements
/// overlap or are skipped (a step slice), which only a gather can express.
std::optional<std::vector<std::size_t>> permuted_layout(const Shape& size, const std::vector<std::int64_t>& stride) {
  std::vector<std::size_t> axes;
  for (std::size_t d = 0; d < size.size(); ++d)
    if (size[d] > 1 && stride[d] != 0) axes.push_back(d);
  std::stable_sort(axes.begin(), axes.end(), [&](std::size_t a, std::size_t b) { return stride[a] > stride[b]; });
  std::int64_t expect = 1;
  for (std::size_t i = axes.size(); i-- > 0;) {
    if (stride[axes[i]] != expect) return std::nullopt;
    expect *= size[axes[i]];
  }
  return axes;
}

namespace {

/// The view over `buffer` (the elements it spans, from the storage offset) as movement
/// ops: the memory axes in memory order, permuted back to the tensor's order, then
/// reshaped with size-1 axes and expanded along the broadcast (stride 0) axes.
Tensor view_over(std::shared_ptr<Buffer> buffer, DType dtype, const Shape& size, const std::vector<std::size_t>& axes) {
  Shape memory_shape;
  for (std::size_t a : axes) memory_shape.push_back(size[a]);
  Tensor t = Tensor::from_buffer(std::move(buffer), dtype, memory_shape);
  std::vector<std::size_t> in_order = axes;
  std::sort(in_order.begin(), in_order.end());
  std::vector<std::int64_t> perm;
  for (std::size_t a : in_order)
    perm.push_back(static_cast<std::int64_t>(std::find(axes.begin(), axes.end(), a) - axes.begin()));
  t = t.permute(perm);
  Shape with_ones(size.size(), 1);
  for (std::size_t a : axes) with_ones[a] = size[a];
  return t.reshape(with_ones).expand(size);
}

/// Copies the strided elements of a storage into `out` in C order, byte-swapping when
/// the file is big-endian. `storage` starts at element 0 of the storage.
void gather(std::span<const std::byte> storage, const TorchTensorRef& t, std::size_t itemsize, bool swap,
            std::span<std::byte> out) {
  const std::size_t ndim = t.size.size();
  std::vector<std::int64_t> idx(ndim, 0);
  const auto numel = static_cast<std::size_t>(prod(t.size));
  for (std::size_t n = 0; n < numel; ++n) {
    std::int64_t e = t.offset;
    for (std::size_t d = 0; d < ndim; ++d) e += idx[d] * t.stride[d];
    std::memcpy(out.data() + n * itemsize, storage.data() + static_cast<std::size_t>(e) * itemsize, itemsize);
    if (swap) std::reverse(out.begin() + static_cast<std::ptrdiff_t>(n * itemsize),
                           out.begin() + static_cast<std::ptrdiff_t>((n + 1) * itemsize));
    for (std::size_t d = ndim; d-- > 0;) {
      if (++idx[d] < t.size[d]) break;
      idx[d] = 0;
    }
  }
}

/// Elements of the storage a view reaches: up to its last one (none for an empty view).
std::uint64_t storage_reach(const TorchTensorRef& t) {
  if (prod(t.size) == 0) return 0;
  std::uint64_t reach = static_cast<std::uint64_t>(t.offset);
  for (std::size_t d = 0; d < t.size.size(); ++d)
    reach += static_cast<std::uint64_t>(t.size[d] - 1) * static_cast<std::uint64_t>(t.stride[d]);
  return reach + 1;
}

/// The storage element of element i (C order) of the view.
std::int64_t element_of(const TorchTensorRef& t, std::int64_t i) {
  std::int64_t e = t.offset;
  for (std::size_t d = t.size.size(); d-- > 0;) {
    e += i % t.size[d] * t.stride[d];
    i /= t.size[d];
  }
  return e;
}

}  // namespace

std::function<Tensor()> torch_tensor_loader(std::shared_ptr<const MappedFile> file, std::shared_ptr<ZipArchive> zip,
                                            const TorchTensorRef& t, const std::string& name, bool swap) {
  const bool contiguous = is_c_contiguous(t.size, t.stride) || prod(t.size) == 0;
  const std::optional<std::vector<std::size_t>> layout = permuted_layout(t.size, t.stride);
  return [file, zip, t, name, contiguous, layout, swap]() -> Tensor {
    if (!t.dtype)
      throw Error(ErrorCode::Unsupported, file->name() + ": tensor '" + name + "': storage type " +
                                              t.storage_type + " is not supported");
    const DType dtype = *t.dtype;
    const std::size_t itemsize = dtype_info(dtype).itemsize;
    const std::uint64_t numel = static_cast<std::uint64_t>(prod(t.size));
    if (t.member.stored && contiguous && !swap) {
      auto buffer = Buffer::disk(file, t.member.data_offset + static_cast<std::uint64_t>(t.offset) * itemsize,
                                 numel * itemsize);
      return Tensor::from_buffer(buffer, dtype, t.size);
    }
    if (t.member.stored && layout && !swap) {
      std::uint64_t span = 1;
      for (std::size_t a : *layout) span *= static_cast<std::uint64_t>(t.size[a]);
      auto buffer = Buffer::disk(file, t.member.data_offset + static_cast<std::uint64_t>(t.offset) * itemsize,
                                 span * itemsize);
      return view_over(buffer, dtype, t.size, *layout);
    }
    auto producer = std::make_shared<Producer>();
    producer->label = "gather " + file->name() + ":" + t.member.name;
    if (!t.member.stored && storage_reach(t) * itemsize > kInflateWholeBytes) {
      // A large compressed storage: elements inflated as loops ask for them, so a slice or
      // a summary inflates only up to what it reads, and --stats streams it.
      auto reader = std::make_shared<ZipScatteredReader>(zip, t.member);
      producer->element = [reader, t, dtype, itemsize, swap](std::int64_t i) {
        std::byte b[16];
        reader->read(static_cast<std::uint64_t>(element_of(t, i)) * itemsize, {b, itemsize});
        if (swap) std::reverse(b, b + itemsize);
        return load_scalar(dtype, b);
      };
    }
    producer->fill = [file, zip, t, itemsize, swap, contiguous](std::span<std::byte> out) {
      if (out.empty()) return;
      if (t.member.stored) {
        file->fetch(t.member.data_offset, t.member.size);
        gather(file->bytes().subspan(static_cast<std::size_t>(t.member.data_offset)), t, itemsize, swap, out);
        return;
      }
      const std::uint64_t from = static_cast<std::uint64_t>(t.offset) * itemsize;
      if (contiguous) {  // inflated straight into the output
        zip->read_into(t.member, from, out, from + out.size() == t.member.size);
        if (swap)
          for (std::size_t at = 0; at < out.size(); at += itemsize)
            std::reverse(out.begin() + static_cast<std::ptrdiff_t>(at),
                         out.begin() + static_cast<std::ptrdiff_t>(at + itemsize));
        return;
      }
      // Inflate only as far as the view reaches (at most kInflateWholeBytes), then gather.
      std::vector<std::byte> storage(static_cast<std::size_t>(storage_reach(t) * itemsize));
      zip->read_into(t.member, 0, storage, false);
      gather(storage, t, itemsize, swap, out);
    };
    return Tensor::from_producer(producer, dtype, t.size);
  };
}

}  // namespace tensor_inspect
