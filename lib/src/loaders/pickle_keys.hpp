// loaders/pickle_keys.hpp — Python's rules for dict keys and set items, over the values of
// a pickle (pickle.hpp). The unpickler appends what SETITEM(S), DICT, ADDITEMS and
// FROZENSET give; this pass then makes each dict and set what CPython's would hold: a key
// given again keeps its first place and first key object and takes the last value
// ({'a': t1, 'a': t2} is {'a': t2}; {True: t1, 1: t2} is {True: t2}), a set item given again
// is dropped. Keys are immutable, so doing it once at the end gives what doing it at each
// insertion would.
//
// Equality is CPython's `a is b or a == b` for the kinds a pickle makes: numbers across
// bool, int and float by exact value (True == 1 == 1.0, 0.0 == -0.0, 2**70 == 2.0**70; a
// nan equals only itself, the same object through the memo); str and bytes by content and
// never each other; tuples item by item; frozensets as sets; globals by name (one module
// attribute); None with None; any other object (a tensor, a storage) only itself. A list,
// dict or set as a key is Python's TypeError "unhashable type: 'list'".
//
//   if (auto fault = pickle_unique_keys(pickled, limits().pickle_depth)) fail_at(fault->what, fault->at);
//   for (const PickleDuplicate& d : pickled.duplicates) ...
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "loaders/pickle.hpp"

namespace tensor_inspect {

/// Why Python would have refused the pickle's dicts or sets, at the byte of the opcode that
/// made the offending key.
struct PickleKeyFault {
  std::string what;  ///< "unhashable type: 'list'", "a dict key nests deeper than 64 levels"
  std::uint64_t at = 0;
};

/// Makes every dict and set of `p` unique in its keys as above, recording each key given
/// again in p.duplicates (the first Pickled::kMaxDuplicates; p.duplicate_count counts all).
/// Keys nest (tuples in tuples) at most `max_depth` levels. Linear in the items, with one
/// hash table at a time (the largest dict's).
std::optional<PickleKeyFault> pickle_unique_keys(Pickled& p, std::uint64_t max_depth);

/// A key as Python's repr writes it ('a', 3, True, None, 1.5, b'x', (1, 2)), cut to about
/// `max_chars` with "..."; a value of another kind as "<type object>".
std::string pickle_key_repr(const PickleValue& v, std::size_t max_chars = 80);

/// The minimal little-endian two's complement bytes of a LONG1/LONG4 argument (sign
/// bytes that change nothing dropped; 0 is no bytes), as Kind::BigInt keeps them.
std::string pickle_long_canonical(std::string bytes);

}  // namespace tensor_inspect
