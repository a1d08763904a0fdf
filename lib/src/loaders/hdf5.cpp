// loaders/hdf5.cpp — HDF5 files (.h5, .hdf5; Keras' .weights.h5) as h5py writes them, read
// through libhdf5 (hdf5_walk.hpp gives the layout; hdf5_session.hpp the one door to it).
//
// One tensor per dataset, named by its path without the leading '/', in h5py's visit
// order; groups, attributes and links are no tensors. A contiguous, unfiltered dataset is
// a DISK view of the mapping at the offset libhdf5 gives (H5Dget_offset), checked to lie
// inside the file: nothing is copied, little-endian data is sliced as safetensors is,
// big-endian data swapped element by element as read. Chunked (gzip, shuffle, ...),
// compact and never-written datasets are read by libhdf5 at realize (hdf5_read.cpp).
// Datasets without a tinygrad dtype (compound, strings, ...) or whose data this tool does
// not reach (external files, virtual datasets, filters libhdf5 lacks) are listed without
// a dtype, and their values refused with Error(Unsupported) naming the dataset.
#include <cstring>
#include <string>

#include "loaders/formats.hpp"
#include "loaders/hdf5_read.hpp"
#include "loaders/hdf5_walk.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

namespace {

std::string hdf5_storage_note(const Hdf5Dataset& d) {
  std::string note;
  auto add = [&note](const std::string& s) { note += (note.empty() ? "" : "; ") + s; };
  if (d.type.big_endian) add("big-endian, converted to native order");
  if (d.layout == "chunked") {
    std::string filters;
    for (const std::string& f : d.filters) filters += (filters.empty() ? "" : "+") + f;
    add("chunked " + shape_repr(d.chunk) + " x " + std::to_string(d.chunks) + (filters.empty() ? "" : ", " + filters) +
        ", read by libhdf5 at realize");
  } else if (d.layout == "compact") {
    add("compact (in the object header), read by libhdf5 at realize");
  } else if (d.layout == "contiguous" && !d.data_offset && d.unsupported.empty()) {
    add("never written: the fill value");
  }
  return note;
}

TensorEntry hdf5_entry(const std::shared_ptr<const Hdf5File>& h5, const Hdf5Dataset& d) {
  TensorEntry e;
  e.name = d.name;
  e.stored_type = d.type.descr;
  e.shape = d.shape;
  e.nbytes = d.nbytes;
  e.note = hdf5_storage_note(d);
  if (!d.unsupported.empty()) {
    e.dtype = std::nullopt;
    const std::string why = h5->name() + ": dataset '" + d.name + "': " + d.unsupported;
    e.details_for_write().loader = [why]() -> Tensor { throw Error(ErrorCode::Unsupported, why); };
    e.details_for_write().layout_unknown = d.null_space;  // h5py's shape None: '-' in a listing, never ()
    return e;
  }
  e.dtype = d.type.dtype;
  if (d.data_offset) {
    e.offset = h5->base() + *d.data_offset;
    if (!d.type.big_endian) {
      e.file = h5->file();  // the bytes as they are: sliced at load()
      return e;
    }
    const std::shared_ptr<const MappedFile> file = h5->file();
    const std::uint64_t offset = e.offset, nbytes = e.nbytes;
    const DType dtype = *d.type.dtype;
    const Shape shape = d.shape;
    e.details_for_write().loader = [file, offset, nbytes, dtype, shape]() {
      return tensor_from_stored(Buffer::disk(file, offset, nbytes), dtype, shape, true);
    };
    return e;
  }
  e.details_for_write().loader = [h5, d]() { return hdf5_read_tensor(h5, d); };
  return e;
}

}  // namespace

bool sniff_hdf5(std::span<const std::byte> head) {
  return head.size() >= 8 && std::memcmp(head.data(), "\x89HDF\r\n\x1a\n", 8) == 0;
}

LoadedFile open_hdf5_image(std::shared_ptr<const MappedFile> file, std::uint64_t base, std::uint64_t size,
                           const std::string& name) {
  const std::shared_ptr<const Hdf5File> h5 = Hdf5File::open(file, base, size, name);
  LoadedFile loaded;
  loaded.path = file->name();
  loaded.file = file;
  for (const Hdf5Dataset& d : hdf5_datasets(*h5, throw_hdf5_fault(name))) loaded.tensors.push_back(hdf5_entry(h5, d));
  return loaded;
}

LoadedFile open_hdf5(std::shared_ptr<const MappedFile> file) {
  const std::uint64_t size = file->size();
  const std::string name = file->name();
  LoadedFile loaded = open_hdf5_image(std::move(file), 0, size, name);
  loaded.format = "hdf5";
  return loaded;
}

}  // namespace tensor_inspect
