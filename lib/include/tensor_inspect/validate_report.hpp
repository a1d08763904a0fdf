// tensor_inspect/validate_report.hpp — `validate`'s report of several files' findings: one line
// per finding and a summary (text), or one "validate" object (schemas/validate.schema.json).
//
//   std::vector<ti::ValidationReport> reports{ti::validate_file("model.safetensors")};
//   ti::OutBuffer out(stdout);
//   ti::write_validation(reports, false, false, out);   // "model.safetensors: safetensors: clean\n1 file: ..."
//   bool failed = ti::validation_fails(ti::validation_totals(reports), false);
#pragma once

#include <cstddef>
#include <vector>

#include "tensor_inspect/render.hpp"
#include "tensor_inspect/validate.hpp"

namespace tensor_inspect {

/// The findings of several reports, counted by class.
struct ValidationTotals {
  std::size_t files = 0;
  std::size_t clean = 0;  ///< reports with no error and no warning (notes say what the tool cannot do)
  std::size_t errors = 0, warnings = 0, notes = 0;
};

/// The totals of `reports`.
ValidationTotals validation_totals(const std::vector<ValidationReport>& reports);

/// True when a run with these totals fails (exit 1): an error, or under `strict` a warning.
bool validation_fails(const ValidationTotals& totals, bool strict);

/// Writes the reports: each file's findings as "FILE: CLASS: PLACE (byte N): MESSAGE [RULE]"
/// lines ("FILE: FORMAT: clean" for a clean one) and a summary line, or with `json` one
/// "validate" object carrying `strict`. Untrusted text is escaped (render.hpp).
void write_validation(const std::vector<ValidationReport>& reports, bool strict, bool json, OutBuffer& out);

}  // namespace tensor_inspect
