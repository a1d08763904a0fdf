// checks/checks.cpp — --expect and --assert decided over each selected tensor (checks.hpp).
#include "tensor_inspect/checks.hpp"

#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/file_stats.hpp"
#include "tensor_inspect/tensor_errors.hpp"

namespace tensor_inspect {
namespace {

struct ExpectSpec {
  std::string spec, key, value;  // value normalised: canonical dtype name, shape repr, digits
};

constexpr const char* kExpectKeys = "dtype, shape, ndim, numel, format, nbytes, stored_dtype, stored_nbytes";

std::string expect_int_value(const std::string& spec, const std::string& v) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 19)
    throw Error(ErrorCode::Usage, "--expect '" + spec + "': '" + v + "' is not a non-negative integer");
  return std::to_string(std::stoull(v));
}

ExpectSpec parse_expect(const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos)
    throw Error(ErrorCode::Usage, "--expect '" + spec + "': write KEY=VALUE with KEY one of " + kExpectKeys);
  ExpectSpec e{spec, spec.substr(0, eq), spec.substr(eq + 1)};
  if (e.key == "dtype") {
    e.value = std::string(dtype_info(parse_dtype_name(e.value, "--expect '" + spec + "'")).name);
  } else if (e.key == "stored_dtype") {
    // The file's own type name (BF16, <f4, Q4_K): compared as stored_type_matches says, shown as given.
    if (e.value.empty())
      throw Error(ErrorCode::Usage,
                  "--expect '" + spec + "': name a stored type (BF16, <f4, Q4_K, bfloat16, ...)");
  } else if (e.key == "shape") {
    e.value = shape_repr(parse_shape(e.value, "--expect shape"));
  } else if (e.key == "ndim" || e.key == "nbytes" || e.key == "numel" || e.key == "stored_nbytes") {
    e.value = expect_int_value(spec, e.value);
  } else if (e.key == "format") {
    if (e.value != "None" && e.value.size() != 1)
      throw Error(ErrorCode::Usage,
                  "--expect '" + spec + "': a format is one struct character (f, e, q, ...) or None");
  } else {
    throw Error(ErrorCode::Usage, "--expect '" + spec + "': unknown key '" + e.key + "' (" + kExpectKeys + ")");
  }
  return e;
}

// The dtype a file's stored type name spells, when it spells one: a tag (BF16, F8_E4M3,
// GGUF's F16), a NumPy descr ('<f4', '>i2': byte order aside), a torch storage (HalfStorage).
std::optional<DType> dtype_of_stored_type(std::string s) {
  if (auto d = dtype_from_user_name(s)) return d;
  if (!s.empty() && std::string_view("<>|=!").find(s[0]) != std::string_view::npos) s.erase(0, 1);
  for (std::size_t i = 0; i < kDTypeCount; ++i) {
    const std::string_view kind = dtype_info(static_cast<DType>(i)).numpy_kind;
    if (!kind.empty() && kind == s) return static_cast<DType>(i);
  }
  if (s.ends_with("Storage")) {
    s.resize(s.size() - 7);
    if (s == "Byte") return DType::UInt8;  // torch.ByteStorage holds uint8 (CharStorage int8)
    return dtype_from_user_name(s);
  }
  return std::nullopt;
}

// What data() would report, from the lazy tensor alone (nothing is read); the stored_ keys
// from the file entry (a literal or expression is stored as it is).
std::string expect_actual(const ExpectSpec& e, const SelectedTensor& item, const Defaults& defaults) {
  const Tensor& t = item.tensor;
  const DType d = commit_dtype(t.dtype(), defaults);
  const auto& info = dtype_info(d);
  const std::uint64_t nbytes = static_cast<std::uint64_t>(t.numel()) * static_cast<std::uint64_t>(info.itemsize);
  if (e.key == "dtype") return std::string(info.name);
  if (e.key == "shape") return shape_repr(t.shape());
  if (e.key == "ndim") return std::to_string(t.ndim());
  if (e.key == "numel") return std::to_string(t.numel());
  if (e.key == "format") return info.fmt ? std::string(1, info.fmt) : "None";
  if (e.key == "stored_dtype") return item.entry ? item.entry->stored_type : std::string(info.name);
  if (e.key == "stored_nbytes") return std::to_string(item.entry ? item.entry->nbytes : nbytes);
  return std::to_string(nbytes);
}

// The same from the file's header, for a tensor whose values cannot be decoded (Q8_1,
// a C64 safetensors tensor): shape and ndim as --list shows them; it has no dtype, so no
// format or decoded byte count, and says so with the stored type (--list's dtype is "-").
std::string expect_actual_undecoded(const ExpectSpec& e, const TensorEntry& entry) {
  if (e.key == "shape") return shape_repr(entry.shape);
  if (e.key == "ndim") return std::to_string(entry.shape.size());
  if (e.key == "numel") return std::to_string(prod(entry.shape));
  if (e.key == "stored_dtype") return entry.stored_type;
  if (e.key == "stored_nbytes") return std::to_string(entry.nbytes);
  const std::string why = entry.stored_type + ", not dequantizable here";
  if (e.key == "nbytes") return "unknown (" + why + "; " + std::to_string(entry.nbytes) + " bytes stored)";
  return "none (" + why + ")";
}

// True, or what made the assertion false: "False", "3 of 12 elements are False, first at [0, 2]".
std::optional<std::string> assert_failure(const std::string& expr, const SelectedTensor& item,
                                          const Defaults& defaults) {
  const Tensor r = [&] {
    try {
      return evaluate_expression(expr, item.tensor, defaults);
    } catch (const Error& e) {
      // "expression: column 3: ..." could be -e's or any --assert's: the message names this one.
      const std::string what = e.what();
      const std::string_view prefix = "expression: ";
      const std::string rest = what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
      throw Error(e.code(), "--assert '" + expr + "': " + rest, e.place());
    }
  }();
  if (r.dtype() != DType::Bool)
    throw Error(ErrorCode::BadExpression, "--assert '" + expr + "' gives " +
                                              std::string(dtype_info(commit_dtype(r.dtype(), defaults)).name) +
                                              ", not a boolean (compare, or end with .all())");
  DataOptions dopt;
  dopt.defaults = defaults;
  const MemoryView mv = data(r, dopt);
  const std::int64_t n = mv.numel();
  std::int64_t false_count = 0, first = -1;
  for (std::int64_t i = 0; i < n; ++i)
    if (!mv.element(i).b) {
      if (first < 0) first = i;
      ++false_count;
    }
  if (false_count == 0) return std::nullopt;
  if (mv.ndim() == 0) return "False";
  const std::string index = index_text(first, Shape(mv.shape.begin(), mv.shape.end()));
  if (false_count == 1)
    return "1 of " + count_of(static_cast<std::uint64_t>(n), "element") + " is False, at " + index;
  return std::to_string(false_count) + " of " + std::to_string(n) + " elements are False, first at " + index;
}

}  // namespace

bool stored_type_matches(const std::string& expected, const std::string& stored) {
  auto lower = [](std::string v) {
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v;
  };
  if (lower(expected) == lower(stored)) return true;
  const std::optional<DType> a = dtype_from_user_name(expected), b = dtype_of_stored_type(stored);
  return a && b && *a == *b;
}

std::vector<CheckResult> evaluate_checks(const std::vector<SelectedTensor>& items,
                                         const std::vector<std::string>& expect_specs,
                                         const std::vector<std::string>& asserts, const Defaults& defaults) {
  std::vector<ExpectSpec> expects;
  for (const std::string& spec : expect_specs) expects.push_back(parse_expect(spec));
  std::vector<CheckResult> results;
  for (const SelectedTensor& item : items) {
    const bool undecoded = !item.load_error.empty() && item.entry;
    for (const ExpectSpec& e : expects) {
      std::string actual = undecoded ? expect_actual_undecoded(e, *item.entry) : expect_actual(e, item, defaults);
      const bool passed = e.key == "stored_dtype" ? stored_type_matches(e.value, actual) : actual == e.value;
      results.push_back({&item, "expect", e.spec, e.value, actual, passed});
    }
    for (const std::string& expr : asserts) {
      // x has no values to assert on
      if (!item.load_error.empty()) throw Error(ErrorCode::Unsupported, item.load_error);
      auto failure = for_tensor(item.label, [&] { return assert_failure(expr, item, defaults); });
      results.push_back({&item, "assert", expr, "True", failure.value_or("True"), !failure});
    }
  }
  return results;
}

}  // namespace tensor_inspect
