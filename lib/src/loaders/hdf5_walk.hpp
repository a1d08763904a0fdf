// loaders/hdf5_walk.hpp — what an HDF5 file holds, read from its metadata alone: every
// dataset, named by its path without the leading '/' (h5py's names), with its dtype, shape
// and storage. One walk serves the loader (the first fault throws) and validate (every
// fault collected, the walk carried on), so the two never disagree.
//
// HDF5 layout (HDF5 File Format Specification 3.0), as far as this tool relies on it:
//   1. the superblock, with the signature "\x89HDF\r\n\x1a\n" at byte 0 (h5py writes no
//      user block; libhdf5 also looks at 512, 1024, ...), then the root group's address;
//   2. groups hold links to groups and datasets (objects), each object with a header of
//      messages: its datatype, dataspace (scalar, simple with dims, or null), layout
//      (compact: data in the header; contiguous: one address and size; chunked: a B-tree
//      of chunks, each passed through the filter pipeline: gzip, shuffle, ...), attributes;
//   3. the raw data, where the layout points.
// libhdf5 parses all of it; the walk asks it (H5Ovisit2 in name order, as h5py's visit)
// and checks what it answers: ranks, sizes and offsets against the file, caps.
//
//   auto h5 = Hdf5File::open(file, 0, file->size(), file->name());
//   for (const Hdf5Dataset& d : hdf5_datasets(*h5, throw_hdf5_fault)) ...
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "loaders/hdf5_session.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

/// An HDF5 datatype as h5py's numpy dtype: its descr ("<f4", ">i8", "|b1"), or the type
/// class ("compound", "string") with `unsupported` saying why it has no dtype.
struct Hdf5Type {
  std::string descr;
  std::optional<DType> dtype;
  bool big_endian = false;
  std::string unsupported;
};
/// The dtype of an HDF5 datatype (loaders/hdf5_dtype.cpp). Call under hdf5_lock().
Hdf5Type hdf5_type(hid_t type);

/// One dataset, as its object header describes it.
struct Hdf5Dataset {
  std::string name;  ///< its path without the leading '/' ("layers/dense/vars/0")
  Hdf5Type type;
  Shape shape;               ///< () for a scalar dataspace
  bool null_space = false;   ///< a null dataspace (h5py.Empty): no shape at all, not even ()
  std::uint64_t nbytes = 0;  ///< prod(shape) * itemsize (0 without a dtype)
  std::string layout;        ///< "contiguous", "chunked" or "compact"
  /// Where the values lie as they are, in the image (contiguous, allocated, unfiltered,
  /// inside the file): read in place. Unset where libhdf5 must read them.
  std::optional<std::uint64_t> data_offset;
  Shape chunk;                       ///< a chunked dataset's chunk shape
  std::uint64_t chunks = 0;          ///< chunks the shape spans (allocated or not)
  std::vector<std::string> filters;  ///< "gzip", "shuffle", ... in pipeline order
  std::string unsupported;           ///< why the values cannot be shown; empty when they can
};

/// One fault the walk found: a rule name ("dataset", "layout", "shape", "limit",
/// "structure"), the place ("dataset 'a/b'"), the byte offset in the image when known.
struct Hdf5Fault {
  std::string rule;
  std::string place;
  std::optional<std::uint64_t> at;
  std::string message;
  std::string limit;  ///< the cap hit (a Limits field), for rule "limit": the loader's Error is LimitExceeded
};
/// The policy: throw (the loader) or record and return (validate: the walk goes on,
/// leaving the faulty dataset out).
using Hdf5Faults = std::function<void(const Hdf5Fault&)>;
/// The loader's policy for a file named `name`: Error(BadFile) "<name>: <place>: <message>".
Hdf5Faults throw_hdf5_fault(const std::string& name);

/// Every dataset of the file in h5py's visit order (names in byte order, depth first; an
/// object linked twice once). Groups, attributes and links are no tensors. A dataset
/// past a cap (Limits::hdf5_objects, hdf5_name_bytes, hdf5_chunks, hdf5_chunk_bytes) is
/// a fault of rule "limit" naming it.
std::vector<Hdf5Dataset> hdf5_datasets(const Hdf5File& file, const Hdf5Faults& fault);

/// Makes every libhdf5 call the loader and validate make on the file's structures (the
/// walk above, and a count of each chunked dataset's allocated chunks, which reads its
/// whole chunk index), ignoring faults: Hdf5File::open runs it in a child process
/// (child_probe.hpp), where a crash of libhdf5 on a malformed file costs only the child.
void probe_hdf5_structures(const Hdf5File& file);

}  // namespace tensor_inspect
