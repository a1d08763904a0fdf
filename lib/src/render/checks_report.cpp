// render/checks_report.cpp — --expect and --assert results as text, one "checks" object or
// "check" lines (checks.hpp; schemas/checks.schema.json, check.schema.json).
#include <cstdlib>
#include <new>

#include "tensor_inspect/checks.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/json_shape.hpp"

namespace tensor_inspect {
namespace {

std::string check_result_json(const CheckResult& r) {
  return std::string("{") + json_head("check") + "\"file\": " + json_string_or_null(r.item->file) +
         ", \"name\": " + json_string_or_null(r.item->name) + ", \"type\": \"" + r.type +
         "\", \"check\": " + json_string(r.check) + ", \"passed\": " + (r.passed ? "true" : "false") +
         ", \"expected\": " + json_string(r.expected) + ", \"actual\": " + json_string(r.actual) + "}";
}

std::size_t failed_checks(const std::vector<CheckResult>& results) {
  std::size_t failed = 0;
  for (const CheckResult& r : results) failed += !r.passed;
  return failed;
}

}  // namespace

std::string checks_json(const std::vector<CheckResult>& results, const std::vector<SelectedTensor>& items) {
  std::string out = std::string("{") + json_head("checks") +
                    "\"file\": " + json_string_or_null(items.empty() ? std::nullopt : items[0].file) +
                    ", \"checked\": " + std::to_string(results.size()) +
                    ", \"failed\": " + std::to_string(failed_checks(results)) + ", \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i) out += (i ? ", " : "") + check_result_json(results[i]);
  return out + "]}";
}

std::size_t render_checks(const std::vector<CheckResult>& results, const std::vector<SelectedTensor>& items,
                          ChecksOutput how, OutBuffer& out) {
  const std::size_t failed = failed_checks(results);
  if (how == ChecksOutput::Jsonl) {
    for (const CheckResult& r : results) out.write(check_result_json(r) + "\n");
    return failed;
  }
  if (how == ChecksOutput::Json) {
    out.write(checks_json(results, items) + "\n");
    return failed;
  }
  for (const CheckResult& r : results) {
    if (r.passed) continue;
    const std::string where = r.item->label.empty() ? "input" : escape_untrusted(r.item->label, true);
    if (r.type == "expect")
      out.write(where + ": --expect " + escape_untrusted(r.check, true) + " failed: " +
                r.check.substr(0, r.check.find('=')) + " is " + escape_untrusted(r.actual, true) + "\n");
    else
      out.write(where + ": --assert '" + escape_untrusted(r.check, true) + "' failed: " + r.actual + "\n");
  }
  const std::string tensors = count_of(items.size(), "tensor");
  if (results.size() == 1)
    out.write(std::string(failed ? "1 check failed" : "1 check passed") + " on " + tensors + "\n");
  else if (failed)
    out.write(std::to_string(failed) + " of " + std::to_string(results.size()) + " checks failed on " + tensors +
              "\n");
  else
    out.write("all " + std::to_string(results.size()) + " checks passed on " + tensors + "\n");
  return failed;
}

int write_stats_with_checks(const std::vector<CheckResult>& results, const std::vector<SelectedTensor>& items,
                            const std::function<int(std::FILE*)>& write_stats, OutBuffer& out) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* mem = ::open_memstream(&text, &size);
  if (!mem) throw std::bad_alloc();
  int status = 0;
  try {
    status = write_stats(mem);
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
  out.write(object + ", \"checks\": " + checks_json(results, items) + "}\n");
  return status || failed_checks(results) ? 1 : 0;
}

}  // namespace tensor_inspect
