// loaders/hdf5_read.hpp — the values of a dataset read through libhdf5 (hdf5_read.cpp):
// chunked and filtered, compact, or never written.
//
//   Tensor t = hdf5_read_tensor(h5, dataset);   // lazy: reads at realize
#pragma once

#include <memory>
#include <span>

#include "loaders/hdf5_walk.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// Reads every value of `d` (which has a dtype) into `out` (d.nbytes bytes), made native
/// order. Throws Error(BadFile) "<file>: dataset 'x': cannot be read (libhdf5: ...)" when a
/// chunk is corrupt or missing.
void read_hdf5_dataset(const Hdf5File& file, const Hdf5Dataset& d, std::span<std::byte> out);

/// Reads every stored chunk of `d` (which has a dtype; chunked or compact) one at a time
/// and drops it, so memory stays at one chunk (validate). Throws as read_hdf5_dataset,
/// naming the dataset.
void check_hdf5_chunks(const Hdf5File& file, const Hdf5Dataset& d);

/// The lazy tensor of `d`, which has a dtype: read whole at realize, or chunk by chunk
/// when loops ask single elements of a large chunked dataset. Keeps `file` open.
Tensor hdf5_read_tensor(std::shared_ptr<const Hdf5File> file, const Hdf5Dataset& d);

}  // namespace tensor_inspect
