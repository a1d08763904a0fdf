// loaders/pickle_keys.cpp — Python's dict-key rules over pickle values (see pickle_keys.hpp;
// CPython Objects/longobject.c and floatobject.c for int == float, tupleobject.c and
// setobject.c for the containers).
#include "loaders/pickle_keys.hpp"

#include <cmath>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "loaders/pytorch_flatten.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

namespace {

using Kind = PickleValue::Kind;
using Set = PickleValue::Set;

/// A number as its exact value: an int64, a wider integer (minimal little-endian two's
/// complement bytes, as BigInt keeps them), or a float that is no integer (0.5, inf, nan).
struct Exact {
  enum class Is { Small, Big, Fraction } is = Is::Small;
  std::int64_t small = 0;
  std::string big;
  double fraction = 0.0;
};

/// The bytes of an integral float of magnitude 2**63 or more: its 53-bit significand shifted.
std::string float_int_bytes(double f) {
  int e = 0;
  const double m = std::frexp(std::fabs(f), &e);  // |f| = m * 2**e, m in [0.5, 1), e >= 64
  const auto significand = static_cast<std::uint64_t>(std::ldexp(m, 53));
  const auto shift = static_cast<std::size_t>(e - 53);
  std::string out(static_cast<std::size_t>(e) / 8 + 2, '\0');
  for (std::size_t b = 0; b < 53; ++b)
    if (significand >> b & 1) out[(b + shift) / 8] = static_cast<char>(out[(b + shift) / 8] | 1 << ((b + shift) % 8));
  if (f < 0) {  // two's complement: invert, add one
    unsigned carry = 1;
    for (char& c : out) {
      const unsigned v = (~static_cast<unsigned>(static_cast<unsigned char>(c)) & 0xffu) + carry;
      c = static_cast<char>(v & 0xffu);
      carry = v >> 8;
    }
  }
  return pickle_long_canonical(std::move(out));
}

Exact exact_of(const PickleValue& v) {
  Exact x;
  if (v.kind == Kind::Bool) x.small = v.boolean ? 1 : 0;
  else if (v.kind == Kind::Int) x.small = v.integer;
  else if (v.kind == Kind::BigInt) {
    x.is = Exact::Is::Big;
    x.big = v.text;
  } else if (!std::isfinite(v.number) || std::trunc(v.number) != v.number) {
    x.is = Exact::Is::Fraction;
    x.fraction = v.number;
  } else if (v.number >= -0x1p63 && v.number < 0x1p63) {
    x.small = static_cast<std::int64_t>(v.number);
  } else {
    x.is = Exact::Is::Big;
    x.big = float_int_bytes(v.number);
  }
  return x;
}

bool is_number(const PickleValue& v) {
  return v.kind == Kind::Bool || v.kind == Kind::Int || v.kind == Kind::BigInt || v.kind == Kind::Float;
}
bool is_frozenset(const PickleValue& v) { return v.kind == Kind::List && v.set == Set::Frozen; }
std::string type_name(const PickleValue& v) {
  if (v.kind == Kind::List && v.set == Set::Mutable) return "set";
  return is_frozenset(v) ? "frozenset" : pickle_type_name(v);
}

/// Hashes and compares keys; a tuple's or frozenset's hash is computed once per object.
class KeyRules {
 public:
  explicit KeyRules(std::uint64_t max_depth) : max_depth_(max_depth) {}

  /// Why `key` cannot be a key: at the byte of the list, dict or set in it, or of the key
  /// itself when it nests too deep. Tuples and frozensets that pass are remembered.
  std::optional<PickleKeyFault> unhashable(PickleRef key) { return walk(key, 0, key->at); }

  std::size_t hash(PickleRef v) const {
    if (is_number(*v)) {
      const Exact x = exact_of(*v);
      if (x.is == Exact::Is::Small) return std::hash<std::int64_t>()(x.small);
      if (x.is == Exact::Is::Big) return std::hash<std::string>()(x.big);
      return std::hash<double>()(x.fraction);
    }
    if (v->kind == Kind::Str || v->kind == Kind::Global) return std::hash<std::string>()(v->text);
    if (v->kind == Kind::Bytes) return std::hash<std::string>()(v->text) ^ 0x5bd1e995u;
    if (v->kind == Kind::None) return 0x9e3779b9u;
    if (auto it = hashes_.find(v); it != hashes_.end()) return it->second;  // a tuple or frozenset
    return std::hash<PickleRef>()(v);  // an object: itself only
  }

  bool equal(PickleRef a, PickleRef b) const {
    if (a == b) return true;
    if (is_number(*a) && is_number(*b)) {
      const Exact x = exact_of(*a), y = exact_of(*b);
      if (x.is != y.is) return false;
      if (x.is == Exact::Is::Small) return x.small == y.small;
      return x.is == Exact::Is::Big ? x.big == y.big : x.fraction == y.fraction;  // a nan: only itself
    }
    if (a->kind != b->kind || (is_frozenset(*a) != is_frozenset(*b))) return false;
    if (a->kind == Kind::Str || a->kind == Kind::Bytes || a->kind == Kind::Global) return a->text == b->text;
    if (a->kind == Kind::None) return true;
    if ((a->kind != Kind::Tuple && !is_frozenset(*a)) || a->items.size() != b->items.size() || hash(a) != hash(b))
      return false;
    // NOTE: tuples sharing items through the memo form a DAG, which item-by-item comparison
    // walks once per path: 2**60 steps for 60 levels of (t, t). Each pair is compared once.
    const auto [it, fresh] = compared_.emplace(std::make_pair(a, b), true);
    if (!fresh) return it->second;
    bool same = true;
    if (a->kind == Kind::Tuple) {
      for (std::size_t i = 0; i < a->items.size() && same; ++i) same = equal(a->items[i], b->items[i]);
    } else {  // frozensets, their items already unique: each of a's in b
      const std::unordered_set<PickleRef, Hash, Equal> in_b(b->items.begin(), b->items.end(), b->items.size(),
                                                            Hash{this}, Equal{this});
      for (std::size_t i = 0; i < a->items.size() && same; ++i) same = in_b.count(a->items[i]) != 0;
    }
    compared_[std::make_pair(a, b)] = same;
    return same;
  }

  std::optional<PickleKeyFault> walk(PickleRef v, std::uint64_t depth, std::uint64_t key_at) {
    if (v->kind == Kind::Dict || (v->kind == Kind::List && !is_frozenset(*v)))
      return PickleKeyFault{"unhashable type: '" + type_name(*v) + "'", v->at};
    if ((v->kind != Kind::Tuple && !is_frozenset(*v)) || hashes_.count(v)) return std::nullopt;
    if (depth >= max_depth_)
      return PickleKeyFault{"a dict key nests deeper than " + std::to_string(max_depth_) + " levels", key_at};
    for (PickleRef item : v->items)
      if (auto fault = walk(item, depth + 1, key_at)) return fault;
    std::size_t h = v->kind == Kind::Tuple ? 0x345678u + v->items.size() : 0x1f2e3d4cu;
    for (PickleRef item : v->items)
      h = v->kind == Kind::Tuple ? (h * 1000003u) ^ hash(item)
                                 : h + hash(item) * 0x9e3779b97f4a7c15u;  // a set's: any order
    hashes_.emplace(v, h);
    return std::nullopt;
  }

  struct Hash {
    const KeyRules* rules;
    std::size_t operator()(PickleRef v) const { return rules->hash(v); }
  };
  struct Equal {
    const KeyRules* rules;
    bool operator()(PickleRef a, PickleRef b) const { return rules->equal(a, b); }
  };
  using Table = std::unordered_map<PickleRef, std::size_t, Hash, Equal>;

 private:
  std::uint64_t max_depth_;
  std::unordered_map<PickleRef, std::size_t> hashes_;
  struct PairHash {
    std::size_t operator()(const std::pair<PickleRef, PickleRef>& p) const {
      return std::hash<PickleRef>()(p.first) * 31u ^ std::hash<PickleRef>()(p.second);
    }
  };
  /// Tuples and frozensets compared so far, and whether they were equal.
  mutable std::unordered_map<std::pair<PickleRef, PickleRef>, bool, PairHash> compared_;
};

/// A decimal string of minimal little-endian two's complement bytes (long division by 10).
std::string big_decimal(const std::string& bytes) {
  std::vector<unsigned> mag;
  for (char c : bytes) mag.push_back(static_cast<unsigned char>(c));
  const bool negative = !mag.empty() && (mag.back() & 0x80u);
  unsigned carry = negative ? 1 : 0;
  for (unsigned& b : mag) {
    if (!negative) break;
    b = (~b & 0xffu) + carry;
    carry = b >> 8;
    b &= 0xffu;
  }
  std::string digits;
  for (bool more = true; more;) {
    unsigned rem = 0;
    more = false;
    for (std::size_t i = mag.size(); i-- > 0;) {
      const unsigned cur = rem << 8 | mag[i];
      mag[i] = cur / 10;
      rem = cur % 10;
      more = more || mag[i] != 0;
    }
    digits.insert(digits.begin(), static_cast<char>('0' + rem));
  }
  return (negative ? "-" : "") + digits;
}

void repr_into(const PickleValue& v, std::string& out, std::size_t max_chars) {
  if (out.size() > max_chars) return;
  const std::size_t room = max_chars - out.size() + 1;
  switch (v.kind) {
    case Kind::Str: out += pickle_str_repr(v.text.substr(0, room)); return;
    case Kind::Bytes: {
      out += "b'";
      for (char c : v.text.substr(0, room)) {
        const auto u = static_cast<unsigned char>(c);
        static const char hex[] = "0123456789abcdef";
        if (c == '\\' || c == '\'') out += std::string("\\") + c;
        else if (u >= 0x20 && u < 0x7f) out += c;
        else out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
      }
      out += "'";
      return;
    }
    case Kind::Int: out += std::to_string(v.integer); return;
    case Kind::BigInt: out += big_decimal(v.text); return;
    case Kind::Bool: out += v.boolean ? "True" : "False"; return;
    case Kind::None: out += "None"; return;
    case Kind::Float: out += float_repr(v.number); return;
    default: break;
  }
  if (v.kind != Kind::Tuple && !is_frozenset(v)) {
    out += '<';  // appended: GCC 12 warns (-Wrestrict, a false positive) on "<" + std::string&&
    out += type_name(v);
    out += " object>";
    return;
  }
  if (is_frozenset(v) && v.items.empty()) {
    out += "frozenset()";
    return;
  }
  out += v.kind == Kind::Tuple ? "(" : "frozenset({";
  for (std::size_t i = 0; i < v.items.size() && out.size() <= max_chars; ++i) {
    if (i) out += ", ";
    repr_into(*v.items[i], out, max_chars);
  }
  out += v.kind == Kind::Tuple ? (v.items.size() == 1 ? ",)" : ")") : "})";
}

}  // namespace

std::string pickle_long_canonical(std::string bytes) {
  while (bytes.size() > 1) {
    const auto top = static_cast<unsigned char>(bytes.back());
    const bool next_negative = static_cast<unsigned char>(bytes[bytes.size() - 2]) & 0x80;
    if ((top == 0x00 && !next_negative) || (top == 0xff && next_negative)) bytes.pop_back();
    else break;
  }
  if (bytes.size() == 1 && bytes[0] == '\0') bytes.clear();
  return bytes;
}

std::string pickle_key_repr(const PickleValue& v, std::size_t max_chars) {
  std::string out;
  repr_into(v, out, max_chars);
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "...";
  return out;
}

std::optional<PickleKeyFault> pickle_unique_keys(Pickled& p, std::uint64_t max_depth) {
  KeyRules rules(max_depth);
  // Frozensets first, in the order they were made (after their items, which may be
  // frozensets): each is hashed and compared as a key only once its items are unique.
  for (int pass = 0; pass < 2; ++pass)
    for (const std::unique_ptr<PickleValue>& owned : p.arena) {
      PickleValue& c = *owned;
      const bool is_set = c.kind == Kind::List && c.set != Set::No;
      if (pass == 0 ? !is_frozenset(c) : !(c.kind == Kind::Dict || (is_set && !is_frozenset(c)))) continue;
      const std::size_t step = is_set ? 1 : 2;
      KeyRules::Table first(c.items.size() / step, KeyRules::Hash{&rules}, KeyRules::Equal{&rules});
      std::size_t kept = 0;
      for (std::size_t i = 0; i + step - 1 < c.items.size(); i += step) {
        PickleRef key = c.items[i];
        if (auto fault = rules.unhashable(key)) return fault;
        auto [it, fresh] = first.emplace(key, kept);
        if (fresh) {
          for (std::size_t k = 0; k < step; ++k) c.items[kept + k] = c.items[i + k];
          kept += step;
          continue;
        }
        if (is_set) continue;
        PickleRef held = c.items[it->second];
        c.items[it->second + 1] = c.items[i + 1];  // the last value wins; the first key stays
        if (p.duplicates.size() < Pickled::kMaxDuplicates)
          p.duplicates.push_back({pickle_key_repr(*held), held->at, key->at});
        ++p.duplicate_count;
      }
      c.items.resize(kept);
    }
  return std::nullopt;
}

}  // namespace tensor_inspect
