// loaders/hdf5_read.cpp — the values of a dataset libhdf5 must read: chunked (through its
// filter pipeline: gzip, shuffle, ...), compact, or never written (its fill value).
//
// Data is read in the type the file stores (the dataset's own datatype as the memory
// type), so libhdf5 only decompresses and copies, and byte order is ours to fix, as for a
// big-endian .npy. A realize reads the dataset whole (libhdf5 goes chunk by chunk); a
// larger dataset than kHdf5ReadWholeBytes of which loops ask single elements (a summary's
// edges, or a kernel streamed through its producer) is read a block at a time, a chunk or a band of
// one, keeping the blocks read last (Hdf5ChunkCache): memory stays at 32 MiB of them (or one chunk,
// at most Limits::hdf5_chunk_bytes) whatever the dataset's size.
#include "loaders/hdf5_read.hpp"

#include <algorithm>
#include <cstring>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/graph.hpp"

namespace tensor_inspect {

namespace {

/// Datasets up to this many bytes are read whole even for a few elements.
constexpr std::uint64_t kHdf5ReadWholeBytes = std::uint64_t{16} << 20;
/// Bytes (and blocks) the blocks of element-by-element reads hold at most, and bytes libhdf5's
/// decompressed chunks of the dataset hold at most (Hdf5ChunkCache); one block is kept whatever its size.
constexpr std::uint64_t kHdf5BlocksBytes = std::uint64_t{32} << 20, kHdf5MaxBlocks = 65536;
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

/// Blocks of one dataset read for element-by-element reads (a summary's edges, or a whole kernel
/// streamed through its producer in C order): a block is a chunk, or a band of rows of it along the
/// first axis, so sized that the blocks across the dataset's other axes, a band of its rows, take
/// half of kHdf5BlocksBytes; up to kHdf5BlocksBytes (and kHdf5MaxBlocks) of them are kept, the least
/// recently used leaving first. libhdf5 keeps up to as many bytes of decompressed chunks for the
/// dataset (H5Pset_chunk_cache), so a band of a compressed chunk does not decompress it again.
/// One chunk kept was not enough: a C-order walk of a dataset chunked by column, (200000, 48)
/// float32 in chunks of (200000, 1), read a chunk of 800 KB for every element, and never ended.
class Hdf5ChunkCache {
 public:
  Hdf5ChunkCache(std::shared_ptr<const Hdf5File> file, Hdf5Dataset d) : file_(std::move(file)), d_(std::move(d)) {
    itemsize_ = dtype_info(*d_.type.dtype).itemsize;
    const std::size_t rank = d_.shape.size();
    block_.assign(rank, 1);
    grid_.assign(rank, 1);
    std::uint64_t row = itemsize_;  // bytes of one index along the first axis, over every chunk
    for (std::size_t k = 1; k < rank; ++k) {
      const auto c = static_cast<std::uint64_t>(d_.chunk[k]), dim = static_cast<std::uint64_t>(d_.shape[k]);
      row *= (dim + c - 1) / c * c;
    }
    for (std::size_t k = 0; k < rank; ++k) {
      const auto c = static_cast<hsize_t>(d_.chunk[k]);
      block_[k] = k > 0 ? c : static_cast<hsize_t>(std::clamp<std::uint64_t>(kHdf5BlocksBytes / 2 / row, 1, c));
      grid_[k] = (static_cast<hsize_t>(d_.shape[k]) + block_[k] - 1) / block_[k];
    }
  }
  ~Hdf5ChunkCache() {
    auto lock = hdf5_lock();
    if (active_ == this) active_ = nullptr;
    if (dset_ >= 0) H5Dclose(dset_);
  }
  Hdf5ChunkCache(const Hdf5ChunkCache&) = delete;
  Hdf5ChunkCache& operator=(const Hdf5ChunkCache&) = delete;

  Scalar element(std::int64_t i) {
    auto lock = hdf5_lock();
    const std::size_t rank = d_.shape.size();
    coord_.resize(rank);
    for (std::size_t k = rank; k-- > 0;) {
      coord_[k] = static_cast<hsize_t>(i % d_.shape[k]);
      i /= d_.shape[k];
    }
    std::uint64_t id = 0;
    for (std::size_t k = 0; k < rank; ++k) id = id * grid_[k] + coord_[k] / block_[k];
    const auto found = held_.find(id);
    if (found != held_.end()) blocks_.splice(blocks_.begin(), blocks_, found->second);  // the most recent
    else load(id);
    const Block& b = blocks_.front();
    std::uint64_t at = 0;
    for (std::size_t k = 0; k < rank; ++k) at = at * b.count[k] + (coord_[k] - b.start[k]);
    std::byte bytes[16];
    std::memcpy(bytes, b.bytes.data() + at * itemsize_, itemsize_);
    if (d_.type.big_endian) std::reverse(bytes, bytes + itemsize_);
    return load_scalar(*d_.type.dtype, bytes);
  }

 private:
  struct Block {
    std::uint64_t id = 0;
    std::vector<hsize_t> start, count;
    std::vector<std::byte> bytes;
  };

  // Reads block `id` (coord_ lies in it) to the front of blocks_, the least recently used leaving.
  // Only the dataset read last keeps its blocks: the tensors of a file live as long as its
  // selection (--stats of two such datasets held both caches, 155 MiB).
  void load(std::uint64_t id) {
    if (active_ != this) {
      if (active_) active_->drop();
      active_ = this;
    }
    if (dset_ < 0) {
      Hdf5Id access(H5Pcreate(hdf5_dataset_access_class()), H5Pclose);
      if (access.ok()) H5Pset_chunk_cache(access.get(), 12421, kHdf5BlocksBytes, 0.75);
      dset_ = H5Dopen2(file_->id(), d_.name.c_str(), access.ok() ? access.get() : H5P_DEFAULT);
      if (dset_ < 0) hdf5_read_failed(*file_, d_.name, hdf5_error_text());
    }
    const std::size_t rank = coord_.size();
    Block b;
    b.id = id;
    b.start.resize(rank), b.count.resize(rank);
    std::uint64_t n = itemsize_;
    for (std::size_t k = 0; k < rank; ++k) {
      b.start[k] = coord_[k] / block_[k] * block_[k];
      b.count[k] = std::min<hsize_t>(block_[k], static_cast<hsize_t>(d_.shape[k]) - b.start[k]);
      n *= b.count[k];
    }
    while (!blocks_.empty() && (held_bytes_ + n > kHdf5BlocksBytes || blocks_.size() >= kHdf5MaxBlocks)) {
      held_bytes_ -= blocks_.back().bytes.size();
      held_.erase(blocks_.back().id);
      blocks_.pop_back();
    }
    b.bytes.resize(static_cast<std::size_t>(n));
    read_hdf5_block(*file_, d_.name, dset_, b.start, b.count, b.bytes);
    blocks_.push_front(std::move(b));
    held_[id] = blocks_.begin();
    held_bytes_ += n;
  }

  // Gives back the blocks, and libhdf5's chunks of the dataset (closed: its chunk cache goes with it).
  void drop() {
    blocks_.clear(), held_.clear(), held_bytes_ = 0;
    if (dset_ >= 0) H5Dclose(dset_);
    dset_ = -1;
  }

  static inline Hdf5ChunkCache* active_ = nullptr;  ///< the cache that holds blocks (under hdf5_lock)
  std::shared_ptr<const Hdf5File> file_;
  Hdf5Dataset d_;
  std::size_t itemsize_ = 0;
  hid_t dset_ = -1;
  std::vector<hsize_t> block_, grid_;  ///< a block's extent along each axis; blocks along each axis
  std::vector<hsize_t> coord_;
  std::list<Block> blocks_;  ///< the most recently used first
  std::unordered_map<std::uint64_t, std::list<Block>::iterator> held_;  ///< block id -> its place
  std::uint64_t held_bytes_ = 0;
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
