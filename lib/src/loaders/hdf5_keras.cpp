// loaders/hdf5_keras.cpp — Keras 3's .keras archives (keras/src/saving/saving_lib.py,
// _save_model_to_fileobj): a zip written by Python's zipfile with its default method,
// STORED, holding
//   1. metadata.json (first: keras_version, date_saved),
//   2. config.json (the model's configuration),
//   3. model.weights.h5: an HDF5 file (H5IOStore) whose group "<path>/vars" holds each
//      object's variables as datasets "0", "1", ... ("layers/dense/vars/0" is a Dense
//      layer's kernel, ".../vars/1" its bias; optimizer/vars/... the optimizer's state),
//   4. assets/... when a layer saves files.
// The weights member is read in place: libhdf5 opens it as a file image over the mapping
// (hdf5_session.hpp), so nothing is extracted and contiguous datasets are DISK views of
// the .keras file itself. A DEFLATED weights member (a .keras re-zipped by hand) is
// refused, naming the member: unzip it and open the .h5.
#include <string>

#include "loaders/formats.hpp"
#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

namespace {
constexpr const char* kKerasWeights = "model.weights.h5";
}

bool sniff_keras(std::span<const std::byte> head) {
  bool truncated = false;
  const std::string first = zip_first_name(head, &truncated);
  return sniff_zip(head) && !truncated && (first == "metadata.json" || first == "config.json");
}

const ZipMember& keras_weights_member(const ZipArchive& zip) {
  const std::string& name = zip.file()->name();
  const ZipMember* m = zip.find(kKerasWeights);
  if (!m) {
    if (zip.find("model.weights.npz"))
      throw Error(ErrorCode::Unsupported, name +
                                              ": the archive holds model.weights.npz (Keras' npz weights store of "
                                              "pickled dicts), which this tool does not read");
    throw Error(ErrorCode::BadFile,
                name + ": the archive holds no member 'model.weights.h5' (Keras writes its weights there)");
  }
  if (!m->stored)
    throw Error(ErrorCode::Unsupported,
                name + ": member 'model.weights.h5' (data at byte " + std::to_string(m->data_offset) + ") is " +
                    zip_method_name(m->method) +
                    ": HDF5 is read in place, from a STORED member as Keras writes it; unzip the "
                    "archive and open model.weights.h5");
  return *m;
}

LoadedFile open_keras(std::shared_ptr<const MappedFile> file) {
  const ZipArchive zip(file);
  const ZipMember& m = keras_weights_member(zip);
  LoadedFile loaded = open_hdf5_image(file, m.data_offset, m.size, file->name() + ":" + kKerasWeights);
  for (const ZipMember& other : zip.members())
    if (other.name != kKerasWeights) loaded.metadata.push_back({other.name, "member", "not weights: skipped"});
  loaded.format = "keras";
  return loaded;
}

}  // namespace tensor_inspect
