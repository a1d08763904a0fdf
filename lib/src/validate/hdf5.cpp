// validate/hdf5.cpp — HDF5 files and .keras archives, by the loader's own walk
// (loaders/hdf5_walk.hpp) collecting every fault: libhdf5 opens the file (hdf5.signature:
// a superblock it reads), its groups can be visited (hdf5.structure), each dataset's
// datatype, dataspace and layout can be read (hdf5.dataset, hdf5.shape), contiguous data
// lies inside the file (hdf5.layout), caps (hdf5.limit); then every stored chunk libhdf5
// decodes (chunked, filtered; compact data) is read, one at a time, so a corrupt chunk is
// found (hdf5.data).
// Datasets the tool cannot show (compound, strings, external, missing filters) are notes
// (hdf5.unsupported). A .keras archive: the zip rules (check_zip "keras"), then its
// model.weights.h5 member (keras.layout when missing; a compressed one is a note).
#include "loaders/formats.hpp"
#include "loaders/hdf5_read.hpp"
#include "loaders/hdf5_walk.hpp"
#include "loaders/zip_archive.hpp"
#include "tensor_inspect/limits.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {

void check_hdf5(const std::shared_ptr<const MappedFile>& file, std::uint64_t base, std::uint64_t size,
                const std::string& name, Findings& f) {
  std::shared_ptr<const Hdf5File> h5;
  try {
    h5 = Hdf5File::open(file, base, size, name);
  } catch (const Error& e) {
    const std::string what = e.what();
    const std::string message =
        what.compare(0, name.size() + 2, name + ": ") == 0 ? what.substr(name.size() + 2) : what;
    if (cannot_show(e))
      f.note("unsupported", "", std::nullopt, message);
    else
      f.error("signature", "superblock", base, message);
    return;
  }
  const Hdf5Faults collect = [&f, base](const Hdf5Fault& x) {
    f.error(x.rule, x.place, x.at ? std::optional<std::uint64_t>(base + *x.at) : std::nullopt, x.message);
  };
  for (const Hdf5Dataset& d : hdf5_datasets(*h5, collect)) {
    const std::string place = "dataset '" + d.name + "'";
    if (!d.unsupported.empty()) {
      f.note("unsupported", place, std::nullopt, d.unsupported);
      continue;
    }
    if (d.data_offset || d.nbytes == 0) continue;  // in place: inside the file, checked by the walk
    if (d.layout == "contiguous") continue;        // never written: the fill value, nothing stored
    try {
      check_hdf5_chunks(*h5, d);
    } catch (const Error& e) {
      const std::string what = e.what();
      const std::string prefix = name + ": " + place + ": ";
      f.error("data", place, std::nullopt,
              what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : what);
    }
  }
}

void check_keras(const std::shared_ptr<const MappedFile>& file, Findings& f) {
  check_zip(file, "keras", f);
  if (f.errors() > 0) return;
  const ZipArchive zip(file);
  const ZipMember* m = zip.find("model.weights.h5");
  if (!m) {
    f.error("layout", "archive", std::nullopt,
            "the archive holds no member 'model.weights.h5' (Keras writes its weights there)");
    return;
  }
  if (!m->stored) {
    f.note("unsupported", "member 'model.weights.h5'", m->data_offset,
           zip_method_name(m->method) + ": this tool reads HDF5 in place, from a STORED member as Keras writes it");
    return;
  }
  Findings inner(f.all(), "hdf5", "member 'model.weights.h5'");
  check_hdf5(file, m->data_offset, m->size, file->name() + ":model.weights.h5", inner);
}

}  // namespace tensor_inspect::validate
