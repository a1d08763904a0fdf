// tolist_loops.cpp — one printing loop per dtype: a value policy (how to read and spell
// one element) inside one shared bracket-and-separator loop, instantiated per dtype.
// float16, bfloat16 and fp8 widen to the double that tolist() yields by bit shifts
// (float16, bfloat16) or a 256-entry table (fp8).
#include "render/tolist_loops.hpp"

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>

#include "render/digits.hpp"
#include "render/float_repr.hpp"

namespace tensor_inspect::render {
namespace {

template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

char* put_text(std::string_view s, char* o) { return static_cast<char*>(std::memcpy(o, s.data(), s.size())) + s.size(); }

// ---------------------------------------------------------------- widening to double

struct WidenF64 {
  static constexpr std::size_t size = 8;
  static double get(const TolistSource&, const std::byte* p) { return load<double>(p); }
};
struct WidenF32 {
  static constexpr std::size_t size = 4;
  static double get(const TolistSource&, const std::byte* p) { return static_cast<double>(load<float>(p)); }
};
// IEEE half → double, exactly: rebias the exponent and shift the mantissa into place.
struct WidenF16 {
  static constexpr std::size_t size = 2;
  static double get(const TolistSource&, const std::byte* p) {
    const auto h = load<std::uint16_t>(p);
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
// bfloat16 is the top half of a float32.
struct WidenBF16 {
  static constexpr std::size_t size = 2;
  static double get(const TolistSource&, const std::byte* p) {
    return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(load<std::uint16_t>(p)) << 16));
  }
};
template <DType D>
const std::array<double, 256>& fp8_table() {
  static const std::array<double, 256> table = [] {
    std::array<double, 256> t{};
    for (unsigned i = 0; i < 256; ++i) t[i] = fp8_to_double(static_cast<std::uint8_t>(i), D);
    return t;
  }();
  return table;
}
template <DType D>
struct WidenFP8 {
  static constexpr std::size_t size = 1;
  static double get(const TolistSource&, const std::byte* p) { return fp8_table<D>()[std::to_integer<std::uint8_t>(*p)]; }
};

// ---------------------------------------------------------------- value policies

template <typename Widen, bool Json>
struct FloatValue {
  static constexpr std::size_t size = Widen::size;
  static char* put(const TolistSource& src, const std::byte* p, char* o) {
    const double v = Widen::get(src, p);
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
  static char* put(const TolistSource&, const std::byte* p, char* o) {
    if constexpr (std::is_signed_v<T>) return write_int(load<T>(p), o);
    else return write_uint(load<T>(p), o);
  }
};

template <bool Json>
struct BoolValue {
  static constexpr std::size_t size = 1;
  static char* put(const TolistSource&, const std::byte* p, char* o) {
    const bool v = std::to_integer<std::uint8_t>(*p) != 0;
    if constexpr (Json) return v ? put_text("true", o) : put_text("false", o);
    else return v ? put_text("True", o) : put_text("False", o);
  }
};

struct BytesValue {
  static constexpr std::size_t size = 1;
  static char* put(const TolistSource& src, const std::byte* p, char* o) {
    return put_text(src.bytes[std::to_integer<std::uint8_t>(*p)], o);
  }
};

// A float16/bfloat16 pattern's repr from the table: one fixed-size copy.
struct TableValue {
  static constexpr std::size_t size = 2;
  static char* put(const TolistSource& src, const std::byte* p, char* o) {
    const ReprEntry& r = src.table[load<std::uint16_t>(p)];
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

template <typename V>
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
      o = V::put(src, p, o);
      o[0] = ',';
      o[1] = ' ';
      o += 2;
    }
    o = V::put(src, p, o);
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

template <bool Json>
TolistLoop pick(DType d) {
  switch (d) {
    case DType::Bool: return format_elements<BoolValue<Json>>;
    case DType::Int8: return format_elements<IntValue<std::int8_t>>;
    case DType::UInt8: return format_elements<IntValue<std::uint8_t>>;
    case DType::Int16: return format_elements<IntValue<std::int16_t>>;
    case DType::UInt16: return format_elements<IntValue<std::uint16_t>>;
    case DType::Int32: return format_elements<IntValue<std::int32_t>>;
    case DType::UInt32: return format_elements<IntValue<std::uint32_t>>;
    case DType::Int64: case DType::WeakInt: return format_elements<IntValue<std::int64_t>>;
    case DType::UInt64: return format_elements<IntValue<std::uint64_t>>;
    case DType::Float16: return format_elements<FloatValue<WidenF16, Json>>;
    case DType::BFloat16: return format_elements<FloatValue<WidenBF16, Json>>;
    case DType::Float32: return format_elements<FloatValue<WidenF32, Json>>;
    case DType::Float64: case DType::WeakFloat: return format_elements<FloatValue<WidenF64, Json>>;
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
  if (table) return format_elements<TableValue>;
  return json ? pick<true>(mv.dtype) : pick<false>(mv.dtype);
}

std::unique_ptr<ReprEntry[]> make_repr_table(const MemoryView& mv, bool json, const TolistSource& src) {
  std::unique_ptr<ReprEntry[]> table(new ReprEntry[65536]);
  const auto put = mv.dtype == DType::BFloat16 ? (json ? FloatValue<WidenBF16, true>::put : FloatValue<WidenBF16, false>::put)
                                               : (json ? FloatValue<WidenF16, true>::put : FloatValue<WidenF16, false>::put);
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
      for (int j = 0; j < 2; ++j) t[static_cast<std::size_t>(j)][i] = bytes_spelling(static_cast<std::uint8_t>(i), j == 1);
    return t;
  }();
  return tables[json ? 1 : 0][c];
}

}  // namespace tensor_inspect::render
