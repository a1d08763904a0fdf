// tolist_loops.cpp — one printing loop per dtype: a value policy (how to read and spell
// one element) inside one shared bracket-and-separator loop, instantiated per dtype.
// float16, bfloat16 and fp8 widen to the double that tolist() yields by bit shifts
// (float16, bfloat16) or a 256-entry table (fp8).
#include "render/tolist_loops.hpp"

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>

#include "decode/half.hpp"
#include "render/digits.hpp"
#include "render/float_repr.hpp"

namespace tensor_inspect::render {
namespace {

// An element's bytes as T; with Swap, stored in the other byte order and reversed here.
template <typename T, bool Swap = false>
T load(const std::byte* p) {
  if constexpr (Swap && sizeof(T) > 1) {
    if constexpr (sizeof(T) == 2) {
      std::uint16_t u;
      std::memcpy(&u, p, 2);
      return std::bit_cast<T>(__builtin_bswap16(u));
    } else if constexpr (sizeof(T) == 4) {
      std::uint32_t u;
      std::memcpy(&u, p, 4);
      return std::bit_cast<T>(__builtin_bswap32(u));
    } else {
      std::uint64_t u;
      std::memcpy(&u, p, 8);
      return std::bit_cast<T>(__builtin_bswap64(u));
    }
  } else {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
}

char* put_text(std::string_view s, char* o) {
  return static_cast<char*>(std::memcpy(o, s.data(), s.size())) + s.size();
}

// ---------------------------------------------------------------- widening to double

struct WidenF64 {
  static constexpr std::size_t size = 8;
  template <bool Swap>
  static double get(const TolistSource&, const std::byte* p) { return load<double, Swap>(p); }
};
struct WidenF32 {
  static constexpr std::size_t size = 4;
  template <bool Swap>
  static double get(const TolistSource&, const std::byte* p) { return static_cast<double>(load<float, Swap>(p)); }
};
// IEEE half → double, exactly: rebias the exponent and shift the mantissa into place.
struct WidenF16 {
  static constexpr std::size_t size = 2;
  template <bool Swap>
  static double get(const TolistSource&, const std::byte* p) {
    const auto h = load<std::uint16_t, Swap>(p);
    const std::uint64_t sign = static_cast<std::uint64_t>(h & 0x8000) << 48;
    const std::uint64_t exp = (h >> 10) & 0x1f;
    const std::uint64_t mant = h & 0x3ff;
    if (exp == 0) {  // zero or subnormal: mant × 2^-24 is exact in a double
      const double m = static_cast<double>(mant) * 0x1p-24;
      return std::bit_cast<double>(std::bit_cast<std::uint64_t>(m) | sign);
    }
    const std::uint64_t e64 = exp == 31 ? 0x7ff : exp - 15 + 1023;
    return std::bit_cast<double>(sign | (e64 << 52) | (mant << 42));
  }
};
// bfloat16 is the top half of a float32 (decode/half.hpp).
struct WidenBF16 {
  static constexpr std::size_t size = 2;
  template <bool Swap>
  static double get(const TolistSource&, const std::byte* p) {
    return static_cast<double>(bfloat16_to_float(load<std::uint16_t, Swap>(p)));
  }
};
template <DType D>
const std::array<double, 256>& fp8_table() {
  static const std::array<double, 256> table = [] {
    std::array<double, 256> t{};
    for (unsigned i = 0; i < 256; ++i) t[i] = static_cast<double>(fp8_table(D)[i]);
    return t;
  }();
  return table;
}
template <DType D>
struct WidenFP8 {
  static constexpr std::size_t size = 1;
  template <bool>
  static double get(const TolistSource&, const std::byte* p) {
    return fp8_table<D>()[std::to_integer<std::uint8_t>(*p)];
  }
};

// ---------------------------------------------------------------- value policies

template <typename Widen, bool Json>
struct FloatValue {
  static constexpr std::size_t size = Widen::size;
  template <bool Swap>
  static char* put(const TolistSource& src, const std::byte* p, char* o) {
    const double v = Widen::template get<Swap>(src, p);
    if constexpr (Json) {
      if (((std::bit_cast<std::uint64_t>(v) >> 52) & 0x7ff) == 0x7ff)
        return put_text(v != v ? src.nan : v > 0 ? src.inf : src.ninf, o);
    }
    return write_float_repr(v, o);
  }
};

template <typename T>
struct IntValue {
  static constexpr std::size_t size = sizeof(T);
  template <bool Swap>
  static char* put(const TolistSource&, const std::byte* p, char* o) {
    // Wide integers take any number of digits: the branch-free writer. Narrow ones are
    // short, and the loop's branches predict well.
    const T v = load<T, Swap>(p);
    if constexpr (sizeof(T) >= 4 && std::is_signed_v<T>) return write_int_fixed(v, o);
    else if constexpr (sizeof(T) >= 4) return write_uint_fixed(v, o);
    else if constexpr (std::is_signed_v<T>) return write_int(v, o);
    else return write_uint(v, o);
  }
};

template <bool Json>
struct BoolValue {
  static constexpr std::size_t size = 1;
  template <bool>
  static char* put(const TolistSource&, const std::byte* p, char* o) {
    const bool v = std::to_integer<std::uint8_t>(*p) != 0;
    if constexpr (Json) return v ? put_text("true", o) : put_text("false", o);
    else return v ? put_text("True", o) : put_text("False", o);
  }
};

struct BytesValue {
  static constexpr std::size_t size = 1;
  template <bool>
  static char* put(const TolistSource& src, const std::byte* p, char* o) {
    return put_text(src.bytes[std::to_integer<std::uint8_t>(*p)], o);
  }
};

// A float16/bfloat16 pattern's repr from the table: one fixed-size copy.
struct TableValue {
  static constexpr std::size_t size = 2;
  template <bool Swap>
  static char* put(const TolistSource& src, const std::byte* p, char* o) {
    const ReprEntry& r = src.table[load<std::uint16_t, Swap>(p)];
    std::memcpy(o, r.text, kMaxValueRepr);
    return o + r.size;
  }
};

// ---------------------------------------------------------------- the loop

// After the last element of a row (`next` is the index after it): close the rows that
// end there and open as many again, or close everything at the end.
char* end_row(const TolistSource& src, std::int64_t next, char* o) {
  int closing = src.ndim;
  if (next < src.numel) {
    closing = 1;
    for (int d = src.ndim - 2; d >= 0 && next % src.spans[static_cast<std::size_t>(d)] == 0; --d) ++closing;
  }
  std::memset(o, ']', static_cast<std::size_t>(closing));
  o += closing;
  if (next == src.numel) return o;
  *o++ = ',';
  *o++ = ' ';
  std::memset(o, '[', static_cast<std::size_t>(closing));
  return o + closing;
}

template <typename V, bool Swap = false>
char* format_elements(const TolistSource& src, std::int64_t begin, std::int64_t end, char* o) {
  const std::byte* base = src.data;
  const std::int64_t inner = src.inner;
  if (begin == 0) {
    std::memset(o, '[', static_cast<std::size_t>(src.ndim));
    o += src.ndim;
  }
  std::int64_t e = begin;
  while (e < end) {
    const std::int64_t row_last = e - e % inner + inner - 1;
    const std::int64_t stop = row_last < end - 1 ? row_last : end - 1;
    const std::byte* p = base + e * static_cast<std::int64_t>(V::size);
    for (; e < stop; ++e, p += V::size) {
      o = V::template put<Swap>(src, p, o);
      o[0] = ',';
      o[1] = ' ';
      o += 2;
    }
    o = V::template put<Swap>(src, p, o);
    e = stop + 1;
    if (stop == row_last) {
      o = end_row(src, e, o);
    } else {  // the block ends inside a row: the separator goes with this element
      o[0] = ',';
      o[1] = ' ';
      o += 2;
    }
  }
  return o;
}

// The loop of one dtype; with Swap, elements stored in the other byte order (only for
// itemsizes above 1: a byte has no order).
template <bool Json, bool Swap>
TolistLoop pick(DType d) {
  switch (d) {
    case DType::Bool: return format_elements<BoolValue<Json>>;
    case DType::Int8: return format_elements<IntValue<std::int8_t>>;
    case DType::UInt8: return format_elements<IntValue<std::uint8_t>>;
    case DType::Int16: return format_elements<IntValue<std::int16_t>, Swap>;
    case DType::UInt16: return format_elements<IntValue<std::uint16_t>, Swap>;
    case DType::Int32: return format_elements<IntValue<std::int32_t>, Swap>;
    case DType::UInt32: return format_elements<IntValue<std::uint32_t>, Swap>;
    case DType::Int64: case DType::WeakInt: return format_elements<IntValue<std::int64_t>, Swap>;
    case DType::UInt64: return format_elements<IntValue<std::uint64_t>, Swap>;
    case DType::Float16: return format_elements<FloatValue<WidenF16, Json>, Swap>;
    case DType::BFloat16: return format_elements<FloatValue<WidenBF16, Json>, Swap>;
    case DType::Float32: return format_elements<FloatValue<WidenF32, Json>, Swap>;
    case DType::Float64: case DType::WeakFloat: return format_elements<FloatValue<WidenF64, Json>, Swap>;
    case DType::FP8E4M3: return format_elements<FloatValue<WidenFP8<DType::FP8E4M3>, Json>>;
    case DType::FP8E5M2: return format_elements<FloatValue<WidenFP8<DType::FP8E5M2>, Json>>;
  }
  return nullptr;
}

std::string bytes_spelling(std::uint8_t c, bool json) {
  char buf[16];
  if (json) {
    if (c < 0x80) return json_string(std::string(1, static_cast<char>(c)));
    std::snprintf(buf, sizeof buf, "\"\\u%04x\"", c);
    return buf;
  }
  if (c == '\'') return "b\"'\"";
  if (c == '\\') return "b'\\\\'";
  if (c == '\t') return "b'\\t'";
  if (c == '\n') return "b'\\n'";
  if (c == '\r') return "b'\\r'";
  if (c >= 0x20 && c < 0x7f) std::snprintf(buf, sizeof buf, "b'%c'", c);
  else std::snprintf(buf, sizeof buf, "b'\\x%02x'", c);
  return buf;
}

}  // namespace

std::size_t tolist_block_capacity(const TolistSource& src, std::int64_t count) {
  const auto n = static_cast<std::size_t>(count);
  const auto nd = static_cast<std::size_t>(src.ndim);
  const std::size_t rows = n / static_cast<std::size_t>(src.inner) + 2;  // rows ending inside the block
  return n * (kMaxValueRepr + 2) + rows * (2 * nd + 2) + nd + 16;
}

TolistLoop pick_tolist_loop(const MemoryView& mv, bool json, bool table) {
  if (mv.format == 'c') return format_elements<BytesValue>;
  if (mv.stored_swapped) {
    if (table) return format_elements<TableValue, true>;
    return json ? pick<true, true>(mv.dtype) : pick<false, true>(mv.dtype);
  }
  if (table) return format_elements<TableValue>;
  return json ? pick<true, false>(mv.dtype) : pick<false, false>(mv.dtype);
}

std::unique_ptr<ReprEntry[]> make_repr_table(const MemoryView& mv, bool json, const TolistSource& src) {
  std::unique_ptr<ReprEntry[]> table(new ReprEntry[65536]);
  // Indexed by the native pattern: a byte-swapped view swaps before the lookup.
  const auto put = mv.dtype == DType::BFloat16
                       ? (json ? FloatValue<WidenBF16, true>::put<false> : FloatValue<WidenBF16, false>::put<false>)
                       : (json ? FloatValue<WidenF16, true>::put<false> : FloatValue<WidenF16, false>::put<false>);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < 65536; ++i) {
    const auto bits = static_cast<std::uint16_t>(i);
    std::byte in[2];
    std::memcpy(in, &bits, 2);
    ReprEntry& r = table[static_cast<std::size_t>(i)];
    std::memset(r.text, ' ', sizeof r.text);
    r.size = static_cast<std::uint8_t>(put(src, in, r.text) - r.text);
  }
  return table;
}

const std::string& bytes_repr(std::uint8_t c, bool json) {
  static const auto tables = [] {
    std::array<std::array<std::string, 256>, 2> t;
    for (unsigned i = 0; i < 256; ++i)
      for (int j = 0; j < 2; ++j)
        t[static_cast<std::size_t>(j)][i] = bytes_spelling(static_cast<std::uint8_t>(i), j == 1);
    return t;
  }();
  return tables[json ? 1 : 0][c];
}

}  // namespace tensor_inspect::render
