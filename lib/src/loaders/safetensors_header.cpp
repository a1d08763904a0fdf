// loaders/safetensors_header.cpp — the safetensors JSON header in one pass (see
// safetensors_header.hpp). It reads the header's own shape through JsonCursor (strict
// RFC 8259, loaders/json_cursor.hpp) directly into the loader's entries: per tensor only
// what the entry itself owns is allocated (a long name, the shape). Values of unknown
// fields are skipped iteratively, so any depth cap is safe.
#include "loaders/safetensors_header.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>

#include <sys/mman.h>

#include "loaders/json_cursor.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

/// `s` == `word`, the length compared first (string_view's == calls compare()).
template <std::size_t N>
bool is(std::string_view s, const char (&word)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), word, N - 1) == 0;
}

class HeaderReader : JsonCursor {
 public:
  HeaderReader(std::string_view text, const std::string& file, std::uint64_t base) : JsonCursor(text, file, base) {}

  SafetensorsHeader run() {
    // Room for every entry at once: growing by doubling would copy the entries and fault
    // in fresh pages for each copy. An entry takes at least 45 bytes ("":{"dtype":"U8",
    // "shape":[],"data_offsets":[0,0]},), so this bounds the count; the room is reserved,
    // not touched, so only the pages the entries fill are ever faulted in.
    out_.tensors.reserve(t_.size() / 45 + 1);
    out_.data_offsets.reserve(t_.size() / 45 + 1);
    advise_huge_pages(out_.tensors);
    advise_huge_pages(out_.data_offsets);
    ws();
    if (p_ >= t_.size() || t_[p_] != '{') fail_at("header does not start with '{'", p_, false);
    ++p_;
    ws();
    if (peek() == '}') {
      ++p_;
    } else {
      for (;;) {
        entry();
        ws();
        const char c = peek();
        ++p_;
        if (c == '}') break;
        if (c != ',') syntax("expected ',' or '}' after a header entry", p_ - 1);
        ws();
      }
    }
    ws();
    if (p_ < t_.size())
      syntax(t_[p_] == '\0' ? "NUL bytes after the closing '}'" : "trailing characters after the closing '}'", p_);
    check_unique();
    return std::move(out_);
  }

 private:
  /// Large reserved room in 2 MiB pages where the kernel allows (transparent huge pages
  /// in "madvise" mode): one fault per 2 MiB instead of per 4 KiB as the entries fill it.
  template <typename T>
  static void advise_huge_pages(std::vector<T>& v) {
#ifdef MADV_HUGEPAGE
    constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t end = begin + v.capacity() * sizeof(T);
    const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1), last = end & ~(kHuge - 1);
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
    (void)v;
#endif
  }

  /// A header cut after a ':' is a syntax fault, not a value of the wrong kind.
  void value_follows() const {
    if (p_ >= t_.size()) syntax("expected a value, found " + found(p_), p_);
  }

  void entry() {
    const std::string_view key = string(scratch_);
    expect(':');
    value_follows();
    if (is(key, "__metadata__")) {
      metadata();
      return;
    }
    TensorEntry& e = out_.tensors.emplace_back();  // never reallocates: run() reserved the most there can be
    std::pair<std::uint64_t, std::uint64_t>& offsets = out_.data_offsets.emplace_back(0, 0);
    e.name = std::string(key);  // a constructor sizes the buffer once (assign() takes the general replace path)
    // Messages are built only when one is thrown: a header of 20,000 entries would
    // otherwise make as many strings per field.
    const auto where = [&e] { return "tensor '" + e.name + "'"; };
    if (peek() != '{') fail(where() + ": header entry is not an object");
    if (canonical_entry(e, offsets)) return;
    ++p_;
    ws();
    bool has_dtype = false, has_shape = false, has_offsets = false;
    if (peek() == '}') {
      ++p_;
    } else {
      for (;;) {
        const std::string_view field = string(scratch_);
        expect(':');
        value_follows();
        auto once = [&](bool& seen) {
          if (seen) fail("key '" + std::string(field) + "' appears twice in header object '" + e.name + "'");
          seen = true;
        };
        if (is(field, "dtype")) {
          once(has_dtype);
          if (peek() != '"') fail(where() + ": dtype is not a string");
          e.stored_type.assign(string(scratch_));
        } else if (is(field, "shape")) {
          once(has_shape);
          dims_.clear();
          const bool list = uint_list([&](std::size_t) {
            const std::uint64_t dim = uint_value([&] { return where() + ": shape dimension"; });
            if (dim > static_cast<std::uint64_t>(INT64_MAX))
              fail(where() + ": shape dimension " + std::to_string(dim) + " is too large");
            dims_.push_back(static_cast<std::int64_t>(dim));
          });
          if (!list) fail(where() + ": shape is not a list");
          e.shape.assign(dims_.begin(), dims_.end());  // one allocation of the exact size
        } else if (is(field, "data_offsets")) {
          once(has_offsets);
          std::size_t n = 0;
          const bool list = uint_list([&](std::size_t i) {
            if (i >= 2) fail(where() + ": data_offsets is not a list [begin, end]");
            (i == 0 ? offsets.first : offsets.second) =
                uint_value([&] { return where() + (i == 0 ? ": data_offsets begin" : ": data_offsets end"); });
            n = i + 1;
          });
          if (!list || n != 2) fail(where() + ": data_offsets is not a list [begin, end]");
        } else {
          skip_value(2);
        }
        ws();
        const char c = peek();
        if (p_ >= t_.size() || (c != ',' && c != '}'))
          syntax("expected ',' or '}', found " + found(p_), p_);
        ++p_;
        ws();
        if (c == '}') break;
      }
    }
    if (!has_dtype) fail(where() + ": header entry has no \"dtype\"");
    if (!has_shape) fail(where() + ": header entry has no \"shape\"");
    if (!has_offsets) fail(where() + ": header entry has no \"data_offsets\"");
  }

  /// The entry object at p_ ('{') when it is spelled as safetensors writers spell it —
  /// {"dtype":"F16","shape":[64,8],"data_offsets":[0,1024]}, no whitespace, a plain tag,
  /// integers of at most 18 digits without leading zeros — read by comparing fixed text,
  /// and p_ moved past its '}'. Any other spelling returns false with nothing changed, and
  /// entry() reads it field by field, with the same result or the same error.
  bool canonical_entry(TensorEntry& e, std::pair<std::uint64_t, std::uint64_t>& offsets) {
    const std::string_view t = t_;
    std::size_t q = p_;
    // The words have their size fixed at compile time, so each comparison is a few loads.
    const auto literal_at = [&]<std::size_t N>(const char (&word)[N]) {
      constexpr std::size_t n = N - 1;
      if (t.size() - q < n || std::memcmp(t.data() + q, word, n) != 0) return false;
      q += n;
      return true;
    };
    // Digits up to the next non-digit: 1 to 18 of them, no leading zero unless "0".
    const auto integer = [&](std::uint64_t& v) {
      const std::size_t from = q;
      v = 0;
      for (unsigned d; q < t.size() && (d = static_cast<unsigned char>(t[q]) - unsigned{'0'}) < 10 && q - from < 19;
           ++q)
        v = v * 10 + d;
      const std::size_t n = q - from;
      return n >= 1 && n <= 18 && !(n > 1 && t[from] == '0');
    };
    if (!literal_at("{\"dtype\":\"")) return false;
    const std::size_t tag = q;
    while (q < t.size() && q - tag <= 15) {
      const char c = t[q];
      if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) break;
      ++q;
    }
    const std::size_t tag_end = q;
    if (tag_end == tag || tag_end - tag > 15 || !literal_at("\",\"shape\":[")) return false;
    // Up to 8 dimensions here; a longer shape is read by entry().
    std::int64_t dims[8];
    std::size_t rank = 0;
    if (!literal_at("]")) {
      for (;;) {
        std::uint64_t dim;
        if (rank == 8 || !integer(dim)) return false;
        dims[rank++] = static_cast<std::int64_t>(dim);  // below 10^18: fits
        if (literal_at("]")) break;
        if (!literal_at(",")) return false;
      }
    }
    std::uint64_t begin, end;
    if (!literal_at(",\"data_offsets\":[") || !integer(begin) || !literal_at(",") || !integer(end) || !literal_at("]}"))
      return false;
    e.stored_type = std::string(t.data() + tag, tag_end - tag);  // fits the string itself (15 bytes at most)
    e.shape.assign(dims, dims + rank);
    offsets = {begin, end};
    p_ = q;
    return true;
  }

  void metadata() {
    if (seen_metadata_) fail("tensor '__metadata__' appears twice in the header");
    seen_metadata_ = true;
    if (peek() == 'n') {
      literal("null");
      return;
    }
    if (peek() != '{') fail("__metadata__ is not a map of strings");
    ++p_;
    ws();
    if (peek() == '}') {
      ++p_;
      return;
    }
    for (;;) {
      std::string key_scratch, value_scratch;
      const std::string_view key = string(key_scratch);
      expect(':');
      if (peek() != '"') fail("__metadata__ value of '" + std::string(key) + "' is not a string");
      const std::string_view value = string(value_scratch);
      out_.metadata.emplace_back(std::string(key), std::string(value));
      if (end_of_member()) return;
    }
  }

  /// Duplicate names and metadata keys. Names go into an open-addressing table of indices
  /// (no node per name; names are compared only when their slots collide). When one is
  /// held twice, the message names the first such name in sorted order, as it always has.
  void check_unique() const {
    const std::vector<TensorEntry>& tensors = out_.tensors;
    std::size_t slots = 16;
    while (slots < 2 * tensors.size()) slots *= 2;
    constexpr std::uint32_t kEmpty = UINT32_MAX;
    bool repeated = tensors.size() >= kEmpty;  // never (a header of 180 GB): the sort below decides
    std::vector<std::uint32_t> table(repeated ? 0 : slots, kEmpty);
    const std::hash<std::string_view> hash;
    for (std::size_t i = 0; i < tensors.size() && !repeated; ++i) {
      std::size_t at = hash(tensors[i].name) & (slots - 1);
      for (; table[at] != kEmpty && !repeated; at = (at + 1) & (slots - 1))
        repeated = tensors[table[at]].name == tensors[i].name;
      table[at] = static_cast<std::uint32_t>(i);
    }
    if (repeated) {
      std::vector<std::string_view> names;
      names.reserve(tensors.size());
      for (const TensorEntry& t : tensors) names.push_back(t.name);
      std::sort(names.begin(), names.end());
      for (std::size_t i = 1; i < names.size(); ++i)
        if (names[i] == names[i - 1]) fail("tensor '" + std::string(names[i]) + "' appears twice in the header");
    }
    std::vector<std::string_view> keys;
    keys.reserve(out_.metadata.size());
    for (const auto& [k, v] : out_.metadata) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    for (std::size_t i = 1; i < keys.size(); ++i)
      if (keys[i] == keys[i - 1])
        fail("key '" + std::string(keys[i]) + "' appears twice in header object '__metadata__'");
  }

  bool seen_metadata_ = false;
  std::string scratch_;  // a string with escapes, decoded (copied out before the next)
  std::vector<std::int64_t> dims_;  // the shape being read
  SafetensorsHeader out_;
};

}  // namespace

SafetensorsHeader parse_safetensors_header(std::string_view text, const std::string& file, std::uint64_t base) {
  return HeaderReader(text, file, base).run();
}

}  // namespace tensor_inspect
