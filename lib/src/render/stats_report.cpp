// render/stats_report.cpp — text and JSON of statistics, histograms and --fail-on results.
// Text values are Python reprs (one tensor) or 6 significant digits (a file's table); JSON
// numbers carry the full value (Python's repr digits), null where there is none.
#include "tensor_inspect/file_stats.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>

#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/display_width.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {
namespace {

// A float in strict JSON: non-finite values (a std or mean that overflows double, as
// NumPy's does) are the strings "nan", "inf", "-inf", as everywhere in the tool's JSON.
std::string json_float(double v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  return float_repr(v);
}

std::string scalar_repr(const Scalar& v, bool json) {
  switch (v.kind) {
    case DKind::Bool:
      return json ? (v.b ? "true" : "false") : (v.b ? "True" : "False");
    case DKind::Signed:
      return std::to_string(v.i);
    case DKind::Unsigned:
      return std::to_string(v.u);
    case DKind::Float:
      return json ? json_float(v.f) : float_repr(v.f);
  }
  return "";
}

std::string short_float(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A bool tensor's absmax is its max, and prints as its min and max do (True, not 1).
Scalar absmax_of(const TensorStats& s) {
  return s.dtype == DType::Bool ? Scalar::from_bool(s.absmax.as_bool()) : s.absmax;
}

std::string short_scalar(const Scalar& v) { return v.kind == DKind::Float ? short_float(v.f) : scalar_repr(v, false); }

std::string json_shape(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string json_strings(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + json_string(v[i]);
  return out + "]";
}

std::string join_words(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

// A row's name in JSON: "" is the unnamed tensor (a lone .npy), null as in the tensor kind.
std::string json_name(const std::string& name) { return name.empty() ? "null" : json_string(name); }

// The fields of one row after its name, without braces: shared by the tensor and file
// objects (a file's rows name their tensors, a tensor object says "file" and "name" first).
std::string json_row_fields(const StatsRow& r) {
  std::string o;
  o += "\"dtype\": " + (r.dtype ? json_string(dtype_info(*r.dtype).name) : "null");
  o += ", \"stored_type\": " + json_string(r.stored_type);
  o += ", \"shape\": " + json_shape(r.shape);
  o += ", \"nbytes\": " + std::to_string(r.nbytes);
  const TensorStats* s = r.stats ? &*r.stats : nullptr;
  const bool has = s && s->finite > 0;
  auto num = [&](std::uint64_t v) { return s ? std::to_string(v) : std::string("null"); };
  o += ", \"count\": " + (s ? std::to_string(s->count) : "null");
  o += ", \"finite\": " + (s ? std::to_string(s->finite) : "null");
  o += ", \"min\": " + (has ? scalar_repr(s->min, true) : "null");
  o += ", \"max\": " + (has ? scalar_repr(s->max, true) : "null");
  o += ", \"mean\": " + (has ? json_float(s->mean) : "null");
  o += ", \"std\": " + (has ? json_float(s->std) : "null");
  o += ", \"absmax\": " + (has ? scalar_repr(absmax_of(*s), true) : "null");
  o += ", \"nan\": " + num(s ? s->nan : 0);
  o += ", \"posinf\": " + num(s ? s->posinf : 0);
  o += ", \"neginf\": " + num(s ? s->neginf : 0);
  o += ", \"zero\": " + num(s ? s->zero : 0);
  o += ", \"skipped\": " + (r.skipped.empty() ? "null" : json_string(r.skipped));
  o += ", \"failed\": " + json_strings(r.failed);
  o += ", \"first_nan\": " + (r.first_nan.empty() ? "null" : r.first_nan);  // "[0, 2]" is a JSON array too
  return o;
}

std::string json_histogram(const Histogram& h) {
  std::string o = "{\"bins\": " + std::to_string(h.counts.size()) + ", \"lo\": " + float_repr(h.lo) +
                  ", \"hi\": " + float_repr(h.hi) + ", \"edges\": [";
  for (std::size_t i = 0; i <= h.counts.size(); ++i) o += (i ? ", " : "") + float_repr(h.edge(i));
  o += "], \"counts\": [";
  for (std::size_t i = 0; i < h.counts.size(); ++i) o += (i ? ", " : "") + std::to_string(h.counts[i]);
  o += "], \"nan\": " + std::to_string(h.nan) + ", \"posinf\": " + std::to_string(h.posinf) +
       ", \"neginf\": " + std::to_string(h.neginf) + "}";
  return o;
}

// A horizontal bar of `frac` (0..1) of `width` cells, in eighths of a block.
std::string bar_cells(double frac, int width) {
  static const char* const eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  const auto units = static_cast<long>(frac * width * 8 + 0.5);
  std::string out;
  for (long i = 0; i < units / 8; ++i) out += "█";
  out += eighths[units % 8];
  return out;
}

void text_histogram(const Histogram& h, OutBuffer& out) {
  static const char* const levels[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  const std::uint64_t peak = std::max<std::uint64_t>(1, *std::max_element(h.counts.begin(), h.counts.end()));
  out.write("histogram: " + count_of(h.counts.size(), "bin") + " over [" + float_repr(h.lo) + ", " + float_repr(h.hi) +
            "]; nan " + std::to_string(h.nan) + ", +inf " + std::to_string(h.posinf) + ", -inf " +
            std::to_string(h.neginf) + " counted apart\n  ");
  for (std::uint64_t c : h.counts) {
    const auto level = c == 0 ? 0 : 1 + static_cast<int>(static_cast<double>(c) * 7.0 / static_cast<double>(peak));
    out.write(levels[std::min(level, 8)]);
  }
  out.write("\n");
  std::vector<std::string> lo(h.counts.size()), hi(h.counts.size());
  std::size_t wlo = 0, whi = 0, wcount = 0;
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    lo[i] = short_float(h.edge(i));
    hi[i] = short_float(h.edge(i + 1));
    wlo = std::max(wlo, lo[i].size());
    whi = std::max(whi, hi[i].size());
    wcount = std::max(wcount, std::to_string(h.counts[i]).size());
  }
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    const bool last = i + 1 == h.counts.size();
    std::string count = std::to_string(h.counts[i]);
    out.write("  [" + std::string(wlo - lo[i].size(), ' ') + lo[i] + ", " + hi[i] + (last ? "]" : ")") +
              std::string(whi - hi[i].size() + 1, ' ') + std::string(wcount - count.size(), ' ') + count + " " +
              bar_cells(static_cast<double>(h.counts[i]) / static_cast<double>(peak), 40) + "\n");
  }
}

// What a failing row fails on, for people: "nan (12 nan)".
std::string failure_text(const StatsRow& r) {
  std::vector<std::string> parts;
  for (const std::string& c : r.failed) {
    if (c == "nan")
      parts.push_back(std::to_string(r.stats->nan) + " nan" + (r.first_nan.empty() ? "" : ", first at " + r.first_nan));
    else if (c == "inf")
      parts.push_back(std::to_string(r.stats->posinf) + " +inf, " + std::to_string(r.stats->neginf) + " -inf");
    else
      parts.push_back(r.stats->count == 1 ? "its 1 element zero"
                                          : "all " + std::to_string(r.stats->count) + " elements zero");
  }
  return join_words(parts, "; ");
}

// Every row was checked: one that could not be ends the run first (fail_on_unchecked).
void text_fail_report(const std::vector<StatsRow>& rows, const FailOn& f, OutBuffer& out) {
  std::size_t failing = 0;
  for (const StatsRow& r : rows) failing += !r.failed.empty();
  const std::string head = "fail-on " + join_words(f.checks, ",") + ": ";
  const std::string of_n = " of " + count_of(rows.size(), "tensor");
  if (failing == 0)
    out.write(head + "ok, " + std::to_string(rows.size()) + of_n + " checked\n");
  else
    out.write(head + std::to_string(failing) + of_n + (failing == 1 ? " fails\n" : " fail\n"));
  for (const StatsRow& r : rows)
    if (!r.failed.empty())
      out.write("  " + escape_untrusted(r.name.empty() ? "<tensor>" : r.name, false) + ": " + failure_text(r) + "\n");
}

std::string json_fail_on(const std::vector<StatsRow>& rows, const FailOn& f) {
  if (!f.enabled()) return "null";
  // Each failing tensor as "name" has it: null for the unnamed one (a lone .npy), not "".
  std::string failed;
  for (const StatsRow& r : rows)
    if (!r.failed.empty()) failed += (failed.empty() ? "" : ", ") + json_name(r.name);
  return "{\"checks\": " + json_strings(f.checks) + ", \"ok\": " + (failed.empty() ? "true" : "false") +
         ", \"failed\": [" + failed + "]}";
}

}  // namespace

void render_tensor_stats(const StatsRow& r, const StatsSource& source, const Histogram* hist, const FailOn& f,
                         bool json, bool show_stats, OutBuffer& out) {
  if (json) {
    // "file" and "name" as the tensor kind has them; "input" (the label) stays for readers of before.
    out.write("{" + json_head("stats") +
              "\"input\": " + (source.label.empty() ? std::string("null") : json_string(source.label)) +
              ", \"file\": " + json_string_or_null(source.file) + ", \"name\": " + json_string_or_null(source.name) +
              ", " + json_row_fields(r) + ", \"histogram\": " + (hist ? json_histogram(*hist) : "null") +
              ", \"fail_on\": " + json_fail_on({r}, f) + "}\n");
    return;
  }
  if (show_stats) {
    const TensorStats& s = *r.stats;
    const bool has = s.finite > 0;
    if (source.name) out.write("name: " + escape_untrusted(*source.name, false) + "\n");
    out.write(
        "dtype: " + std::string(dtype_info(s.dtype).name) +
        (r.stored_type.size() && r.group != dtype_info(s.dtype).name ? " (stored as " + r.stored_type + ")" : "") +
        "\n");
    out.write("shape: " + shape_repr(r.shape) + "\n");
    out.write("count: " + std::to_string(s.count) + "\n");
    if (is_float(s.dtype)) out.write("finite: " + std::to_string(s.finite) + "\n");
    out.write("min: " + (has ? scalar_repr(s.min, false) : "None") + "\n");
    out.write("max: " + (has ? scalar_repr(s.max, false) : "None") + "\n");
    out.write("mean: " + (has ? float_repr(s.mean) : "None") + "\n");
    out.write("std: " + (has ? float_repr(s.std) : "None") + "\n");
    out.write("absmax: " + (has ? scalar_repr(absmax_of(s), false) : "None") + "\n");
    out.write("nan: " + std::to_string(s.nan) + "\n+inf: " + std::to_string(s.posinf) +
              "\n-inf: " + std::to_string(s.neginf) + "\nzero: " + std::to_string(s.zero) + "\n");
  }
  if (hist) text_histogram(*hist, out);
  if (f.enabled()) text_fail_report({r}, f, out);
}

void render_file_stats(const std::string& path, const std::string& format, const std::vector<StatsRow>& rows,
                       const FailOn& f, bool json, bool show_stats, OutBuffer& out) {
  struct Group {
    std::uint64_t tensors = 0, parameters = 0, nbytes = 0;
  };
  std::vector<std::pair<std::string, Group>> groups;  // in order of first appearance
  Group all;
  std::uint64_t skipped = 0, nan = 0, posinf = 0, neginf = 0;
  for (const StatsRow& r : rows) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == r.group; });
    if (it == groups.end()) it = groups.insert(groups.end(), {r.group, Group{}});
    const auto params = static_cast<std::uint64_t>(prod(r.shape));
    for (Group* g : {&it->second, &all}) {
      ++g->tensors;
      g->parameters += params;
      g->nbytes += r.nbytes;
    }
    skipped += !r.skipped.empty();
    if (r.stats) {
      nan += r.stats->nan;
      posinf += r.stats->posinf;
      neginf += r.stats->neginf;
    }
  }
  if (json) {
    out.write("{" + json_head("file_stats") + "\"file\": " + json_string(path) +
              ", \"format\": " + json_string(format) + ", \"tensors\": [");
    for (std::size_t i = 0; i < rows.size(); ++i)
      out.write((i ? ", {\"name\": " : "{\"name\": ") + json_name(rows[i].name) + ", " + json_row_fields(rows[i]) +
                "}");
    out.write("], \"totals\": {\"tensors\": " + std::to_string(all.tensors) +
              ", \"parameters\": " + std::to_string(all.parameters) + ", \"nbytes\": " + std::to_string(all.nbytes) +
              ", \"skipped\": " + std::to_string(skipped) + ", \"nan\": " + std::to_string(nan) + ", \"posinf\": " +
              std::to_string(posinf) + ", \"neginf\": " + std::to_string(neginf) + ", \"by_dtype\": [");
    for (std::size_t i = 0; i < groups.size(); ++i)
      out.write(std::string(i ? ", " : "") + "{\"dtype\": " + json_string(groups[i].first) +
                ", \"tensors\": " + std::to_string(groups[i].second.tensors) +
                ", \"parameters\": " + std::to_string(groups[i].second.parameters) +
                ", \"nbytes\": " + std::to_string(groups[i].second.nbytes) + "}");
    out.write("]}, \"fail_on\": " + json_fail_on(rows, f) + "}\n");
    return;
  }
  if (show_stats) {
    std::vector<std::vector<std::string>> table;
    table.push_back({"name", "dtype", "shape", "min", "max", "mean", "std", "absmax", "nan", "+inf", "-inf", "zero"});
    for (const StatsRow& r : rows) {
      std::vector<std::string> cells = {escape_untrusted(r.name, false), r.group, shape_repr(r.shape)};
      if (!r.stats) {
        cells.push_back("skipped: " + r.skipped);
      } else {
        const TensorStats& s = *r.stats;
        const bool has = s.finite > 0;
        for (const std::string& c : {has ? short_scalar(s.min) : "None", has ? short_scalar(s.max) : "None",
                                     has ? short_float(s.mean) : "None", has ? short_float(s.std) : "None",
                                     has ? short_scalar(absmax_of(s)) : "None"})
          cells.push_back(c);
        for (std::uint64_t c : {s.nan, s.posinf, s.neginf, s.zero}) cells.push_back(std::to_string(c));
      }
      table.push_back(std::move(cells));
    }
    // A skipped row is name, dtype and shape, aligned as the others', then its reason.
    std::vector<std::size_t> width(12, 0);
    for (const auto& row : table)
      for (std::size_t c = 0; c < std::min<std::size_t>(row.size(), row.size() == 12 ? 12 : 3); ++c)
        width[c] = std::max(width[c], display_width(row[c]));  // columns, not bytes
    for (const auto& row : table) {
      std::string line;
      for (std::size_t c = 0; c < row.size(); ++c) {
        const bool reason = row.size() != 12 && c >= 3;
        const bool right = c >= 3 && !reason;
        const std::string pad(reason ? 0 : width[c] - std::min(width[c], display_width(row[c])), ' ');
        line += (c ? "  " : "") + (right ? pad + row[c] : row[c] + (c + 1 < row.size() ? pad : ""));
      }
      out.write(line + "\n");
    }
    auto sizes = [](const Group& g) {
      return count_of(g.tensors, "tensor") + ", " + count_of(g.parameters, "parameter") + ", " +
             count_of(g.nbytes, "byte");
    };
    std::string totals = "total: " + sizes(all);
    for (const auto& [name, g] : groups) totals += "; " + name + ": " + sizes(g);
    out.write(totals + "\n");
  }
  if (f.enabled()) text_fail_report(rows, f, out);
}

}  // namespace tensor_inspect
