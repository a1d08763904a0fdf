// loaders/pytorch_legacy.hpp — the one parser of PyTorch's legacy serialization (torch.save
// before 1.6, or with _use_new_zipfile_serialization=False), for loading and for validate.
//
// Byte layout (pytorch/pytorch torch/serialization.py, _legacy_save and _legacy_load, as
// Debian's torch 1.13 has them; the storage bytes from torch/csrc/serialization.cpp,
// THPStorage_writeFileRaw with save_size):
//   1. a pickle of the magic number 0x1950a86a20f9469cfc6c (LONG1 of 10 bytes),
//   2. a pickle of the protocol version, 1001,
//   3. a pickle of sys_info: {protocol_version, little_endian, type_sizes} (not needed:
//      torch.load ignores it, and writes every storage little-endian),
//   4. the pickle of the saved object: storages are persistent ids ('storage',
//      torch.<Type>Storage, key, location, numel, view_metadata), an nn.Module class
//      ('module', class, source file, source),
//   5. a pickle of the storage keys, a list of str (sorted when saved),
//   6. each storage in the order of that list: numel as an 8-byte little-endian int,
//      then numel * itemsize bytes, little-endian, packed (no alignment).
// Everything after the last storage is ignored by torch.load (validate warns).
// Caps (limits.hpp): each pickle is bounded as a zip's data.pkl is (Limits::pickle_values,
// pickle_memo, pickle_refs, pickle_depth), so the storage keys are too (one value each);
// the tensors and metadata listed by Limits::pickle_entries. The storages are read in place.
//
// Two policies over the same walk, as gguf_header.hpp has them: loading stops at the first
// fault (Error(BadFile) naming the file, the part and the byte), validate collects every
// fault and reads on where the layout allows.
//
//   LegacyFaults stop("old.pt");
//   LegacyLayout l = parse_pytorch_legacy(file->bytes(), stop);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "loaders/pickle.hpp"
#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// One fault of a legacy file, as validate records it.
struct LegacyFault {
  std::string rule;      ///< validate's rule name without "pytorch.": "magic", "storage_size"
  std::string place;     ///< "magic number", "storage keys", "storage '<key>'"
  std::uint64_t at;      ///< file byte
  std::string message;   ///< what is wrong, without the file name and byte
  bool warning = false;  ///< the file loads as torch.load reads it (bytes after the last storage)
};

/// The policy: the first fault throws (loading), or every fault goes to a sink (validate).
class LegacyFaults {
 public:
  /// Loading: a fault throws Error(BadFile) "<name>: <place>: <message> at byte <at>".
  explicit LegacyFaults(std::string name) : name_(std::move(name)) {}
  /// Validate: every fault goes to `sink`.
  LegacyFaults(std::string name, std::function<void(const LegacyFault&)> sink)
      : name_(std::move(name)), sink_(std::move(sink)) {}
  bool collecting() const { return static_cast<bool>(sink_); }
  const std::string& name() const { return name_; }
  /// Reports a fault; returns only when collecting (warnings never throw).
  void operator()(const LegacyFault& f) const {
    if (sink_) return sink_(f);
    if (f.warning) return;
    throw Error(ErrorCode::BadFile, name_ + ": " + f.place + ": " + f.message + " at byte " + std::to_string(f.at));
  }

 private:
  std::string name_;
  std::function<void(const LegacyFault&)> sink_;
};

/// One storage's bytes as the file lays them out.
struct LegacyStorage {
  std::string key;
  std::string type;  ///< "torch.FloatStorage", from the first persistent id naming the key
  std::uint64_t itemsize = 0;
  std::uint64_t numel = 0;        ///< as the persistent id says; the file's count equals it
  std::uint64_t count_at = 0;     ///< file byte of the 8-byte count
  std::uint64_t data_offset = 0;  ///< file byte of the first element
  std::uint64_t nbytes = 0;
};

/// What the parser read. `complete` is false when a collecting parse stopped at a fault
/// that leaves the rest unreadable.
struct LegacyLayout {
  Pickled object;                       ///< the saved object's pickle (part 4)
  std::vector<LegacyStorage> storages;  ///< in the order of the keys list (file order)
  std::uint64_t end = 0;                ///< file byte after the last storage
  /// [begin, end) file bytes of each pickle read whole, in file order (validate walks their opcodes).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pickles;
  bool complete = false;
};

/// True when `head` starts with the legacy magic number's pickle (LONG1 under PROTO 2 to 5,
/// after the FRAME opcode that protocols 4 and 5 put first).
bool sniff_pytorch_legacy(std::span<const std::byte> head);

/// Parses a legacy file from `bytes` (a whole file), reporting faults to `faults`: the
/// magic number and protocol version, the five pickles (pickle.cpp, which runs nothing),
/// each storage key named by the object's persistent ids once, with one type and numel,
/// each key listed once, and each storage's count and bytes inside the file.
LegacyLayout parse_pytorch_legacy(std::span<const std::byte> bytes, const LegacyFaults& faults);

/// Opens a legacy file: tensors over their storages' bytes in place (DISK views where the
/// layout allows), other values as metadata, as open_pytorch does for the zip format.
LoadedFile open_pytorch_legacy(std::shared_ptr<const MappedFile> file);

}  // namespace tensor_inspect
