// render/validate_report.cpp — validate's findings as lines or one JSON object (validate_report.hpp).
#include "tensor_inspect/validate_report.hpp"

#include <nlohmann/json.hpp>

#include "tensor_inspect/counts.hpp"

namespace tensor_inspect {
namespace {

std::size_t findings_of(const ValidationReport& r, Severity s) {
  std::size_t n = 0;
  for (const Finding& f : r.findings) n += f.severity == s;
  return n;
}

// Clean: no error and no warning; a note says what the tool cannot do, not what the file is.
bool report_is_clean(const ValidationReport& r) {
  return findings_of(r, Severity::Error) + findings_of(r, Severity::Warning) == 0;
}

nlohmann::ordered_json validation_file_json(const ValidationReport& r) {
  nlohmann::ordered_json fj;
  fj["file"] = r.file;
  fj["format"] = r.format;
  fj["clean"] = report_is_clean(r);
  fj["errors"] = findings_of(r, Severity::Error);
  fj["warnings"] = findings_of(r, Severity::Warning);
  fj["notes"] = findings_of(r, Severity::Note);
  fj["findings"] = nlohmann::ordered_json::array();
  for (const Finding& f : r.findings) {
    nlohmann::ordered_json x;
    x["severity"] = severity_name(f.severity);
    x["rule"] = f.rule;
    x["place"] = f.place;
    x["offset"] = f.offset ? nlohmann::ordered_json(*f.offset) : nlohmann::ordered_json(nullptr);
    x["message"] = f.message;
    fj["findings"].push_back(std::move(x));
  }
  return fj;
}

}  // namespace

ValidationTotals validation_totals(const std::vector<ValidationReport>& reports) {
  ValidationTotals t;
  t.files = reports.size();
  for (const auto& r : reports) {
    t.errors += findings_of(r, Severity::Error);
    t.warnings += findings_of(r, Severity::Warning);
    t.notes += findings_of(r, Severity::Note);
    t.clean += report_is_clean(r);
  }
  return t;
}

bool validation_fails(const ValidationTotals& t, bool strict) { return t.errors > 0 || (strict && t.warnings > 0); }

void write_validation(const std::vector<ValidationReport>& reports, bool strict, bool json, OutBuffer& out) {
  const ValidationTotals t = validation_totals(reports);
  if (json) {
    nlohmann::ordered_json j;
    j["schema_version"] = 1;
    j["kind"] = "validate";
    j["files"] = nlohmann::ordered_json::array();
    for (const auto& r : reports) j["files"].push_back(validation_file_json(r));
    j["summary"] = {{"files", reports.size()},
                    {"clean", t.clean},
                    {"errors", t.errors},
                    {"warnings", t.warnings},
                    {"notes", t.notes}};
    j["strict"] = strict;
    out.write(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    out.put('\n');
    return;
  }
  for (const auto& r : reports) {
    const std::string file = escape_untrusted(r.file, false);
    const std::string notes_said =
        r.findings.empty() ? "" : " (" + count_of(findings_of(r, Severity::Note), "note") + ")";
    if (report_is_clean(r)) out.write(file + ": " + r.format + ": clean" + notes_said + "\n");
    for (const Finding& f : r.findings) {
      std::string line = file + ": " + std::string(severity_name(f.severity)) + ": ";
      std::string place = escape_untrusted(f.place, true);
      if (f.offset)
        place += (place.empty() ? "byte " : " (byte ") + std::to_string(*f.offset) + (place.empty() ? "" : ")");
      if (!place.empty()) line += place + ": ";
      line += escape_untrusted(f.message, true) + " [" + f.rule + "]\n";
      out.write(line);
    }
  }
  out.write(count_of(reports.size(), "file") + ": " + std::to_string(t.clean) + " clean, " +
            count_of(t.errors, "error") + ", " + count_of(t.warnings, "warning") +
            (t.notes ? ", " + count_of(t.notes, "note") : "") +
            (strict && t.warnings && !t.errors ? " (--strict: warnings fail)" : "") + "\n");
}

}  // namespace tensor_inspect
