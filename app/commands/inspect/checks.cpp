// app/commands/inspect/checks.cpp — --expect and --assert over each selected tensor.
#include "commands/inspect/checks.hpp"

#include "tensor_inspect/file_stats.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <string_view>

#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {
namespace {

struct Expect {
  std::string spec, key, value;  // value normalised: canonical dtype name, shape repr, digits
};

using Result = CheckResult;

constexpr const char* kExpectKeys = "dtype, shape, ndim, numel, format, nbytes, stored_dtype, stored_nbytes";

std::string int_value(const std::string& spec, const std::string& v) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 19)
    throw Error(ErrorCode::Usage, "--expect '" + spec + "': '" + v + "' is not a non-negative integer");
  return std::to_string(std::stoull(v));
}

Expect parse_expect(const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos)
    throw Error(ErrorCode::Usage, "--expect '" + spec + "': write KEY=VALUE with KEY one of " + kExpectKeys);
  Expect e{spec, spec.substr(0, eq), spec.substr(eq + 1)};
  if (e.key == "dtype") {
    e.value = std::string(dtype_info(parse_dtype_name(e.value, "--expect '" + spec + "'")).name);
  } else if (e.key == "stored_dtype") {
    // The file's own type name (BF16, <f4, Q4_K): compared as stored_matches says, shown as given.
    if (e.value.empty()) throw Error(ErrorCode::Usage, "--expect '" + spec + "': name a stored type (BF16, <f4, Q4_K, bfloat16, ...)");
  } else if (e.key == "shape") {
    e.value = shape_repr(parse_shape(e.value, "--expect shape"));
  } else if (e.key == "ndim" || e.key == "nbytes" || e.key == "numel" || e.key == "stored_nbytes") {
    e.value = int_value(spec, e.value);
  } else if (e.key == "format") {
    if (e.value != "None" && e.value.size() != 1)
      throw Error(ErrorCode::Usage, "--expect '" + spec + "': a format is one struct character (f, e, q, ...) or None");
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

// stored_dtype=VALUE holds when VALUE is the stored type's name (any case: q4_k is Q4_K) or
// names the same dtype (bf16 for BF16, float32 for '<f4').
bool stored_matches(const std::string& expected, const std::string& stored) {
  auto lower = [](std::string v) {
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v;
  };
  if (lower(expected) == lower(stored)) return true;
  const std::optional<DType> a = dtype_from_user_name(expected), b = dtype_of_stored_type(stored);
  return a && b && *a == *b;
}

// What data() would report, from the lazy tensor alone (nothing is read); the stored_ keys
// from the file entry (a literal or expression is stored as it is).
std::string actual_of(const Expect& e, const Item& item, const Defaults& defaults) {
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
std::string actual_undecoded(const Expect& e, const TensorEntry& entry) {
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
std::optional<std::string> assert_failure(const std::string& expr, const Item& item, const Defaults& defaults) {
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
    throw Error(ErrorCode::BadExpression, "--assert '" + expr + "' gives " + std::string(dtype_info(commit_dtype(r.dtype(), defaults)).name) +
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
  if (false_count == 1) return "1 of " + count_of(static_cast<std::uint64_t>(n), "element") + " is False, at " + index;
  return std::to_string(false_count) + " of " + std::to_string(n) + " elements are False, first at " + index;
}

std::string result_json(const Result& r) {
  return std::string("{") + json_head("check") + "\"file\": " + json_string_or_null(r.item->file) + ", \"name\": " +
         json_string_or_null(r.item->name) + ", \"type\": \"" + r.type + "\", \"check\": " + json_string(r.check) +
         ", \"passed\": " + (r.passed ? "true" : "false") + ", \"expected\": " + json_string(r.expected) +
         ", \"actual\": " + json_string(r.actual) + "}";
}

}  // namespace

std::vector<CheckResult> evaluate_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults) {
  std::vector<Expect> expects;
  for (const std::string& spec : o.expects) expects.push_back(parse_expect(spec));
  std::vector<Result> results;
  for (const Item& item : items) {
    const bool undecoded = !item.load_error.empty() && item.entry;
    for (const Expect& e : expects) {
      std::string actual = undecoded ? actual_undecoded(e, *item.entry) : actual_of(e, item, defaults);
      const bool passed = e.key == "stored_dtype" ? stored_matches(e.value, actual) : actual == e.value;
      results.push_back({&item, "expect", e.spec, e.value, actual, passed});
    }
    for (const std::string& expr : o.asserts) {
      if (!item.load_error.empty()) throw Error(ErrorCode::Unsupported, item.load_error);  // x has no values to assert on
      auto failure = for_tensor(item.label, [&] { return assert_failure(expr, item, defaults); });
      results.push_back({&item, "assert", expr, "True", failure.value_or("True"), !failure});
    }
  }
  return results;
}

std::string checks_json(const std::vector<CheckResult>& results, const std::vector<Item>& items) {
  std::size_t failed = 0;
  for (const Result& r : results) failed += !r.passed;
  std::string out = std::string("{") + json_head("checks") + "\"file\": " + json_string_or_null(items.empty() ? std::nullopt : items[0].file) +
                    ", \"checked\": " + std::to_string(results.size()) + ", \"failed\": " + std::to_string(failed) + ", \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i) out += (i ? ", " : "") + result_json(results[i]);
  return out + "]}";
}

int render_checks(const std::vector<CheckResult>& results, const std::vector<Item>& items, const Options& o, std::FILE* to) {
  std::size_t failed = 0;
  for (const Result& r : results) failed += !r.passed;
  OutBuffer out(to);
  if (o.jsonl) {
    for (const Result& r : results) out.write(result_json(r) + "\n");
  } else if (o.json) {
    out.write(checks_json(results, items) + "\n");
  } else {
    for (const Result& r : results) {
      if (r.passed) continue;
      const std::string where = r.item->label.empty() ? "input" : escape_untrusted(r.item->label, true);
      if (r.type == "expect")
        out.write(where + ": --expect " + escape_untrusted(r.check, true) + " failed: " +
                  r.check.substr(0, r.check.find('=')) + " is " + escape_untrusted(r.actual, true) + "\n");
      else
        out.write(where + ": --assert '" + escape_untrusted(r.check, true) + "' failed: " + r.actual + "\n");
    }
    const std::string tensors = count_of(items.size(), "tensor");
    if (results.size() == 1) out.write(std::string(failed ? "1 check failed" : "1 check passed") + " on " + tensors + "\n");
    else if (failed) out.write(std::to_string(failed) + " of " + std::to_string(results.size()) + " checks failed on " + tensors + "\n");
    else out.write("all " + std::to_string(results.size()) + " checks passed on " + tensors + "\n");
  }
  return failed ? 1 : 0;
}

// The statistics options (--stats, --hist, --plot, --fail-on) with --expect and --assert
// in one run: every check is decided first (trouble leaves stdout empty), then the
// statistics are written, then the checks' results. With --json the statistics object
// carries the "checks" object; with --jsonl the "check" lines follow the "stats" lines.
// The exit status is 1 when a check or --fail-on failed.
int with_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults,
                const std::function<int(std::FILE*)>& run_stats) {
  if (o.expects.empty() && o.asserts.empty()) return run_stats(stdout);
  const std::vector<CheckResult> results = evaluate_checks(items, o, defaults);
  if (o.json && !o.jsonl) {
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* mem = ::open_memstream(&text, &size);
    if (!mem) throw std::bad_alloc();
    int status = 0;
    try {
      status = run_stats(mem);
    } catch (...) {
      std::fclose(mem);
      std::free(text);
      throw;
    }
    std::fclose(mem);
    std::string object(text, size);
    std::free(text);
    const std::size_t close = object.find_last_of('}');
    if (close == std::string::npos) throw Error(ErrorCode::Internal, "statistics JSON without an object");
    object.erase(close);
    OutBuffer out(stdout);
    out.write(object + ", \"checks\": " + checks_json(results, items) + "}\n");
    bool failed = false;
    for (const CheckResult& r : results) failed |= !r.passed;
    return status || failed ? 1 : 0;
  }
  const int status = run_stats(stdout);
  std::fflush(stdout);
  return render_checks(results, items, o, stdout) || status ? 1 : 0;
}

int run_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults) {
  // Every check is decided before anything is printed: trouble leaves stdout empty.
  return render_checks(evaluate_checks(items, o, defaults), items, o, stdout);
}

}  // namespace tensor_inspect::app
