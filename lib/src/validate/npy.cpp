// validate/npy.cpp — .npy (NEP 1, numpy.lib.format). The header is read by the loader's own
// parser (loaders/npy_header.cpp) collecting every fault it finds: magic, version 1.0, 2.0 or
// 3.0, the header inside the file, a 3.0 header's strings UTF-8, the header a dict literal
// with exactly 'descr', 'fortran_order' (True/False) and 'shape' (a tuple of sizes >= 0),
// each key once. The rules here are about validity only, on the parser's header model:
//   - the whole prefix a multiple of 64 bytes (a warning: numpy writes it so, readers cope)
//     and the header ended by '\n' (a warning);
//   - descr a string or a list (a descr numpy has but tinygrad has not: a note);
//   - the data: prod(shape) * itemsize bytes, numpy's item sizes; more is a warning, less an error.
#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>
#include <vector>

#include "loaders/byte_reader.hpp"
#include "loaders/formats.hpp"
#include "loaders/npy_header.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

// Bytes per element of a simple descr ("<f4", "|b1", "<U3"); nullopt when unknown here or
// no numpy dtype.
std::optional<std::uint64_t> itemsize_of(const std::string& d) {
  std::size_t i = (!d.empty() && std::string("<>|=").find(d[0]) != std::string::npos) ? 1 : 0;
  if (d.substr(i) == "?") return 1;
  if (i >= d.size() || !std::isalpha(static_cast<unsigned char>(d[i])) || i + 1 >= d.size()) return std::nullopt;
  const char kind = d[i];
  std::uint64_t n = 0;
  for (std::size_t k = i + 1; k < d.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(d[k])) || n > 1'000'000'000) return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(d[k] - '0');
  }
  // The sizes numpy.dtype accepts (NumPy 1.24 on x86-64); any other ("<f3") is no dtype,
  // which the loader names, so the data's length says nothing.
  auto one_of = [n](std::initializer_list<std::uint64_t> sizes) {
    return std::find(sizes.begin(), sizes.end(), n) != sizes.end();
  };
  if (kind == 'b') return one_of({1}) ? std::optional(n) : std::nullopt;
  if (kind == 'i' || kind == 'u') return one_of({1, 2, 4, 8}) ? std::optional(n) : std::nullopt;
  if (kind == 'f') return one_of({2, 4, 8, 16}) ? std::optional(n) : std::nullopt;
  if (kind == 'c') return one_of({8, 16, 32}) ? std::optional(n) : std::nullopt;
  if (kind == 'm' || kind == 'M') return one_of({8}) ? std::optional(n) : std::nullopt;
  if (kind == 'S' || kind == 'V' || kind == 'a') return n;
  if (kind == 'U') return 4 * n;
  return std::nullopt;
}

}  // namespace

void check_npy(std::span<const std::byte> bytes, std::uint64_t base, Findings& f) {
  const NpyFaults collect("npy", [&f](const NpyFault& x) { f.error(x.rule, x.place, x.at, x.message); });
  const NpyPrefix prefix = read_npy_prefix(bytes, base, collect);
  if (!prefix.read) return;
  const std::uint64_t data_at = prefix.data_pos;
  if (data_at % 64 != 0)
    f.warning("alignment", "header", base, "the header ends at byte " + std::to_string(data_at) +
                                               ", not a multiple of 64 (numpy pads it so the data is aligned)");
  if (prefix.header_len == 0 || bytes[static_cast<std::size_t>(data_at - 1)] != std::byte{'\n'})
    f.warning("newline", "header", base + data_at - 1, "the header does not end with a newline");
  const NpyHeader h = read_npy_dict(bytes, base, prefix, collect);
  if (!h.read) return;
  std::optional<std::uint64_t> itemsize;
  // A valid descr this tool cannot open (the loader refuses it as unsupported) is a
  // note: the file keeps NEP 1's rules, but "clean" means the tool reads it.
  // NOTE: these name the header's first byte, as they always have (tests/unit/validate_test.cpp
  // pins it); the loader's message names the descr's own byte.
  const std::uint64_t header_at = base + prefix.header_pos;
  const PyValue* descr = h.find("descr");
  if (descr && descr->kind == PyValue::Kind::Str) {
    itemsize = itemsize_of(descr->str);
    if (const std::optional<std::string> kind = npy_unsupported_descr(descr->str))
      f.note("unsupported", "key 'descr'", header_at,
             "descr '" + descr->str + "' " + (*kind == "dtype" ? "" : "(" + *kind + ") ") +
                 "has no tinygrad dtype: the tool cannot open this array");
  } else if (descr && descr->kind == PyValue::Kind::List) {
    f.note("unsupported", "key 'descr'", header_at,
           "descr is a structured dtype (a list of fields), which has no tinygrad dtype: "
           "the tool cannot open this array");
  } else if (descr) {
    f.error("descr", "key 'descr'", header_at, "descr is neither a string nor a list");
  }
  std::optional<std::uint64_t> need = itemsize;
  for (std::size_t i = 0; h.shape_ok && need && i < h.shape.size(); ++i)
    need = mul_in_range(*need, static_cast<std::uint64_t>(h.shape[i]));
  if (h.shape_ok && need && *itemsize != 0) {
    const std::uint64_t have = bytes.size() - data_at;
    if (have < *need)
      f.error("data_short", "data", base + data_at,
              "the data holds " + std::to_string(have) + " bytes; shape and descr need " + std::to_string(*need));
    else if (have > *need)
      f.warning("trailing", "data", base + data_at + *need,
                std::to_string(have - *need) + " bytes after the array's data");
  }
}

}  // namespace tensor_inspect::validate
