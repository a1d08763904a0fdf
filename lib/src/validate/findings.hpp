// validate/findings.hpp — how each format's checker records what it finds.
//
// A checker adds findings as it goes and carries on; a fault that leaves nothing to read
// after it (a truncated header) is thrown as Error(BadFile) by ByteReader and recorded by
// `checked` as one finding of rule "<format>.structure".
//
//   Findings f("model.gguf", "gguf");
//   f.error("duplicate_key", "key 'a'", 128, "key 'a' appears again (first at byte 24)");
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "loaders/json_faults.hpp"
#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/validate.hpp"

namespace tensor_inspect::validate {

/// "a string", "an array", "an object": a JSON type name with its English article.
inline std::string with_article(std::string_view type) {
  const bool vowel = !type.empty() && std::string_view("aeiou").find(type.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(type);
}

/// The findings of one checker run: the rule prefix and the place prefix of its input.
class Findings {
 public:
  Findings(std::vector<Finding>& out, std::string format, std::string prefix = {})
      : out_(out), format_(std::move(format)), prefix_(std::move(prefix)) {}
  void add(Severity s, const std::string& rule, const std::string& place, std::optional<std::uint64_t> offset,
           const std::string& message) {
    std::string where = prefix_.empty() ? place : place.empty() ? prefix_ : prefix_ + ": " + place;
    // What the tool cannot decode says nothing about the file: rule "unsupported" is a note
    // whichever checker records it (a checker may still call warning() for it).
    if (rule == "unsupported") s = Severity::Note;
    out_.push_back(Finding{s, format_ + "." + rule, where, offset, message});
  }
  void error(const std::string& rule, const std::string& place, std::optional<std::uint64_t> offset,
             const std::string& m) {
    add(Severity::Error, rule, place, offset, m);
  }
  void warning(const std::string& rule, const std::string& place, std::optional<std::uint64_t> offset,
               const std::string& m) {
    add(Severity::Warning, rule, place, offset, m);
  }
  void note(const std::string& rule, const std::string& place, std::optional<std::uint64_t> offset,
            const std::string& m) {
    add(Severity::Note, rule, place, offset, m);
  }
  /// Runs `f`; an Error it throws becomes one error finding of rule "structure".
  void checked(const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      error("structure", "", std::nullopt, e.what());
    }
  }
  std::size_t errors() const {
    std::size_t n = 0;
    for (const Finding& f : out_) n += f.severity == Severity::Error;
    return n;
  }
  std::vector<Finding>& all() { return out_; }
  const std::string& prefix() const { return prefix_; }

 private:
  std::vector<Finding>& out_;
  std::string format_;
  std::string prefix_;
};

// The JSON policy of validate's safetensors and index rules (loaders/json_faults.hpp).
using tensor_inspect::json_nesting;
using tensor_inspect::JsonDuplicate;
using tensor_inspect::JsonFault;
using tensor_inspect::JsonFaults;

/// The checkers, one per format (validate/<format>.cpp). `name` names the bytes in
/// messages; `base` is the file offset of bytes[0] (a STORED zip member's data).
void check_safetensors(std::span<const std::byte> bytes, Findings& f);
void check_gguf(std::span<const std::byte> bytes, Findings& f);
void check_npy(std::span<const std::byte> bytes, std::uint64_t base, Findings& f);
/// Walks one pickle up to its STOP and returns the bytes it took; with `whole`, bytes
/// after the STOP are a finding (a lone data.pkl), else the caller reads on (legacy .pt).
std::uint64_t check_pickle(std::span<const std::byte> bytes, std::uint64_t base, bool whole, Findings& f);
/// A sharded safetensors index: its JSON, weight_map, each shard (the shards in
/// `scope.also_validated` for the mapping and sizes only), and metadata.total_size.
/// Returns the tensors of shards whose faults are left to their own report, which the
/// loader's pass over the index must not report again.
std::set<std::string> check_index(const std::shared_ptr<const MappedFile>& file, const ValidateScope& scope,
                                  Findings& f);
/// A torch.save file of either layout: the zip rules (check_zip "pytorch"), or the legacy
/// layout's (check_legacy_pytorch) when it starts with the legacy magic number.
void check_pytorch(const std::shared_ptr<const MappedFile>& file, Findings& f);
/// The legacy torch.save layout (loaders/pytorch_legacy.hpp), read by the loader's own
/// parser collecting every fault, and each of its five pickles' opcodes (check_pickle).
void check_legacy_pytorch(std::span<const std::byte> bytes, Findings& f);
/// An ONNX model (validate/onnx.cpp): the loader's parser collecting every fault.
void check_onnx(std::span<const std::byte> bytes, Findings& f);
/// A safetensors file's or index's quantization schemes (validate/schemes.cpp): each broken
/// group of parts and a broken config.json beside it, as the scheme layer finds them.
void check_schemes(LoadedFile loaded, Findings& f);
/// An HDF5 image at bytes [base, base + size) of `file`, named `name` (validate/hdf5.cpp):
/// the loader's walk with every fault collected, then the data libhdf5 decodes, read whole.
void check_hdf5(const std::shared_ptr<const MappedFile>& file, std::uint64_t base, std::uint64_t size,
                const std::string& name, Findings& f);
/// A .keras archive: the zip rules, then its STORED model.weights.h5 by check_hdf5.
void check_keras(const std::shared_ptr<const MappedFile>& file, Findings& f);
/// A torch.distributed.checkpoint .metadata (validate/dcp.cpp): the loader's decoder
/// collecting every fault, then each chunk's storage in the .distcp files beside it.
void check_dcp(const std::shared_ptr<const MappedFile>& file, Findings& f);
/// Zip structure and CRCs; then each member by kind: "npz" checks .npy members,
/// "pytorch" the data.pkl pickle.
void check_zip(const std::shared_ptr<const MappedFile>& file, const std::string& kind, Findings& f);

}  // namespace tensor_inspect::validate
