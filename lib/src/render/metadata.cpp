// render/metadata.cpp — a file's metadata (--meta), text and JSON: GGUF arrays left in the file
// are decoded only for the items shown.
#include "tensor_inspect/listing.hpp"

#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/json_shape.hpp"

#include <cmath>
#include <string>

namespace tensor_inspect {
namespace {

// Metadata is untrusted: shown escaped, never sent raw to the terminal.
std::string escape_meta(std::string_view s) { return escape_untrusted(s, true); }

using MetaJson = nlohmann::ordered_json;

// Invalid UTF-8 in a file's strings is replaced, not thrown on: the listing's spelling.
std::string dump_json(const MetaJson& j) { return j.dump(-1, ' ', false, MetaJson::error_handler_t::replace); }

// Python's word for a metadata float that JSON has none for (nan, inf, -inf; GGUF float
// keys may hold them), or nullptr for any other value.
const char* nonfinite_word(const MetaJson& v) {
  if (!v.is_number_float() || std::isfinite(v.get<double>())) return nullptr;
  const double f = v.get<double>();
  return std::isnan(f) ? "nan" : f > 0 ? "inf" : "-inf";
}

// A metadata value for JSON output: nan and ±inf become the strings "nan", "inf", "-inf",
// as tensor values do, where nlohmann would write null.
MetaJson finite_json(const MetaJson& v) {
  if (const char* word = nonfinite_word(v)) return word;
  if (!v.is_structured()) return v;
  MetaJson out = v;
  for (auto& item : out) item = finite_json(item);
  return out;
}

// Text form of a metadata value: strings quoted with their control characters escaped
// once, numbers as JSON writes them; unless `full`, arrays of more than 8 items shortened
// to their first and last 3 and their count.
constexpr std::size_t kMetaItems = 8, kMetaEdgeItems = 3;
std::string meta_text(const MetaJson& v, bool full) {
  if (v.is_string()) {
    std::string s = escape_meta(v.get_ref<const std::string&>()), q = "\"";
    for (char c : s) q += c == '"' ? std::string("\\\"") : std::string(1, c);
    return q + "\"";
  }
  if (const char* word = nonfinite_word(v)) return word;
  if (v.is_array()) {
    const bool cut = !full && v.size() > kMetaItems;
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (cut && i == kMetaEdgeItems) {
        s += ", ...";
        i = v.size() - kMetaEdgeItems;
      }
      s += (i ? ", " : "") + meta_text(v[i], full);
    }
    return s + (cut ? "] (" + std::to_string(v.size()) + " items)" : "]");
  }
  return escape_meta(dump_json(v));
}

// The text of one metadata entry's value: a long array left in the file (GGUF) decodes
// only the items shown.
std::string meta_text(const MetaEntry& m, bool full) {
  if (!m.array || full || m.array->size() <= kMetaItems) return meta_text(m.decoded(), full);
  const std::uint64_t n = m.array->size();
  std::string s = "[";
  for (const MetaJson& item : m.array->items(0, kMetaEdgeItems)) s += meta_text(item, false) + ", ";
  s += "...";
  for (const MetaJson& item : m.array->items(n - kMetaEdgeItems, kMetaEdgeItems)) s += ", " + meta_text(item, false);
  return s + "] (" + std::to_string(n) + " items)";
}

}  // namespace

void render_meta(const LoadedFile& file, bool json, bool full, OutBuffer& out) {
  if (json) {
    MetaJson j;
    j["schema_version"] = kSchemaVersion;
    j["kind"] = "metadata";
    j["file"] = file.path;
    j["format"] = file.format;
    j["metadata"] = MetaJson::array();
    for (const auto& m : file.metadata)
      j["metadata"].push_back(MetaJson{{"key", m.key}, {"type", m.type}, {"value", finite_json(m.decoded())}});
    j["tensor_count"] = ListedTensors(file).size();
    j["warnings"] = file.warnings;
    out.write(dump_json(j));
    out.put('\n');
    return;
  }
  for (const auto& m : file.metadata) {
    out.write(escape_meta(m.key) + " (" + escape_meta(m.type) + "): " + meta_text(m, full));
    out.put('\n');
  }
  out.write(count_of(file.metadata.size(), "metadata entry", "metadata entries") + ", " +
            count_of(ListedTensors(file).size(), "tensor", "tensors") + " (" + file.format + ")\n");
}

}  // namespace tensor_inspect
