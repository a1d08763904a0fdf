// loaders/pytorch_legacy.cpp — PyTorch's legacy serialization, parsed once for loading and
// validate (layout in pytorch_legacy.hpp), and opened as pytorch.cpp opens the zip format.
#include "loaders/pytorch_legacy.hpp"

#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "loaders/pytorch_objects.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

using Kind = PickleValue::Kind;

// The magic number 0x1950a86a20f9469cfc6c as LONG1 writes it: little-endian, 10 bytes.
constexpr unsigned char kLegacyMagicLe[] = {0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
constexpr std::int64_t kLegacyProtocolVersion = 1001;

/// What the object's persistent ids say of one storage key.
struct StorageUse {
  std::string type;
  std::uint64_t numel = 0;
  std::uint64_t at = 0;  ///< byte of the first persistent id naming it
};

class LegacyParser {
 public:
  LegacyParser(std::span<const std::byte> bytes, const LegacyFaults& faults) : bytes_(bytes), fault_(faults) {}

  LegacyLayout run() {
    std::optional<Pickled> magic = next("magic number");
    if (!magic) return std::move(out_);
    if (magic->root->kind != Kind::BigInt || magic->root->text.size() != sizeof kLegacyMagicLe ||
        std::memcmp(magic->root->text.data(), kLegacyMagicLe, sizeof kLegacyMagicLe) != 0)
      return stop({"magic", "magic number", 0,
                   "the first pickle holds a " + pickle_type_name(*magic->root) +
                       ", not the magic number 0x1950a86a20f9469cfc6c"});
    const std::uint64_t version_at = pos_;
    std::optional<Pickled> version = next("protocol version");
    if (!version) return std::move(out_);
    if (version->root->kind != Kind::Int || version->root->integer != kLegacyProtocolVersion)
      fault_({"protocol_version", "protocol version", version_at,
              "protocol version is " +
                  (version->root->kind == Kind::Int ? std::to_string(version->root->integer)
                                                    : "a " + pickle_type_name(*version->root)) +
                  ", torch.load reads 1001"});
    if (!next("sys_info")) return std::move(out_);
    std::optional<Pickled> object = next("object");
    if (!object) return std::move(out_);
    out_.object = std::move(*object);
    collect_uses();
    const std::uint64_t keys_at = pos_;
    std::optional<Pickled> keys = next("storage keys");
    if (!keys) return std::move(out_);
    if (!read_storages(*keys->root, keys_at)) return std::move(out_);
    out_.end = pos_;
    if (pos_ < bytes_.size())
      fault_({"trailing", "after the storages", pos_,
              std::to_string(bytes_.size() - pos_) + " bytes after the last storage, which torch.load ignores", true});
    out_.complete = true;
    return std::move(out_);
  }

 private:
  LegacyLayout stop(const LegacyFault& f) {
    fault_(f);
    return std::move(out_);
  }

  /// The next pickle, or nullopt (after its fault, when collecting) when it cannot be run.
  std::optional<Pickled> next(const std::string& part) {
    const std::uint64_t at = pos_;
    try {
      Pickled p = read_pickle(bytes_.subspan(static_cast<std::size_t>(at)), fault_.name() + ": " + part,
                              PickleLimits::current(), at);
      pos_ = at + p.end;
      out_.pickles.emplace_back(at, pos_);
      return std::optional<Pickled>(std::move(p));
    } catch (const Error& e) {
      if (!fault_.collecting()) throw;
      std::string what = e.what();
      const std::string prefix = fault_.name() + ": " + part + ": ";
      if (what.compare(0, prefix.size(), prefix) == 0) what = what.substr(prefix.size());
      fault_({"pickle", part, at, what});
      return std::nullopt;
    }
  }

  /// Every ('storage', type, key, location, numel, ...) persistent id of the object: one
  /// type and numel per key, as torch.load makes one storage per key.
  void collect_uses() {
    for (const auto& v : out_.object.arena) {
      if (v->kind != Kind::PersistentId || v->items.size() < 5 || v->items[0]->kind != Kind::Str ||
          v->items[0]->text != "storage")
        continue;
      const PickleValue& type = *v->items[1];
      const PickleValue& key = *v->items[2];
      const PickleValue& numel = *v->items[4];
      if (type.kind != Kind::Global || key.kind != Kind::Str || numel.kind != Kind::Int || numel.integer < 0)
        continue;  // the tensor that uses it says what is wrong (pytorch_objects.cpp)
      const StorageUse use{type.text, static_cast<std::uint64_t>(numel.integer), v->at};
      auto [it, added] = uses_.emplace(key.text, use);
      if (!added && (it->second.type != use.type || it->second.numel != use.numel) &&
          conflicts_.insert(key.text).second)
        fault_({"storage_conflict", "storage '" + key.text + "'", v->at,
                "named as " + use.type + " of " + std::to_string(use.numel) + " elements, but as " + it->second.type +
                    " of " + std::to_string(it->second.numel) + " at byte " + std::to_string(it->second.at)});
    }
  }

  /// The keys list, then each storage's count and bytes in its order.
  bool read_storages(const PickleValue& keys, std::uint64_t keys_at) {
    if (keys.kind != Kind::List && keys.kind != Kind::Tuple) {
      fault_({"storage_keys", "storage keys", keys_at,
              "the storage keys are a " + pickle_type_name(keys) + ", not a list"});
      return false;
    }
    std::set<std::string> listed;
    for (const PickleRef& k : keys.items) {
      if (k->kind != Kind::Str) {
        fault_({"storage_keys", "storage keys", k->at, "a storage key is a " + pickle_type_name(*k) + ", not a str"});
        return false;
      }
      const std::string place = "storage '" + k->text + "'";
      if (!listed.insert(k->text).second) {
        fault_({"storage_keys", place, k->at, "the key is listed twice"});
        return false;
      }
      auto use = uses_.find(k->text);
      if (use == uses_.end()) {
        fault_({"storage_keys", place, k->at,
                "the key is listed, but no persistent id of the object names it: "
                "its element size, and so where the next storage starts, is unknown"});
        return false;
      }
      LegacyStorage s{k->text, use->second.type, torch_storage_itemsize(use->second.type), use->second.numel, pos_, 0,
                      0};
      if (s.itemsize == 0) {
        fault_({"storage_type", place, use->second.at,
                "storage type " + s.type +
                    " is not one torch.save writes: "
                    "its element size, and so where the next storage starts, is unknown"});
        return false;
      }
      if (bytes_.size() - pos_ < 8) {
        fault_({"truncated", place, pos_, "the file ends before the storage's 8-byte element count"});
        return false;
      }
      fetch_bytes(bytes_.subspan(static_cast<std::size_t>(pos_), 8));  // a remote file: only what is read arrives
      std::uint64_t count = 0;
      for (std::size_t i = 8; i-- > 0;)
        count = count << 8 | static_cast<std::uint64_t>(bytes_[static_cast<std::size_t>(pos_) + i]);
      if (count != s.numel)
        fault_({"storage_size", place, pos_,
                "the file holds " + std::to_string(count) + " elements, the persistent id at byte " +
                    std::to_string(use->second.at) + " says " + std::to_string(s.numel)});
      s.data_offset = pos_ + 8;
      const std::uint64_t left = bytes_.size() - s.data_offset;
      if (count > left / s.itemsize) {
        fault_({"truncated", place, s.data_offset,
                std::to_string(count) + " elements of " + std::to_string(s.itemsize) + " bytes do not fit in the " +
                    std::to_string(left) + " bytes left"});
        return false;
      }
      s.nbytes = count * s.itemsize;
      pos_ = s.data_offset + s.nbytes;
      out_.storages.push_back(std::move(s));
    }
    for (const auto& [key, use] : uses_)
      if (!listed.count(key))
        fault_(
            {"missing_storage", "storage '" + key + "'", use.at,
             "a persistent id names the storage, but the storage keys do not list it: its bytes are not in the file"});
    return true;
  }

  std::span<const std::byte> bytes_;
  const LegacyFaults& fault_;
  std::uint64_t pos_ = 0;
  std::map<std::string, StorageUse> uses_;
  std::set<std::string> conflicts_;
  LegacyLayout out_;
};

}  // namespace

bool sniff_pytorch_legacy(std::span<const std::byte> head) {
  // PROTO 2 to 5 (torch.save's pickle_protocol, 2 by default), for 4 and 5 a FRAME opcode with
  // its 8-byte length (CPython Lib/pickle.py, _Framer), then LONG1 of 10 bytes: the magic number.
  const auto byte = [&head](std::size_t i) { return std::to_integer<unsigned>(head[i]); };
  if (head.size() < 2 || byte(0) != 0x80 || byte(1) < 2 || byte(1) > 5) return false;
  std::size_t at = 2;
  if (byte(1) >= 4 && head.size() > at && byte(at) == 0x95) at += 9;
  if (head.size() < at + 2 + sizeof kLegacyMagicLe || byte(at) != 0x8a || byte(at + 1) != 0x0a) return false;
  return std::memcmp(head.data() + at + 2, kLegacyMagicLe, sizeof kLegacyMagicLe) == 0;
}

LegacyLayout parse_pytorch_legacy(std::span<const std::byte> bytes, const LegacyFaults& faults) {
  return LegacyParser(bytes, faults).run();
}

LoadedFile open_pytorch_legacy(std::shared_ptr<const MappedFile> file) {
  const LegacyFaults first_fault(file->name());
  LegacyLayout layout = parse_pytorch_legacy(file->bytes(), first_fault);
  std::map<std::string, ZipMember> members;
  for (const LegacyStorage& s : layout.storages) {
    ZipMember m;
    m.name = "storage '" + s.key + "'";
    m.stored = true;
    m.size = m.comp_size = s.nbytes;
    m.data_offset = s.data_offset;
    members.emplace(s.key, std::move(m));
  }
  LoadedFile out;
  out.path = file->name();
  out.format = "pytorch";
  out.file = file;
  TorchStorages storages;
  storages.file = file;
  storages.find = [&members](const std::string& key) -> std::optional<ZipMember> {
    auto it = members.find(key);
    if (it == members.end()) return std::nullopt;
    return it->second;
  };
  storages.missing = [](const std::string&) {
    return std::string("no bytes in the file (the storage keys do not list it)");
  };
  torch_add_object(layout.object, file->name(), storages, out);
  return out;
}

}  // namespace tensor_inspect
