// loaders/pytorch_objects.hpp — the object a torch.save pickle holds, as a listing:
// tensors (torch._utils._rebuild_tensor_v2 over a storage persistent id) become entries
// over their storage's bytes, every other leaf metadata. One reader for both layouts:
// the zip archive (pytorch.cpp: a storage is the member "<archive>/data/<key>") and the
// legacy stream (pytorch_legacy.cpp: a storage is a run of raw bytes after the pickles).
//
//   TorchStorages s{file, zip, [&](const std::string& key) { return zip->find(...); }, ...};
//   torch_add_object(pickled, "m.pt: archive/data.pkl", s, loaded);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "loaders/pickle.hpp"
#include "loaders/zip_archive.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// Where a file's storages lie.
struct TorchStorages {
  std::shared_ptr<const MappedFile> file;
  std::shared_ptr<ZipArchive> zip;  ///< nullptr when every storage lies uncompressed in `file` (legacy)
  /// The storage of `key` as a member (the legacy layout makes a STORED one at its bytes), or nullopt.
  std::function<std::optional<ZipMember>(const std::string& key)> find;
  /// Why a key has no storage, for messages: "no member 'archive/data/0' in the archive".
  std::function<std::string(const std::string& key)> missing;
  bool big_endian = false;  ///< the storages' byte order (the zip's "byteorder" member)
};

/// A torch dtype as its pickle names it (the global "torch.float8_e4m3fn"): its name, the
/// dtype values come out as (nullopt where there is none here: complex, quantized, fnuz
/// float8), and bytes per element (c10/core/ScalarType.h).
struct TorchDType {
  std::string_view name;  ///< "float8_e4m3fn"
  std::optional<DType> dtype;
  std::uint64_t itemsize;
};
/// The dtype of a global "torch.<name>", or nullptr when it names none of torch's dtypes.
const TorchDType* torch_dtype_of_global(std::string_view global);

/// Bytes per element of a torch storage type by its global name ("torch.FloatStorage": 4),
/// also of the types tinygrad has no dtype for (complex, quantized); 0 for an unknown name.
std::uint64_t torch_storage_itemsize(std::string_view type);

/// Adds every leaf of `pickled` (flattened, pytorch_flatten.hpp) to `out`: tensors checked
/// against their storages (a view reaching past its storage, a storage past its bytes,
/// a missing storage), plain values and objects as metadata, globals outside torch's
/// weights_only allow-list as warnings. `pickle_name` names the pickle in messages.
/// Throws Error(BadFile) "<pickle_name>: tensor 'w': ... at byte N".
void torch_add_object(const Pickled& pickled, const std::string& pickle_name, const TorchStorages& storages,
                      LoadedFile& out);

}  // namespace tensor_inspect
