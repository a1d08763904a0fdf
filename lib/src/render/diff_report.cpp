// render/diff_report.cpp — the report of a diff: a table padded by terminal columns (text)
// or one "diff" JSON object, from the same rows and with the same facts.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "tensor_inspect/diff.hpp"
#include "tensor_inspect/display_width.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "compare/quant_error.hpp"

namespace tensor_inspect {
namespace {

std::optional<std::string> diff_name_of(const TensorEntry* e) {
  if (!e || e->name.empty()) return std::nullopt;
  return e->name;
}

std::string dtype_of(const TensorEntry& e) { return e.dtype ? std::string(dtype_info(*e.dtype).name) : e.stored_type; }

std::string index_repr(std::int64_t flat, const Shape& shape) {
  std::string index;
  for (std::size_t ax = shape.size(); ax-- > 0;) {
    index = std::to_string(flat % shape[ax]) + (index.empty() ? "" : ", ") + index;
    flat /= shape[ax];
  }
  return "[" + index + "]";
}

std::string figure_text(double v) {
  if (std::isnan(v)) return "nan";  // printf would say "-nan" for a negative NaN; Python says nan
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string figure_json(std::optional<double> v) {
  if (!v) return "null";
  if (std::isnan(*v)) return "\"nan\"";
  if (std::isinf(*v)) return *v > 0 ? "\"inf\"" : "\"-inf\"";
  return float_repr(*v);
}

// The comparisons that measured values, in row order.
std::vector<const Comparison*> measured_pairs(const std::vector<DiffRow>& rows) {
  std::vector<const Comparison*> out;
  for (const DiffRow& r : rows)
    if (r.cmp) out.push_back(&*r.cmp);
  return out;
}

// The whole model's quantization error, parameter-weighted (diff_quant.hpp), A the
// reference: appended to the counts line, which stays the last line.
std::string model_error_text(const std::vector<DiffRow>& rows, const std::string& label_a) {
  const QuantError total = total_quant_error(measured_pairs(rows));
  if (!total.nmse()) return "";
  return "; NMSE " + figure_text(*total.nmse()) + ", SQNR " + figure_text(*total.sqnr_db()) + " dB (" +
         escape_untrusted(label_a, true) + " the reference, weighted by parameters)";
}

std::string shape_json(const TensorEntry* e) {
  if (!e) return "null";
  std::string s = "[";
  for (std::size_t i = 0; i < e->shape.size(); ++i) s += (i ? ", " : "") + std::to_string(e->shape[i]);
  return s + "]";
}

}  // namespace

void write_diff_text(const std::vector<DiffRow>& rows, const DiffInput& a, const DiffInput& b, OutBuffer& out) {
  constexpr std::size_t kCols = 9;
  std::vector<std::array<std::string, kCols>> table;
  table.push_back({"name", "status", "max_abs", "max_rel", "rmse", "cosine", "nmse", "sqnr_db", "mismatched"});
  std::size_t counts[kDiffStatusCount] = {};
  for (const DiffRow& r : rows) {
    ++counts[static_cast<int>(r.status)];
    std::string name = escape_untrusted(diff_name_of(r.a ? r.a : r.b).value_or("(unnamed)"), true);
    if (r.a && r.b && r.a->name != r.b->name && !r.b->name.empty() && !r.a->name.empty())
      name += " -> " + escape_untrusted(r.b->name, true);
    std::array<std::string, kCols> row{name, diff_status_text(r.status), "-", "-", "-", "-", "-", "-", "-"};
    if (r.status == DiffStatus::ShapeMismatch) row[8] = shape_repr(r.a->shape) + " vs " + shape_repr(r.b->shape);
    if (r.cmp) {
      row[2] = figure_text(r.cmp->max_abs);
      row[3] = figure_text(r.cmp->max_rel);
      row[4] = figure_text(r.cmp->rmse);
      row[5] = r.cmp->cosine ? figure_text(*r.cmp->cosine) : "-";
      const QuantError q = quant_error(*r.cmp);
      row[6] = q.nmse() ? figure_text(*q.nmse()) : "-";
      row[7] = q.sqnr_db() ? figure_text(*q.sqnr_db()) : "-";
      row[8] = std::to_string(r.cmp->mismatched);
      if (r.cmp->first_mismatch)
        row[8] +=
            " (of " + std::to_string(r.cmp->numel) + "), first at " + index_repr(*r.cmp->first_mismatch, r.a->shape);
    }
    // The dtypes of a pair that differ in them, also where --ignore-dtype let the values decide.
    if (r.a && r.b && r.status != DiffStatus::ShapeMismatch && dtype_of(*r.a) != dtype_of(*r.b))
      row[1] += " (" + dtype_of(*r.a) + " vs " + dtype_of(*r.b) + ")";
    if (!r.note.empty()) row[8] = escape_untrusted(r.note, true);
    table.push_back(std::move(row));
  }
  // Padded by terminal columns, not bytes: a name of non-ASCII characters lines up.
  std::array<std::size_t, kCols> width{};
  for (const auto& row : table)
    for (std::size_t c = 0; c < kCols; ++c) width[c] = std::max(width[c], display_width(row[c]));
  for (const auto& row : table) {
    std::string line;
    for (std::size_t c = 0; c < kCols; ++c)
      line += row[c] + (c + 1 < kCols ? std::string(width[c] - display_width(row[c]) + 2, ' ') : "");
    out.write(line + "\n");
  }
  const std::size_t compared = rows.size() - counts[4] - counts[5] - counts[6];
  const std::string not_comparable = counts[6] ? std::to_string(counts[6]) + " not comparable, " : "";
  const std::size_t differ = compared - counts[0];
  // "N of M compared tensors" stays plural, as "1 of 1 tests passed" does; the verb follows N.
  out.write(std::to_string(differ) + " of " + std::to_string(compared) + " compared tensors" +
            (differ == 1 ? " differs, " : " differ, ") + not_comparable + std::to_string(counts[4]) + " only in " +
            escape_untrusted(a.label, true) + ", " + std::to_string(counts[5]) + " only in " +
            escape_untrusted(b.label, true) + model_error_text(rows, a.label) + "\n");
}

std::string diff_inputs_json(const DiffInput& a, const DiffInput& b, const DiffOptions& o) {
  return "\"a\": {\"input\": " + json_string(a.label) + ", \"format\": " + json_string(a.format) +
         "}, \"b\": {\"input\": " + json_string(b.label) + ", \"format\": " + json_string(b.format) +
         "}, \"rtol\": " + figure_json(o.rtol) + ", \"atol\": " + figure_json(o.atol) +
         ", \"nan_equal\": " + (o.nan_differs ? "false" : "true") + ", \"exact\": " + (o.exact ? "true" : "false") +
         ", \"ignore_dtype\": " + (o.ignore_dtype ? "true" : "false") +
         ", \"tolerance\": " + json_string(o.tolerance.empty() ? "allclose" : o.tolerance) +
         ", \"names\": " + json_string_or_null(o.names_map.empty() ? std::nullopt : std::optional(o.names_map));
}

std::string diff_row_json(const DiffRow& r) {
  const auto& c = r.cmp;
  std::string first = "null";
  if (c && c->first_mismatch) first = index_repr(*c->first_mismatch, r.a->shape);
  // Stored bytes compared: every element counted, none measured; equal bytes mismatch none.
  std::string numel = c ? std::to_string(c->numel) : r.bytes_compared ? std::to_string(prod(r.a->shape)) : "null";
  std::string mismatched = c                                                  ? std::to_string(c->mismatched)
                           : r.bytes_compared && r.status == DiffStatus::Same ? "0"
                                                                              : "null";
  return "\"name_a\": " + json_string_or_null(r.a ? diff_name_of(r.a) : std::nullopt) +
         ", \"name_b\": " + json_string_or_null(r.b ? diff_name_of(r.b) : std::nullopt) + ", \"status\": \"" +
         diff_status_json(r.status) + "\", \"dtype_a\": " + (r.a ? json_string(dtype_of(*r.a)) : "null") +
         ", \"dtype_b\": " + (r.b ? json_string(dtype_of(*r.b)) : "null") + ", \"shape_a\": " + shape_json(r.a) +
         ", \"shape_b\": " + shape_json(r.b) + ", \"numel\": " + numel + ", \"mismatched\": " + mismatched +
         ", \"first_mismatch\": " + first +
         ", \"max_abs\": " + figure_json(c ? std::optional(c->max_abs) : std::nullopt) +
         ", \"max_rel\": " + figure_json(c ? std::optional(c->max_rel) : std::nullopt) +
         ", \"rmse\": " + figure_json(c ? std::optional(c->rmse) : std::nullopt) +
         ", \"cosine\": " + figure_json(c ? c->cosine : std::nullopt) +
         ", \"sum_sq_a\": " + figure_json(c ? std::optional(c->sum_sq_a) : std::nullopt) +
         ", \"sum_sq_diff\": " + figure_json(c ? std::optional(c->sum_sq_diff) : std::nullopt) +
         ", \"nmse\": " + figure_json(c ? quant_error(*c).nmse() : std::nullopt) +
         ", \"sqnr_db\": " + figure_json(c ? quant_error(*c).sqnr_db() : std::nullopt) +
         ", \"rtol\": " + figure_json(c ? std::optional(r.rtol) : std::nullopt) +
         ", \"atol\": " + figure_json(c ? std::optional(r.atol) : std::nullopt) +
         ", \"note\": " + json_string_or_null(r.note.empty() ? std::nullopt : std::optional(r.note));
}

namespace {

// The summary's whole-model error: totals of a^2 and (a - b)^2 over every measured pair.
std::string quant_summary_json(const std::vector<DiffRow>& rows) {
  const std::vector<const Comparison*> measured = measured_pairs(rows);
  const QuantError t = total_quant_error(measured);
  std::int64_t params = 0;
  for (const Comparison* c : measured) params += c->numel;
  return ", \"measured\": " + std::to_string(measured.size()) + ", \"parameters\": " + std::to_string(params) +
         ", \"sum_sq_a\": " + figure_json(t.sum_sq_a) + ", \"sum_sq_diff\": " + figure_json(t.sum_sq_diff) +
         ", \"nmse\": " + figure_json(t.nmse()) + ", \"sqnr_db\": " + figure_json(t.sqnr_db());
}

}  // namespace

std::string diff_summary_json(const std::vector<DiffRow>& rows) {
  std::size_t counts[kDiffStatusCount] = {};
  for (const DiffRow& r : rows) ++counts[static_cast<int>(r.status)];
  const std::size_t compared = rows.size() - counts[4] - counts[5] - counts[6];
  return "\"summary\": {\"tensors\": " + std::to_string(rows.size()) + ", \"compared\": " + std::to_string(compared) +
         ", \"same\": " + std::to_string(counts[0]) + ", \"differs\": " + std::to_string(counts[1]) +
         ", \"shape_mismatch\": " + std::to_string(counts[2]) + ", \"dtype_mismatch\": " + std::to_string(counts[3]) +
         ", \"only_in_a\": " + std::to_string(counts[4]) + ", \"only_in_b\": " + std::to_string(counts[5]) +
         ", \"not_comparable\": " + std::to_string(counts[6]) + quant_summary_json(rows) + "}";
}

void write_diff_json(const std::vector<DiffRow>& rows, const DiffInput& a, const DiffInput& b, const DiffOptions& o,
                     OutBuffer& out) {
  out.write(std::string("{") + json_head("diff") + diff_inputs_json(a, b, o) + ", \"tensors\": [");
  for (std::size_t i = 0; i < rows.size(); ++i)
    out.write(std::string(i ? ", " : "") + "{" + diff_row_json(rows[i]) + "}");
  out.write("], " + diff_summary_json(rows) + "}\n");
}

}  // namespace tensor_inspect
