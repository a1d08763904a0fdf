// render/totals.cpp — listing totals (totals.hpp).
#include "tensor_inspect/totals.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "tensor_inspect/counts.hpp"

#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

std::string_view stored_type_of(const TensorEntry& e) {
  // Where the stored bytes are not elements of the dtype the values come out as (GGUF blocks, a
  // safetensors F8_E8M0 or F4 decoded to float32, a quantization scheme's parts), counting them
  // under that dtype would say "float32 261 B" of bytes that hold no float32.
  const EntryDetails& d = e.details();
  if (d.ggml_type || d.blocks_file || !d.scheme_parts.empty() || !e.dtype) return e.stored_type;
  return dtype_info(*e.dtype).name;
}

namespace {

// Adds one entry to `t`. A listing may hold 20,000 tensors of two or three types: a short
// list searched from the last type found (`last`), not a map keyed by a string made per tensor.
void add_to_totals(const TensorEntry& e, Totals& t, std::size_t& last) {
  ++t.tensors;
  if (e.details().layout_unknown) {
    ++t.unknown;
    return;
  }
  std::uint64_t n = 1;
  for (const std::int64_t d : e.shape) n *= static_cast<std::uint64_t>(d);
  const std::string_view type = stored_type_of(e);
  if (last >= t.by_type.size() || t.by_type[last].type != type) {
    last = 0;
    while (last < t.by_type.size() && t.by_type[last].type != type) ++last;
    if (last == t.by_type.size()) {
      t.by_type.emplace_back();
      t.by_type.back().type = type;
    }
  }
  TypeTotal& x = t.by_type[last];
  ++x.tensors;
  x.parameters += n;
  x.nbytes += e.nbytes;
  t.parameters += n;
  t.nbytes += e.nbytes;
}

Totals sorted_totals(Totals t) {
  std::sort(t.by_type.begin(), t.by_type.end(), [](const TypeTotal& a, const TypeTotal& b) {
    return a.nbytes != b.nbytes ? a.nbytes > b.nbytes : a.type < b.type;
  });
  return t;
}

}  // namespace

Totals totals_of(const std::vector<TensorEntry>& entries) {
  Totals t;
  std::size_t last = 0;
  for (const TensorEntry& e : entries) add_to_totals(e, t, last);
  return sorted_totals(std::move(t));
}

Totals totals_of(const LoadedFile& file) {
  Totals t;
  std::size_t last = 0;
  ListedTensors all(file);
  for (std::size_t i = 0; i < all.size(); ++i) add_to_totals(all.at(i), t, last);
  return sorted_totals(std::move(t));
}

std::string human_bytes(std::uint64_t n) {
  if (n < 1000) return std::to_string(n) + " B";
  static constexpr const char* kUnits[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
  double v = static_cast<double>(n) / 1000;
  std::size_t u = 0;
  while (v >= 999.995 && u + 1 < std::size(kUnits)) v /= 1000, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, kUnits[u]);
  return buf;
}

std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string totals_text(const Totals& t) {
  std::string s = grouped(t.parameters) + " parameters, " + human_bytes(t.nbytes);
  for (std::size_t i = 0; i < t.by_type.size(); ++i) {
    const TypeTotal& x = t.by_type[i];
    s += (i ? ", " : ": ") + escape_untrusted(x.type, true) + " " + human_bytes(x.nbytes) + " (" +
         count_of(x.tensors, "tensor") + ")";
  }
  if (t.unknown) s += "; " + count_of(t.unknown, "tensor") + " of unknown size";
  return s;
}

nlohmann::ordered_json totals_json(const Totals& t) {
  nlohmann::ordered_json j;
  j["tensors"] = t.tensors;
  j["parameters"] = t.parameters;
  j["nbytes"] = t.nbytes;
  j["unknown"] = t.unknown;
  j["by_type"] = nlohmann::ordered_json::array();
  for (const TypeTotal& x : t.by_type)
    j["by_type"].push_back(
        {{"type", x.type}, {"tensors", x.tensors}, {"parameters", x.parameters}, {"nbytes", x.nbytes}});
  return j;
}

}  // namespace tensor_inspect
