// tests/unit/validate_report_test.cpp — tensor_inspect/validate_report.hpp: findings counted by
// class and written as lines or one JSON object, the summary's words written out by hand.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "tensor_inspect/validate_report.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

std::vector<ti::ValidationReport> two_reports() {
  ti::ValidationReport clean{"a.npy", "npy", {{ti::Severity::Note, "npy.unsupported", "", std::nullopt, "descr"}}};
  ti::ValidationReport broken{"b.safetensors",
                              "safetensors",
                              {{ti::Severity::Error, "safetensors.overlap", "tensor 'w'", 8, "overlaps 'v'"},
                               {ti::Severity::Warning, "safetensors.trailing", "", 24, "4 bytes after the data"}}};
  return {clean, broken};
}

}  // namespace

TEST_CASE("validation_totals: a note leaves a file clean, an error or a warning does not") {
  const ti::ValidationTotals t = ti::validation_totals(two_reports());
  CHECK(t.files == 2);
  CHECK(t.clean == 1);
  CHECK(t.errors == 1);
  CHECK(t.warnings == 1);
  CHECK(t.notes == 1);
  CHECK(ti::validation_fails(t, false));
  ti::ValidationTotals warned;
  warned.warnings = 1;
  CHECK_FALSE(ti::validation_fails(warned, false));
  CHECK(ti::validation_fails(warned, true));
}

TEST_CASE("write_validation: one line per finding, its place and byte, and a summary") {
  const std::string text =
      test_util::rendered([&](ti::OutBuffer& out) { ti::write_validation(two_reports(), false, false, out); });
  CHECK(text ==
        "a.npy: npy: clean (1 note)\n"
        "a.npy: note: descr [npy.unsupported]\n"
        "b.safetensors: error: tensor 'w' (byte 8): overlaps 'v' [safetensors.overlap]\n"
        "b.safetensors: warning: byte 24: 4 bytes after the data [safetensors.trailing]\n"
        "2 files: 1 clean, 1 error, 1 warning, 1 note\n");
  const std::string json =
      test_util::rendered([&](ti::OutBuffer& out) { ti::write_validation(two_reports(), true, true, out); });
  const nlohmann::json j = nlohmann::json::parse(json);
  CHECK(j["kind"] == "validate");
  CHECK(j["strict"] == true);
  CHECK(j["summary"]["clean"] == 1);
  CHECK(j["files"][1]["findings"][0]["offset"] == 8);
  CHECK(j["files"][0]["findings"][0]["offset"].is_null());
}
