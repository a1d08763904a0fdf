// loaders/pytorch.cpp — torch.save files (torch/serialization.py, _save and _load with
// the zip format that is the default since PyTorch 1.6).
//
// Byte layout:
//   1. a zip archive (see zip_archive.cpp), members STORED and 64-byte aligned:
//   2. "<archive>/data.pkl": a pickle (protocol 2) of the saved object; each storage is a
//      persistent id ('storage', torch.<Type>Storage, key, location, numel) and each tensor
//      torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
//      backward_hooks[, metadata]), offsets and strides in elements;
//   3. "<archive>/data/<key>": the storage's numel * itemsize bytes;
//   4. "<archive>/byteorder": "little" or "big" (absent before PyTorch 1.10: little);
//   5. "<archive>/version", "<archive>/.data/serialization_id": not needed here.
// The legacy format (before 1.6) starts with a pickled magic number instead of "PK":
// pytorch_legacy.cpp reads it. The pickle is run by pickle.cpp, which imports and calls
// nothing; its object becomes tensors and metadata in pytorch_objects.cpp.
#include <algorithm>
#include <cstring>
#include <optional>

#include "loaders/formats.hpp"
#include "loaders/pickle.hpp"
#include "loaders/pytorch_legacy.hpp"
#include "loaders/pytorch_objects.hpp"
#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

class PytorchReader {
 public:
  explicit PytorchReader(std::shared_ptr<const MappedFile> file)
      : file_(std::move(file)), zip_(std::make_shared<ZipArchive>(file_)) {}

  LoadedFile read() {
    const ZipMember* pkl = nullptr;
    for (const ZipMember& m : zip_->members())
      if (m.name.ends_with("/data.pkl") && std::count(m.name.begin(), m.name.end(), '/') == 1) {
        pkl = &m;
        break;
      }
    if (!pkl)
      throw Error(ErrorCode::BadFile, file_->name() + ": no '<archive>/data.pkl' member: not a torch.save archive");
    prefix_ = pkl->name.substr(0, pkl->name.size() - std::string_view("data.pkl").size());
    const bool big_endian = read_byteorder();

    const std::string pickle_name = file_->name() + ": " + pkl->name;
    std::vector<std::byte> owned;
    std::span<const std::byte> bytes;
    if (pkl->stored) {
      file_->fetch(pkl->data_offset, pkl->size);  // one request for a remote file, not one per read
      bytes = file_->bytes().subspan(static_cast<std::size_t>(pkl->data_offset), static_cast<std::size_t>(pkl->size));
    } else {
      // A pickle is read whole, inflated as its bytes arrive; the pickle caps bound
      // what it may build.
      if (pkl->size > limits().pickle_bytes)
        throw limit_error("pickle_bytes", pickle_name + ": compressed pickle of " + std::to_string(pkl->size) +
                                              " bytes is over the limit of " + std::to_string(limits().pickle_bytes) +
                                              limit_hint("pickle_bytes"),
                          pickle_name);
      owned = zip_->read_all(*pkl);
      bytes = owned;
    }
    const Pickled pickled = read_pickle(bytes, pickle_name);

    LoadedFile out;
    out.path = file_->name();
    out.format = "pytorch";
    out.file = file_;
    TorchStorages storages;
    storages.file = file_;
    storages.zip = zip_;
    storages.big_endian = big_endian;
    storages.find = [this](const std::string& key) -> std::optional<ZipMember> {
      const ZipMember* m = zip_->find(prefix_ + "data/" + key);
      if (!m) return std::nullopt;
      return *m;
    };
    storages.missing = [this](const std::string& key) {
      return "no member '" + prefix_ + "data/" + key + "' in the archive";
    };
    torch_add_object(pickled, pickle_name, storages, out);
    return out;
  }

 private:
  bool read_byteorder() {
    const ZipMember* m = zip_->find(prefix_ + "byteorder");
    if (!m) return false;
    const std::vector<std::byte> text = zip_->read_prefix(*m, 16);
    const std::string order(reinterpret_cast<const char*>(text.data()), text.size());
    if (order == "big") return true;
    if (order != "little")
      throw Error(ErrorCode::BadFile, file_->name() + ": member '" + m->name + "' at byte " +
                                          std::to_string(m->data_offset) + " says '" + order +
                                          "', expected 'little' or 'big'");
    return false;
  }

  std::shared_ptr<const MappedFile> file_;
  std::shared_ptr<ZipArchive> zip_;
  std::string prefix_;
};

}  // namespace

bool sniff_pytorch(std::span<const std::byte> head) {
  if (sniff_pytorch_legacy(head)) return true;
  bool truncated = false;
  const std::string first = zip_first_name(head, &truncated);
  if (first.empty()) return false;
  if (truncated) return first.find('/') != std::string::npos;
  return first.ends_with("/data.pkl");
}

LoadedFile open_pytorch(std::shared_ptr<const MappedFile> file) {
  const auto head = file->bytes().first(std::min<std::size_t>(file->size(), 64));
  if (sniff_pytorch_legacy(head)) return open_pytorch_legacy(std::move(file));
  return PytorchReader(std::move(file)).read();
}

}  // namespace tensor_inspect
