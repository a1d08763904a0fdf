// loaders/npy_header.hpp — the one parser of a .npy header (NEP 1, numpy/lib/format.py),
// for loading and for validate, with byte offsets kept.
//
// Byte layout (loaders/npy.cpp has the whole format):
//   1. magic "\x93NUMPY" (6 bytes), 2. version: major, minor (1.0, 2.0 or 3.0),
//   3. header length: u16 in 1.0, u32 after, 4. the header: a Python dict literal with
//   exactly 'descr', 'fortran_order' (True/False) and 'shape' (a tuple of ints >= 0), read
//   by loaders/py_literal.cpp; latin-1 before 3.0, UTF-8 in 3.0.
//
// Two policies over the same walk: loading stops at the first fault (Error(BadFile)),
// validate collects every fault as a finding and reads on where the layout allows (past a
// duplicate key, an unexpected one, invalid UTF-8 in a string). Both name the same file
// byte for the same fault; each keeps its own words. The descr is left to the caller: the
// loader maps it to a dtype, validate to numpy's item sizes.
//
//   NpyFaults stop("x.npy");                                    // loading: throws
//   NpyPrefix p = read_npy_prefix(file->bytes(), 0, stop);
//   NpyHeader h = read_npy_dict(file->bytes(), 0, p, stop);   // h.find("descr"), h.shape
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "loaders/py_literal.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

/// One fault of a .npy header, in validate's words and in loading's.
struct NpyFault {
  std::string rule;     ///< validate's rule without "npy.": "keys", "shape"
  std::string place;    ///< "header", "key 'shape'"
  std::uint64_t at;     ///< file byte, the same for both
  std::string message;  ///< validate's words
  std::string loading;  ///< loading's words, between "<name>: " and " at byte <at>"
};

/// The policy: the first fault throws (loading), or every fault goes to a sink (validate).
class NpyFaults {
 public:
  /// Loading: a fault throws Error(BadFile) "<name>: <loading> at byte <at>".
  explicit NpyFaults(std::string name) : name_(std::move(name)) {}
  /// Validate: every fault goes to `sink`; the tool's own caps (Limits) on the header's
  /// length do not apply (its nesting cap does: the reader recurses).
  NpyFaults(std::string name, std::function<void(const NpyFault&)> sink)
      : name_(std::move(name)), sink_(std::move(sink)) {}
  bool collecting() const { return static_cast<bool>(sink_); }
  const std::string& name() const { return name_; }
  /// Reports a fault; returns only when collecting.
  void operator()(const NpyFault& f) const {
    if (sink_) return sink_(f);
    throw Error(ErrorCode::BadFile, name_ + ": " + f.loading + " at byte " + std::to_string(f.at),
                {name_, "", f.at, ""});
  }

 private:
  std::string name_;
  std::function<void(const NpyFault&)> sink_;
};

/// Magic, version and header length as read. Positions count from bytes[0]; file bytes
/// add `base`.
struct NpyPrefix {
  int major = 0;
  std::uint64_t header_pos = 0;  ///< first byte of the header text
  std::uint64_t header_len = 0;
  std::uint64_t data_pos = 0;    ///< first byte after the header
  bool read = false;             ///< all three read and the header inside the bytes
};

/// The header dict as read, with the fields its keys hold.
struct NpyHeader {
  PyValue dict;           ///< the literal; a Dict when `read`
  Shape shape;            ///< `shape`'s dimensions, when shape_ok
  bool fortran_order = false;
  bool read = false;      ///< the literal read and a dict (its keys may still be at fault)
  bool shape_ok = false;  ///< 'shape' a tuple of ints >= 0
  /// The value of `key` (the first, when collecting read it twice), or nullptr.
  const PyValue* find(std::string_view key) const {
    for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2)
      if (dict.items[i].kind == PyValue::Kind::Str && dict.items[i].str == key) return &dict.items[i + 1];
    return nullptr;
  }
};

/// Reads parts 1-3 from `bytes` (bytes[0] is file byte `base`). A truncated magic, version
/// or length throws Error(BadFile) in both policies (ByteReader's words, named faults.name()).
NpyPrefix read_npy_prefix(std::span<const std::byte> bytes, std::uint64_t base, const NpyFaults& faults);
/// Reads part 4 after `prefix` (which must be `read`): the literal, then its keys,
/// fortran_order and shape. The shape's rank is capped (NPY_MAXDIMS) when loading only.
NpyHeader read_npy_dict(std::span<const std::byte> bytes, std::uint64_t base, const NpyPrefix& prefix,
                        const NpyFaults& faults);

}  // namespace tensor_inspect
