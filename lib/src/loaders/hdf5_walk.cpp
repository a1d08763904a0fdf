// loaders/hdf5_walk.cpp — the datasets of an HDF5 file from its metadata (hdf5_walk.hpp).
#include "loaders/hdf5_walk.hpp"

#include <string>
#include <utility>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

/// HDF5's own bound on a dataspace's rank (H5S_MAX_RANK): a format rule, not a cap.
constexpr int kHdf5MaxRank = 32;

struct VisitState {
  std::vector<std::string> datasets;
  std::uint64_t objects = 0;
  bool over_objects = false;
  std::string long_name;  ///< the first name past hdf5_name_bytes (cut)
};

// Called by libhdf5: must not throw (a C frame is between it and us).
herr_t visit_hdf5_object(hid_t, const char* name, const H5O_info_t* info, void* data) noexcept {
  auto* state = static_cast<VisitState*>(data);
  if (++state->objects > limits().hdf5_objects) {
    state->over_objects = true;
    return 1;  // stops the visit
  }
  if (!name || !info || info->type != H5O_TYPE_DATASET) return 0;
  try {
    const std::string n(name);
    if (n.size() > limits().hdf5_name_bytes) {
      state->long_name = n.substr(0, 64);
      return 1;
    }
    state->datasets.push_back(n);
  } catch (...) {
    return -1;  // out of memory: the visit fails
  }
  return 0;
}

const char* hdf5_filter_name(H5Z_filter_t id) {
  switch (id) {
    case H5Z_FILTER_DEFLATE:
      return "gzip";
    case H5Z_FILTER_SHUFFLE:
      return "shuffle";
    case H5Z_FILTER_FLETCHER32:
      return "fletcher32";
    case H5Z_FILTER_SZIP:
      return "szip";
    case H5Z_FILTER_NBIT:
      return "nbit";
    case H5Z_FILTER_SCALEOFFSET:
      return "scaleoffset";
    case 32000:
      return "lzf";  // h5py's own filter, a plugin libhdf5 does not ship
    default:
      return nullptr;
  }
}

bool hdf5_checked_mul(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}

class DatasetReader {
 public:
  DatasetReader(const Hdf5File& file, const Hdf5Faults& fault) : file_(file), fault_(fault) {}

  /// The dataset's description, or nullopt after a fault (recorded by the policy).
  std::optional<Hdf5Dataset> read(const std::string& name) {
    Hdf5Dataset d;
    d.name = name;
    place_ = "dataset '" + name + "'";
    Hdf5Id dset(H5Dopen2(file_.id(), name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dset.ok()) return fail("dataset", "cannot be opened (" + hdf5_error_text() + ")");
    Hdf5Id type(H5Dget_type(dset.get()), H5Tclose);
    if (!type.ok()) return fail("dataset", "its datatype cannot be read (" + hdf5_error_text() + ")");
    d.type = hdf5_type(type.get());
    d.unsupported = d.type.unsupported;
    if (!read_shape(dset.get(), d)) return std::nullopt;
    Hdf5Id dcpl(H5Dget_create_plist(dset.get()), H5Pclose);
    if (!dcpl.ok()) return fail("dataset", "its creation properties cannot be read (" + hdf5_error_text() + ")");
    if (!read_layout(dset.get(), dcpl.get(), d)) return std::nullopt;
    H5Eclear2(H5E_DEFAULT);
    return d;
  }

 private:
  // `limit`: the cap hit (a Limits field), for rule "limit".
  std::nullopt_t fail(const std::string& rule, const std::string& message,
                      std::optional<std::uint64_t> at = std::nullopt, std::string limit = {}) {
    fault_(Hdf5Fault{rule, place_, at, message, std::move(limit)});
    return std::nullopt;
  }

  bool read_shape(hid_t dset, Hdf5Dataset& d) {
    Hdf5Id space(H5Dget_space(dset), H5Sclose);
    if (!space.ok()) return (fail("dataset", "its dataspace cannot be read (" + hdf5_error_text() + ")"), false);
    const H5S_class_t kind = H5Sget_simple_extent_type(space.get());
    if (kind == H5S_NULL) {
      // h5py.Empty: a dataset with a dtype and no shape at all, not even ().
      if (d.unsupported.empty()) d.unsupported = "a null dataspace (h5py.Empty) holds no array";
      d.null_space = true;
      return true;
    }
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0 || rank > kHdf5MaxRank)
      return (fail("shape", "its dataspace has rank " + std::to_string(rank) + " (HDF5 allows 0 to 32)"), false);
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    if (rank > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0)
      return (fail("dataset", "its dimensions cannot be read (" + hdf5_error_text() + ")"), false);
    std::uint64_t numel = 1;
    bool overflow = false;
    for (const hsize_t n : dims) {
      if (n > static_cast<hsize_t>(INT64_MAX)) overflow = true;
      d.shape.push_back(static_cast<std::int64_t>(n));
    }
    for (const hsize_t n : dims) overflow = overflow || !hdf5_checked_mul(numel, n, numel);
    const std::uint64_t itemsize = d.type.dtype ? dtype_info(*d.type.dtype).itemsize : 0;
    if (overflow || !hdf5_checked_mul(numel, itemsize, d.nbytes) || d.nbytes > static_cast<std::uint64_t>(INT64_MAX))
      return (fail("shape", "shape " + shape_repr(d.shape) + " of " + d.type.descr + " overflows 64 bits"), false);
    return true;
  }

  bool read_layout(hid_t dset, hid_t dcpl, Hdf5Dataset& d) {
    if (H5Pget_external_count(dcpl) > 0) {
      // Raw data in other files, named by the file: never opened.
      if (d.unsupported.empty()) d.unsupported = "its data lies in external files, which this tool does not open";
      d.layout = "external";
      return true;
    }
    const H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_VIRTUAL) {
      if (d.unsupported.empty())
        d.unsupported = "a virtual dataset maps other datasets and files, which this tool does not open";
      d.layout = "virtual";
      return true;
    }
    if (layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED && layout != H5D_COMPACT)
      return (fail("dataset", "its layout cannot be read (" + hdf5_error_text() + ")"), false);
    d.layout = layout == H5D_CONTIGUOUS ? "contiguous" : layout == H5D_CHUNKED ? "chunked" : "compact";
    const int nfilters = H5Pget_nfilters(dcpl);
    for (int i = 0; i < nfilters; ++i) {
      unsigned flags = 0, config = 0;
      std::size_t nvalues = 0;
      char label[64] = {};
      const H5Z_filter_t id =
          H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues, nullptr, sizeof label, label, &config);
      const char* known = hdf5_filter_name(id);
      const std::string fname = known ? known : "filter " + std::to_string(id);
      d.filters.push_back(fname);
      if (id < 0 || H5Zfilter_avail(id) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        if (d.unsupported.empty())
          d.unsupported =
              "its data passes the " + fname + " filter (" + std::to_string(id) + "), which libhdf5 here cannot decode";
      }
    }
    if (layout == H5D_CHUNKED && !read_chunks(dcpl, d)) return false;
    if (layout != H5D_CONTIGUOUS || !d.type.dtype || !d.unsupported.empty()) return true;
    const haddr_t at = H5Dget_offset(dset);
    H5Eclear2(H5E_DEFAULT);
    if (at == HADDR_UNDEF) return true;  // never written: libhdf5 gives the fill value
    if (at > file_.size() || d.nbytes > file_.size() - at)
      return (fail("layout",
                   "contiguous data at byte " + std::to_string(at) + " + " + std::to_string(d.nbytes) +
                       " bytes ends past the file's end (" + std::to_string(file_.size()) + " bytes)",
                   at),
              false);
    d.data_offset = at;
    return true;
  }

  bool read_chunks(hid_t dcpl, Hdf5Dataset& d) {
    std::vector<hsize_t> chunk(d.shape.size() + 1);
    const int rank = H5Pget_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
    if (rank != static_cast<int>(d.shape.size()))
      return (fail("layout",
                   "its chunk rank " + std::to_string(rank) + " is not its rank " + std::to_string(d.shape.size())),
              false);
    std::uint64_t chunks = 1, chunk_elements = 1;
    for (std::size_t i = 0; i < d.shape.size(); ++i) {
      if (chunk[i] == 0) return (fail("layout", "chunk dimension " + std::to_string(i) + " is 0"), false);
      d.chunk.push_back(static_cast<std::int64_t>(chunk[i]));
      const std::uint64_t dim = static_cast<std::uint64_t>(d.shape[i]);
      chunks = dim == 0 ? 0 : hdf5_checked_mul(chunks, (dim + chunk[i] - 1) / chunk[i], chunks) ? chunks : UINT64_MAX;
      if (!hdf5_checked_mul(chunk_elements, chunk[i], chunk_elements)) chunk_elements = UINT64_MAX;
    }
    d.chunks = chunks;
    const std::uint64_t itemsize = d.type.dtype ? dtype_info(*d.type.dtype).itemsize : 1;
    std::uint64_t chunk_bytes = 0;
    if (!hdf5_checked_mul(chunk_elements, itemsize, chunk_bytes)) chunk_bytes = UINT64_MAX;
    if (chunks > limits().hdf5_chunks)
      return (fail("limit", "its shape " + shape_repr(d.shape) + " spans " + std::to_string(chunks) + " chunks of " +
                                shape_repr(d.chunk) + ", more than " + std::to_string(limits().hdf5_chunks) +
                                limit_hint("hdf5_chunks"),
                   std::nullopt, "hdf5_chunks"),
              false);
    if (chunk_bytes > limits().hdf5_chunk_bytes)
      return (fail("limit", "its chunks of " + shape_repr(d.chunk) + " hold " + std::to_string(chunk_bytes) +
                                " bytes, more than " + std::to_string(limits().hdf5_chunk_bytes) +
                                limit_hint("hdf5_chunk_bytes"),
                   std::nullopt, "hdf5_chunk_bytes"),
              false);
    return true;
  }

  const Hdf5File& file_;
  const Hdf5Faults& fault_;
  std::string place_;
};

}  // namespace

Hdf5Faults throw_hdf5_fault(const std::string& name) {
  return [name](const Hdf5Fault& f) {
    throw Error(f.limit.empty() ? ErrorCode::BadFile : ErrorCode::LimitExceeded,
                name + ": " + (f.place.empty() ? "" : f.place + ": ") + f.message +
                    (f.at ? " (at byte " + std::to_string(*f.at) + ")" : ""),
                {name, "", f.at, f.limit});
  };
}

std::vector<Hdf5Dataset> hdf5_datasets(const Hdf5File& file, const Hdf5Faults& fault) {
  auto lock = hdf5_lock();
  VisitState state;
  const herr_t visited = H5Ovisit2(file.id(), H5_INDEX_NAME, H5_ITER_INC, visit_hdf5_object, &state, H5O_INFO_BASIC);
  if (state.over_objects)
    fault(Hdf5Fault{"limit", "", std::nullopt,
                    "the file holds more than " + std::to_string(limits().hdf5_objects) + " groups and datasets" +
                        limit_hint("hdf5_objects"),
                    "hdf5_objects"});
  else if (!state.long_name.empty())
    fault(Hdf5Fault{"limit", "dataset '" + state.long_name + "...'", std::nullopt,
                    "its name is longer than " + std::to_string(limits().hdf5_name_bytes) + " bytes" +
                        limit_hint("hdf5_name_bytes"),
                    "hdf5_name_bytes"});
  else if (visited < 0)
    fault(Hdf5Fault{"structure", "", std::nullopt, "its groups cannot be read (" + hdf5_error_text() + ")", {}});
  H5Eclear2(H5E_DEFAULT);
  std::vector<Hdf5Dataset> out;
  DatasetReader reader(file, fault);
  for (const std::string& name : state.datasets)
    if (std::optional<Hdf5Dataset> d = reader.read(name)) out.push_back(std::move(*d));
  return out;
}

void probe_hdf5_structures(const Hdf5File& file) {
  const std::vector<Hdf5Dataset> datasets = hdf5_datasets(file, [](const Hdf5Fault&) {});
  auto lock = hdf5_lock();
  for (const Hdf5Dataset& d : datasets) {
    if (d.layout != "chunked") continue;
    Hdf5Id dset(H5Dopen2(file.id(), d.name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dset.ok()) continue;
    Hdf5Id space(H5Dget_space(dset.get()), H5Sclose);
    hsize_t allocated = 0;
    if (space.ok()) (void)H5Dget_num_chunks(dset.get(), space.get(), &allocated);
  }
}

}  // namespace tensor_inspect
