// tensor_inspect/hash.hpp — content hashes of tensors: one hash per tensor over its logical
// content, the same in every container, byte order, memory order and shard layout, and
// manifests of such hashes to check a copy against.
//
// The canonical byte stream of a tensor (README, "Content hashes"):
//   1. the ASCII line "DTYPE SHAPE\n": tinygrad's dtype name ("float32", "bfloat16"), one
//      space, the shape as Python prints a tuple ("(2, 3)", "(4,)", "()");
//   2. the elements in C order, each little-endian, itemsize bytes (bool: one byte 0 or 1).
// A GGUF block-quantized tensor (and any tensor whose values this tool cannot decode, but
// whose stored bytes lie in order in the file) hashes its type as the format names it
// ("Q4_K", "IQ4_NL") in place of the dtype, and its stored blocks as they are: its values
// are derived from those, so equal blocks and type mean equal values.
//
//   ti::LoadedFile f = ti::open_file("model.safetensors");
//   std::vector<ti::TensorHash> h = ti::hash_tensors(f.tensors, ti::HashAlgorithm::Xxh3_128);
//   std::cout << h[0].digest << "  " << f.tensors[0].name << "\n";   // 32 hex digits
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

/// The hash functions a tensor hash can use.
enum class HashAlgorithm {
  Xxh3_128,  ///< XXH3's 128-bit hash (xxhash library), printed as `xxhsum -H2` prints it
  Sha256,    ///< SHA-256 (nettle), printed as `sha256sum` prints it
};

/// The algorithm's name on the command line and in manifests: "xxh3-128", "sha256".
std::string_view hash_algorithm_name(HashAlgorithm a);
/// The algorithm of a name hash_algorithm_name gives; nullopt for any other.
std::optional<HashAlgorithm> hash_algorithm_from_name(std::string_view name);

/// A streaming hash: update() with the bytes in order, then hex_digest() once.
class Hasher {
 public:
  explicit Hasher(HashAlgorithm a);
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  /// Feeds the next bytes.
  void update(std::span<const std::byte> bytes);
  /// The digest of every byte fed, in lower-case hex (XXH3-128: its canonical big-endian
  /// form, 32 digits; SHA-256: 64 digits).
  std::string hex_digest();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The first line of a tensor's canonical byte stream: "float32 (2, 3)\n".
std::string canonical_header(std::string_view type_name, const Shape& shape);

/// One tensor's content hash.
struct TensorHash {
  std::string type;    ///< what the header line names: a dtype ("float32") or a stored type ("Q4_K")
  Shape shape;         ///< the tensor's shape (row-major)
  std::string digest;  ///< lower-case hex
  bool stored_blocks = false;  ///< hashed its stored blocks (quantized or undecodable), not its values
};

/// Why `e` cannot be hashed ("its values cannot be decoded and its stored bytes are not its
/// elements in order"), or nullopt when it can: hash_tensors throws this reason, and
/// open_hash_inputs asks it first so that the error names the input holding the tensor.
std::optional<std::string> unhashable_reason(const TensorEntry& e);

/// The content hash of every entry, in order. Stored bytes are read in place, in pieces
/// of a few MiB (released from the resident set behind the read: memory stays flat), on
/// all cores, one tensor per thread; a tensor whose stored order is not C order or whose
/// bytes are compressed (Fortran-order .npy, a deflated .npz member) is walked in C order
/// through the executor instead, chunk by chunk. Results never depend on the thread count.
/// Throws Error(Unsupported) naming the tensor when it has neither decodable values nor
/// stored bytes in order (a strided PyTorch storage of a type tinygrad lacks), and what
/// loading or reading a tensor throws (a missing shard, a file cut short, a network error).
std::vector<TensorHash> hash_tensors(std::span<const TensorEntry> entries, HashAlgorithm a);

/// One tensor of a manifest.
struct ManifestTensor {
  std::string name;
  std::string type;
  Shape shape;
  std::string digest;
};

/// A manifest (schemas/hash.schema.json): the algorithm, the inputs it was made from, and
/// the tensors in order.
struct Manifest {
  HashAlgorithm algorithm = HashAlgorithm::Xxh3_128;
  std::vector<std::string> inputs;
  std::vector<ManifestTensor> tensors;
};

/// Parses a manifest's JSON text; `name` names it in messages. Throws Error(BadFile)
/// "NAME: ..." naming the field at fault for anything the schema refuses (malformed JSON,
/// another kind or schema_version, an unknown algorithm, a digest of the wrong length or
/// not hex, a duplicate tensor name, a shape that is not a list of sizes).
Manifest parse_manifest(std::string_view text, const std::string& name);

}  // namespace tensor_inspect
