// render/overview.cpp — the --overview of a checkpoint (overview.hpp).
#include "tensor_inspect/overview.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "render/architecture.hpp"
#include "tensor_inspect/display_width.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/totals.hpp"

namespace tensor_inspect {
namespace {

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A name cut at its dots: the parts, and which of them are all digits (a layer index).
struct Split {
  std::vector<std::string_view> parts;
  std::vector<std::size_t> numeric;  // indices into parts
};

Split split(std::string_view name) {
  Split s;
  std::size_t at = 0;
  while (true) {
    const std::size_t dot = name.find('.', at);
    s.parts.push_back(name.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at));
    // A long digit run is no index (a hash, a date): grouping it would merge unrelated names.
    if (is_digits(s.parts.back()) && s.parts.back().size() <= 9) s.numeric.push_back(s.parts.size() - 1);
    if (dot == std::string_view::npos) break;
    at = dot + 1;
  }
  return s;
}

// One row: the tensors of one name pattern, stored type and shape.
struct Group {
  std::string type;
  Shape shape;
  bool unknown = false;
  std::vector<std::string_view> parts;           // of the first name
  std::vector<std::size_t> numeric;              // positions of the index parts
  std::vector<std::set<std::uint64_t>> indices;  // values seen at each
  std::uint64_t count = 0, nbytes = 0;
  std::string name;                              // as shown
};

// "{0..31}" for a run, "{0,2,4}" for a few others, the value itself for one.
std::string index_set_text(const std::set<std::uint64_t>& v) {
  if (v.size() == 1) return std::to_string(*v.begin());
  if (*v.rbegin() - *v.begin() + 1 == v.size())
    return "{" + std::to_string(*v.begin()) + ".." + std::to_string(*v.rbegin()) + "}";
  std::string s = "{";
  std::size_t i = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++i) {
    if (v.size() > 8 && i == 3) {
      s += ",...," + std::to_string(*v.rbegin());
      break;
    }
    s += (i ? "," : "") + std::to_string(*it);
  }
  return s + "}";
}

// Natural order: runs of digits compare as numbers, everything else byte by byte.
bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = a[i] >= '0' && a[i] <= '9', db = b[j] >= '0' && b[j] <= '9';
    if (da && db) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && a[ei] >= '0' && a[ei] <= '9') ++ei;
      while (ej < b.size() && b[ej] >= '0' && b[ej] <= '9') ++ej;
      std::string_view x = a.substr(i, ei - i), y = b.substr(j, ej - j);
      while (x.size() > 1 && x[0] == '0') x.remove_prefix(1);
      while (y.size() > 1 && y[0] == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ei, j = ej;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

std::vector<Group> group_tensors(const LoadedFile& file) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;  // pattern + type + shape -> group
  for (const TensorEntry& e : file.tensors) {
    const Split s = split(e.name);
    std::string key;
    std::size_t k = 0;
    for (std::size_t p = 0; p < s.parts.size(); ++p) {
      if (p) key += '.';
      if (k < s.numeric.size() && s.numeric[k] == p) key += '\x01', ++k;  // no name holds it raw: escaped in listings
      else key.append(s.parts[p]);
    }
    const bool unknown = e.details().layout_unknown;
    const std::string type = unknown ? std::string("-") : std::string(stored_type_of(e));
    key += '\0' + type + '\0' + (unknown ? "-" : shape_repr(e.shape));
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) {
      Group g;
      g.type = type;
      g.shape = e.shape;
      g.unknown = unknown;
      g.parts = s.parts;
      g.numeric = s.numeric;
      g.indices.resize(s.numeric.size());
      groups.push_back(std::move(g));
    }
    Group& g = groups[it->second];
    for (std::size_t n = 0; n < s.numeric.size(); ++n)
      g.indices[n].insert(std::stoull(std::string(s.parts[s.numeric[n]])));
    ++g.count;
    g.nbytes += e.nbytes;
  }
  for (Group& g : groups) {
    std::size_t k = 0;
    for (std::size_t p = 0; p < g.parts.size(); ++p) {
      if (p) g.name += '.';
      if (k < g.numeric.size() && g.numeric[k] == p) g.name += index_set_text(g.indices[k++]);
      else g.name.append(g.parts[p]);
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return natural_less(a.name, b.name); });
  return groups;
}

std::string parameters_text(const Totals& t, const std::optional<Architecture>& a,
                            const std::optional<std::uint64_t>& implied) {
  std::string s = grouped(t.parameters) + " parameters";
  if (implied) {
    const std::uint64_t d = t.parameters > *implied ? t.parameters - *implied : *implied - t.parameters;
    s += " (" + a->source + " implies " + grouped(*implied) +
         (d == 0 ? ": equal)" : std::string(": ") + (t.parameters > *implied ? "+" : "-") + grouped(d) + ")");
  }
  const std::string rest = totals_text(t);
  return s + rest.substr(rest.find(" parameters") + 11);
}

}  // namespace

void render_overview(const std::string& input, const LoadedFile& file, bool json, OutBuffer& out) {
  const std::optional<Architecture> arch = architecture_of(input, file);
  const std::optional<std::uint64_t> implied = arch ? implied_parameters(*arch) : std::nullopt;
  const Totals totals = totals_of(file.tensors);
  const std::vector<Group> groups = group_tensors(file);
  if (json) {
    nlohmann::ordered_json j;
    j["schema_version"] = kSchemaVersion;
    j["kind"] = "overview";
    j["file"] = file.path;
    j["format"] = file.format;
    j["architecture"] = architecture_json(arch);
    j["implied_parameters"] = implied ? nlohmann::ordered_json(*implied) : nlohmann::ordered_json(nullptr);
    j["totals"] = totals_json(totals);
    j["groups"] = nlohmann::ordered_json::array();
    for (const Group& g : groups)
      j["groups"].push_back(
          {{"name", g.name},
           {"type", g.type},
           {"shape", g.unknown ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(g.shape)},
           {"count", g.count},
           {"nbytes", g.unknown ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(g.nbytes)}});
    j["warnings"] = file.warnings;
    out.write(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
    return;
  }
  if (arch) out.write(architecture_text(*arch) + "\n");
  out.write(parameters_text(totals, arch, implied) + "\n");
  std::vector<std::string> names, shapes;
  std::size_t wn = 0, wt = 0, ws = 0;
  for (const Group& g : groups) {
    names.push_back(escape_untrusted(g.name, true));
    shapes.push_back(g.unknown ? "-" : shape_repr(g.shape));
    wn = std::max(wn, display_width(names.back()));
    wt = std::max(wt, display_width(escape_untrusted(g.type, true)));
    ws = std::max(ws, shapes.back().size());
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string type = escape_untrusted(groups[i].type, true);
    std::string line = names[i] + std::string(wn - display_width(names[i]) + 2, ' ') + type;
    if (groups[i].count > 1 || !shapes[i].empty()) line += std::string(wt - display_width(type) + 2, ' ') + shapes[i];
    if (groups[i].count > 1)
      line += std::string(ws - shapes[i].size() + 2, ' ') + "\xc3\x97" + std::to_string(groups[i].count);
    out.write(line + "\n");
  }
}

}  // namespace tensor_inspect
