// compare/diff_pairs.cpp — which tensor of A pairs with which of B (diff.hpp): by name,
// after exact renames, regex renames or llama.cpp's GGUF names, or by position when each
// side holds one; --name globs select by A's names and bring B's partners along.
#include <map>
#include <regex>
#include <set>

#include "compare/names_hf_gguf.hpp"
#include "tensor_inspect/diff.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/selection.hpp"

namespace tensor_inspect {
namespace {

// A's name as B spells it: an exact --rename first, else every --rename-regex in order.
struct Renamer {
  std::map<std::string, std::string> exact;
  std::vector<std::pair<std::regex, std::string>> regexes;
  bool hf_gguf = false;
  explicit Renamer(const DiffOptions& o) : hf_gguf(o.names_map == "hf-gguf") {
    for (const std::string& r : o.renames) {
      const auto eq = r.find('=');
      if (eq == std::string::npos || eq == 0) throw Error(ErrorCode::Usage, "diff --rename '" + r + "': write FROM=TO");
      exact[r.substr(0, eq)] = r.substr(eq + 1);
    }
    for (const std::string& r : o.rename_regex) {
      const auto eq = r.find('=');
      if (eq == std::string::npos)
        throw Error(ErrorCode::Usage, "diff --rename-regex '" + r + "': write REGEX=REPLACEMENT");
      try {
        regexes.emplace_back(std::regex(r.substr(0, eq)), r.substr(eq + 1));
      } catch (const std::regex_error& e) {
        throw Error(ErrorCode::Usage, "diff --rename-regex '" + r + "': bad regular expression (" + e.what() + ")");
      }
    }
  }
  std::string operator()(const std::string& name) const {
    if (auto it = exact.find(name); it != exact.end()) return it->second;
    std::string out = name;
    if (hf_gguf)
      if (std::optional<std::string> mapped = hf_to_gguf_name(name)) out = *mapped;
    for (const auto& [re, replacement] : regexes) out = std::regex_replace(out, re, replacement);
    return out;
  }
};

// --name selects by A's names: A's tensor is kept when a glob matches its name or the name
// it is renamed to (B's spelling), and B's tensor of that name comes along; B's tensor that
// no kept one of A pairs with is kept when a glob matches its own name. Unnamed tensors (a
// lone .npy, a literal) are always kept. Each glob must match a name of A or of B. A
// --name that is exactly a name of A, of B or a renamed one (`['a.b']`) matches that name
// only, as in the main command.
bool diff_name_selects(const DiffOptions& o, const std::vector<bool>& exact, const std::string& name,
                       std::vector<bool>& matched) {
  bool any = false;
  for (std::size_t p = 0; p < o.names.size(); ++p)
    if (exact[p] ? name == o.names[p] : glob_matches(o.names[p], name)) any = matched[p] = true;
  return any;
}

DiffRow diff_row(const TensorEntry* a, const TensorEntry* b, DiffStatus status) {
  DiffRow r;
  r.a = a;
  r.b = b;
  r.status = status;
  return r;
}

}  // namespace

std::vector<DiffRow> pair_tensors(const DiffInput& a, const DiffInput& b, const DiffOptions& o) {
  const Renamer rename(o);
  std::vector<bool> matched(o.names.size(), false), exact(o.names.size(), false);
  auto mark_exact = [&](const std::string& name) {
    for (std::size_t p = 0; p < o.names.size(); ++p) exact[p] = exact[p] || name == o.names[p];
  };
  if (!o.names.empty()) {
    for (const TensorEntry& e : a.entries) {
      mark_exact(e.name);
      mark_exact(rename(e.name));
    }
    for (const TensorEntry& e : b.entries) mark_exact(e.name);
  }
  std::vector<const TensorEntry*> ea, eb;
  std::set<std::string> partners;  // B's names that kept tensors of A are renamed to
  for (const TensorEntry& e : a.entries) {
    const std::string renamed = rename(e.name);
    // Both are tried, so that each glob that matches either is counted as matching.
    const bool by_name = diff_name_selects(o, exact, e.name, matched);
    const bool by_renamed = diff_name_selects(o, exact, renamed, matched);
    if (!o.names.empty() && !e.name.empty() && !by_name && !by_renamed) continue;
    ea.push_back(&e);
    if (!e.name.empty()) partners.insert(renamed);
  }
  for (const TensorEntry& e : b.entries) {
    const bool by_name = diff_name_selects(o, exact, e.name, matched);
    if (o.names.empty() || e.name.empty() || by_name || partners.count(e.name)) eb.push_back(&e);
  }
  for (std::size_t p = 0; p < o.names.size(); ++p)
    if (!matched[p])
      throw Error(ErrorCode::NotFound,
                  "diff: --name '" + o.names[p] + "' matches no tensor of " + a.label + " or " + b.label);
  std::vector<DiffRow> rows;
  if (ea.size() == 1 && eb.size() == 1) {
    rows.push_back(diff_row(ea[0], eb[0], DiffStatus::Same));
    return rows;
  }
  std::map<std::string, std::size_t> in_b;
  for (std::size_t i = 0; i < eb.size(); ++i) in_b.emplace(eb[i]->name, i);
  std::vector<const TensorEntry*> paired_with(eb.size(), nullptr);  // B's tensor i pairs with A's
  for (const TensorEntry* e : ea) {
    auto it = in_b.find(rename(e->name));
    // Two of A's tensors renamed onto one of B's: one would silently show "only in A".
    if (it != in_b.end() && paired_with[it->second])
      throw Error(ErrorCode::Usage, "diff: " + a.label + "'s tensors '" + paired_with[it->second]->name + "' and '" +
                                        e->name + "' both pair with " + b.label + "'s '" + it->first +
                                        "' (check --rename and --rename-regex)");
    if (it != in_b.end()) {
      paired_with[it->second] = e;
      rows.push_back(diff_row(e, eb[it->second], DiffStatus::Same));
    } else {
      rows.push_back(diff_row(e, nullptr, DiffStatus::OnlyInA));
    }
  }
  for (std::size_t i = 0; i < eb.size(); ++i)
    if (!paired_with[i]) rows.push_back(diff_row(nullptr, eb[i], DiffStatus::OnlyInB));
  return rows;
}

}  // namespace tensor_inspect
