// loaders/pickle.hpp — a restricted pickle reader: it runs the opcodes of protocols 2-5
// (CPython Lib/pickletools.py) that torch.save and plain Python containers emit, and
// imports and calls nothing.
//
// Containers (tuple, list, dict, OrderedDict) are built; any other global is an opaque
// Object named by its global ("argparse.Namespace", "os.system"). REDUCE and NEWOBJ of a
// global make an Object that keeps its arguments, so a caller can interpret the few it
// knows (torch._utils._rebuild_tensor_v2); BUILD keeps the state it would apply beside
// the object (an nn.Module's __dict__: _parameters, _buffers, _modules), applying nothing.
// BINPERSID makes a PersistentId holding the id (torch's ('storage', type, key, ...)).
//
//   Pickled p = read_pickle(bytes, "model.pt: archive/data.pkl");
//   if (p.root->kind == PickleValue::Kind::Dict) ...
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tensor_inspect {

struct PickleValue;
/// A value inside a Pickled arena: pickles may hold cycles (a list that contains itself),
/// so values refer to each other by plain pointer and the arena owns them all.
using PickleRef = PickleValue*;

/// One value of the unpickled tree.
struct PickleValue {
  enum class Kind { None, Bool, Int, BigInt, Float, Str, Bytes, Tuple, List, Dict, Global, Object, PersistentId };
  Kind kind = Kind::None;
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0.0;
  /// Str: UTF-8 text; Bytes: the bytes; Global and Object: "module.name"; BigInt: its
  /// value's minimal little-endian two's complement bytes (more than 8: else it is an Int).
  std::string text;
  /// Tuple, List, PersistentId: the items; Dict: key, value, key, value, ... in insertion
  /// order, each key once (Python's dict: a key given again keeps its first place and key
  /// object and takes the new value); Object: the arguments it was made with.
  std::vector<PickleRef> items;
  /// List: made by EMPTY_SET (a set) or FROZENSET (a frozenset, hashable), items unique.
  enum class Set : std::uint8_t { No, Mutable, Frozen } set = Set::No;
  std::uint64_t at = 0;  ///< byte offset of the opcode that made it, for messages
  /// Object: the state the first BUILD would have set (its __dict__), or nullptr.
  PickleValue* state = nullptr;
};

/// A global the pickle names (GLOBAL or STACK_GLOBAL), and where it first does.
struct PickleGlobal {
  std::string name;      ///< "module.qualname": "collections.OrderedDict", "os.system"
  std::uint64_t at = 0;  ///< byte offset of the first opcode naming it
};

/// A dict key given again: Python keeps one entry, so the earlier value is lost.
struct PickleDuplicate {
  std::string key;         ///< the key as Python's repr writes it: 'a', 1, (1, 2)
  std::uint64_t first = 0; ///< byte offset of the opcode that made the key kept
  std::uint64_t again = 0; ///< ... and of the one that made this key (first again when the memo gave the same object)
};

/// The result of a pickle: its root value and the arena that owns every value made.
struct Pickled {
  std::vector<std::unique_ptr<PickleValue>> arena;
  PickleRef root = nullptr;
  std::vector<PickleGlobal> globals;  ///< every distinct global named, in order of first use
  std::vector<PickleDuplicate> duplicates;  ///< dict keys given again, the first kMaxDuplicates
  std::uint64_t duplicate_count = 0;        ///< all dict keys given again
  static constexpr std::size_t kMaxDuplicates = 1000;
  std::uint64_t end = 0;  ///< bytes the pickle took, its STOP included (the legacy .pt reads on from there)
};

/// Limits that keep a hostile pickle from allocating without bound; the defaults are
/// Limits::pickle_values, pickle_memo, pickle_refs and pickle_depth (tensor_inspect/limits.hpp).
struct PickleLimits {
  std::uint64_t max_values = 0;  ///< values made, all kinds together
  std::uint64_t max_memo = 0;    ///< memo entries
  /// References held: stack pushes, MARKs and container items (DUP, BINGET and APPEND
  /// add references without making values, one input byte each).
  std::uint64_t max_refs = 0;
  /// Nesting levels of a dict key or set item (tuples in tuples).
  std::uint64_t max_depth = 0;
  /// The caps in force (limits()).
  static PickleLimits current();
};

/// Runs the pickle in `bytes` up to its STOP and returns the result. `name` names the
/// input in messages. Throws Error(BadFile) "<name>: pickle: <what> at byte <N>" for an
/// unknown or unsupported opcode, stack underflow, a missing MARK, a memo index that was
/// never stored, truncated input, a dict key or set item Python cannot hash
/// ("unhashable type: 'list'"), or a limit exceeded. `base` is the file offset of
/// bytes[0]: every `at` and message counts from the file's start (a legacy .pt's pickles
/// follow each other).
Pickled read_pickle(std::span<const std::byte> bytes, const std::string& name,
                    const PickleLimits& limits = PickleLimits::current(), std::uint64_t base = 0);

/// Python's type name of a value: "int", "str", "dict", or an Object's global name.
std::string pickle_type_name(const PickleValue& v);

}  // namespace tensor_inspect
