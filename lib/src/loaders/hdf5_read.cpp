// loaders/hdf5_read.cpp — the values of a dataset libhdf5 must read: chunked (through its
// filter pipeline: gzip, shuffle, ...), compact, or never written (its fill value).
//
// Data is read in the type the file stores (the dataset's own datatype as the memory
// type), so libhdf5 only decompresses and copies, and byte order is ours to fix, as for a
// big-endian .npy. A realize reads the dataset whole (libhdf5 goes chunk by chunk); a
// larger dataset than kHdf5ReadWholeBytes of which loops ask single elements (a summary's
// edges) is read one chunk at a time, keeping the last chunk read: memory stays at one
// chunk (at most Limits::hdf5_chunk_bytes) whatever the dataset's size.
#include "loaders/hdf5_read.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/graph.hpp"

namespace tensor_inspect {

namespace {

/// Datasets up to this many bytes are read whole even for a few elements.
constexpr std::uint64_t kHdf5ReadWholeBytes = std::uint64_t{16} << 20;
/// Chunks and bytes one H5Dread of a chunked dataset spans at most (or one chunk, when larger).
/// libhdf5 keeps a record with its own dataspace for each chunk a read selects, about 2 KB: two
/// datasets of 327,680 chunks of (2, 4) each, read whole, peaked at 1.26 GB.
constexpr std::uint64_t kHdf5SlabChunks = 4096, kHdf5SlabBytes = std::uint64_t{64} << 20;

[[noreturn]] void hdf5_read_failed(const Hdf5File& file, const std::string& name, const std::string& what) {
  throw Error(ErrorCode::BadFile, file.name() + ": dataset '" + name + "': cannot be read (" + what + ")");
}

void swap_hdf5_elements(std::span<std::byte> data, std::size_t itemsize) {
  for (std::size_t at = 0; at + itemsize <= data.size(); at += itemsize)
    std::reverse(data.begin() + static_cast<std::ptrdiff_t>(at),
                 data.begin() + static_cast<std::ptrdiff_t>(at + itemsize));
}

/// Reads the block [start, start + count) of the open dataset `dset` into `out` (C order of
/// the block; with `whole`, the dataset's shape, `out` holds the whole dataset and the block goes
/// to its place in it), or the whole dataset when `start` is empty. Call under hdf5_lock().
void read_hdf5_block(const Hdf5File& file, const std::string& name, hid_t dset, const std::vector<hsize_t>& start,
                     const std::vector<hsize_t>& count, std::span<std::byte> out,
                     const std::vector<hsize_t>* whole = nullptr) {
  Hdf5Id type(H5Dget_type(dset), H5Tclose);
  if (!type.ok()) hdf5_read_failed(file, name, hdf5_error_text());
  if (start.empty()) {
    if (H5Dread(dset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
      hdf5_read_failed(file, name, hdf5_error_text());
    return;
  }
  Hdf5Id fspace(H5Dget_space(dset), H5Sclose);
  const int rank = static_cast<int>(count.size());
  Hdf5Id mspace(H5Screate_simple(rank, whole ? whole->data() : count.data(), nullptr), H5Sclose);
  const auto select = [&](hid_t space) {
    return H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) >= 0;
  };
  if (!fspace.ok() || !mspace.ok() || !select(fspace.get()) || (whole && !select(mspace.get())) ||
      H5Dread(dset, type.get(), mspace.get(), fspace.get(), H5P_DEFAULT, out.data()) < 0)
    hdf5_read_failed(file, name, hdf5_error_text());
}

/// Calls `read(start, count)` for blocks of whole chunks of the chunked dataset `d` that cover it
/// in C order, each of at most kHdf5SlabChunks chunks and kHdf5SlabBytes (or one chunk): a
/// run of chunks along one axis, each spanning the whole of the axes after it.
template <class Read>
void for_each_hdf5_slab(const Hdf5Dataset& d, Read&& read) {
  const std::size_t rank = d.shape.size();
  std::vector<hsize_t> chunks(rank);  // chunks along each axis
  std::uint64_t chunk_bytes = dtype_info(*d.type.dtype).itemsize;
  for (std::size_t k = 0; k < rank; ++k) {
    const auto dim = static_cast<hsize_t>(d.shape[k]), c = static_cast<hsize_t>(d.chunk[k]);
    if (dim == 0) return;
    chunks[k] = (dim + c - 1) / c;
    chunk_bytes *= static_cast<std::uint64_t>(c);
  }
  const std::uint64_t most = std::max<std::uint64_t>(1, std::min(kHdf5SlabChunks, kHdf5SlabBytes / chunk_bytes));
  std::size_t axis = rank;  // the axes from `axis` on fit one read whole...
  std::uint64_t after = 1;   // ...in this many chunks
  while (axis > 0 && chunks[axis - 1] <= most / after) after *= chunks[--axis];
  if (axis == 0) {  // all of it in one read
    read(std::vector<hsize_t>(rank, 0), std::vector<hsize_t>(d.shape.begin(), d.shape.end()));
    return;
  }
  --axis;  // runs of chunks along this axis, each whole over the axes after it
  const hsize_t run = static_cast<hsize_t>(std::max<std::uint64_t>(1, most / after));
  std::vector<hsize_t> at(axis + 1, 0), start(rank, 0), count(d.shape.begin(), d.shape.end());
  for (;;) {
    for (std::size_t k = 0; k <= axis; ++k) {
      const auto c = static_cast<hsize_t>(d.chunk[k]), dim = static_cast<hsize_t>(d.shape[k]);
      start[k] = at[k] * c;
      count[k] = std::min((k == axis ? run : 1) * c, dim - start[k]);
    }
    read(start, count);
    at[axis] += run;  // the next step, carried into the axes before
    std::size_t k = axis;
    while (at[k] >= chunks[k]) {
      if (k == 0) return;
      at[k] = 0, ++at[--k];
    }
  }
}

/// The last chunk read of one dataset, for element-by-element reads.
class Hdf5ChunkCache {
 public:
  Hdf5ChunkCache(std::shared_ptr<const Hdf5File> file, Hdf5Dataset d) : file_(std::move(file)), d_(std::move(d)) {
    itemsize_ = dtype_info(*d_.type.dtype).itemsize;
  }
  ~Hdf5ChunkCache() {
    if (dset_ < 0) return;
    auto lock = hdf5_lock();
    H5Dclose(dset_);
  }
  Hdf5ChunkCache(const Hdf5ChunkCache&) = delete;
  Hdf5ChunkCache& operator=(const Hdf5ChunkCache&) = delete;

  Scalar element(std::int64_t i) {
    auto lock = hdf5_lock();
    const std::size_t rank = d_.shape.size();
    std::vector<hsize_t> coord(rank);
    for (std::size_t k = rank; k-- > 0;) {
      coord[k] = static_cast<hsize_t>(i % d_.shape[k]);
      i /= d_.shape[k];
    }
    bool inside = !start_.empty();
    for (std::size_t k = 0; k < rank && inside; ++k) inside = coord[k] >= start_[k] && coord[k] < start_[k] + count_[k];
    if (!inside) load_chunk(coord);
    std::uint64_t at = 0;
    for (std::size_t k = 0; k < rank; ++k) at = at * count_[k] + (coord[k] - start_[k]);
    std::byte b[16];
    std::memcpy(b, chunk_.data() + at * itemsize_, itemsize_);
    if (d_.type.big_endian) std::reverse(b, b + itemsize_);
    return load_scalar(*d_.type.dtype, b);
  }

 private:
  void load_chunk(const std::vector<hsize_t>& coord) {
    if (dset_ < 0) {
      dset_ = H5Dopen2(file_->id(), d_.name.c_str(), H5P_DEFAULT);
      if (dset_ < 0) hdf5_read_failed(*file_, d_.name, hdf5_error_text());
    }
    const std::size_t rank = coord.size();
    start_.assign(rank, 0);
    count_.assign(rank, 1);
    std::uint64_t n = 1;
    for (std::size_t k = 0; k < rank; ++k) {
      const auto c = static_cast<hsize_t>(d_.chunk[k]);
      start_[k] = coord[k] / c * c;
      count_[k] = std::min<hsize_t>(c, static_cast<hsize_t>(d_.shape[k]) - start_[k]);
      n *= count_[k];
    }
    chunk_.resize(static_cast<std::size_t>(n * itemsize_));
    try {
      read_hdf5_block(*file_, d_.name, dset_, start_, count_, chunk_);
    } catch (...) {
      start_.clear();
      throw;
    }
  }

  std::shared_ptr<const Hdf5File> file_;
  Hdf5Dataset d_;
  std::size_t itemsize_ = 0;
  hid_t dset_ = -1;
  std::vector<hsize_t> start_, count_;  ///< the block held (empty: none)
  std::vector<std::byte> chunk_;
};

}  // namespace

void read_hdf5_dataset(const Hdf5File& file, const Hdf5Dataset& d, std::span<std::byte> out) {
  if (out.size() != d.nbytes)
    throw Error(ErrorCode::Internal, file.name() + ": dataset '" + d.name + "': " + std::to_string(out.size()) +
                                         " bytes asked for, it holds " + std::to_string(d.nbytes));
  if (d.nbytes == 0) return;
  {
    auto lock = hdf5_lock();
    Hdf5Id dset(H5Dopen2(file.id(), d.name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dset.ok()) hdf5_read_failed(file, d.name, hdf5_error_text());
    if (d.layout != "chunked" || d.shape.empty()) {
      read_hdf5_block(file, d.name, dset.get(), {}, {}, out);
    } else {  // slab by slab, each into its place in `out`
      const std::vector<hsize_t> dims(d.shape.begin(), d.shape.end());
      for_each_hdf5_slab(d, [&](const std::vector<hsize_t>& start, const std::vector<hsize_t>& count) {
        read_hdf5_block(file, d.name, dset.get(), start, count, out, &dims);
      });
    }
  }
  if (d.type.big_endian) swap_hdf5_elements(out, dtype_info(*d.type.dtype).itemsize);
}

void check_hdf5_chunks(const Hdf5File& file, const Hdf5Dataset& d) {
  auto lock = hdf5_lock();
  Hdf5Id dset(H5Dopen2(file.id(), d.name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dset.ok()) hdf5_read_failed(file, d.name, hdf5_error_text());
  const std::size_t itemsize = dtype_info(*d.type.dtype).itemsize;
  if (d.layout != "chunked") {  // compact: at most 64 KiB, in the object header
    std::vector<std::byte> out(static_cast<std::size_t>(d.nbytes));
    read_hdf5_block(file, d.name, dset.get(), {}, {}, out);
    return;
  }
  // Every chunk through the filter pipeline, a slab of them at a time (its index asked chunk by
  // chunk, H5Dget_chunk_info, walks the index from its start each time in libhdf5 1.10: over 10
  // minutes for 327,680 chunks); a chunk never written reads as the fill value.
  std::vector<std::byte> out;
  for_each_hdf5_slab(d, [&](const std::vector<hsize_t>& start, const std::vector<hsize_t>& count) {
    std::uint64_t n = itemsize;
    for (const hsize_t c : count) n *= c;
    out.resize(static_cast<std::size_t>(n));
    read_hdf5_block(file, d.name, dset.get(), start, count, out);
  });
}

Tensor hdf5_read_tensor(std::shared_ptr<const Hdf5File> file, const Hdf5Dataset& d) {
  auto producer = std::make_shared<Producer>();
  producer->label = "hdf5 read " + file->name() + ":" + d.name;
  if (d.layout == "chunked" && d.nbytes > kHdf5ReadWholeBytes && !d.shape.empty()) {
    auto cache = std::make_shared<Hdf5ChunkCache>(file, d);
    producer->element = [cache](std::int64_t i) { return cache->element(i); };
  }
  producer->fill = [file, d](std::span<std::byte> out) { read_hdf5_dataset(*file, d, out); };
  return Tensor::from_producer(producer, *d.type.dtype, d.shape);
}

}  // namespace tensor_inspect
