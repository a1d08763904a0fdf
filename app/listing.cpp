// app/listing.cpp — tensor listings and metadata, text and JSON.
#include "listing.hpp"

#include "json_shape.hpp"

#include <algorithm>
#include <array>
#include <clocale>
#include <cstdio>
#include <cwchar>
#include <string>

#include <locale.h>

namespace tensor_inspect::app {
namespace {

// Names and metadata are untrusted: shown escaped, never sent raw to the terminal.
std::string escape_text(std::string_view s) { return escape_untrusted(s, true); }

/// Terminal columns of UTF-8 text (escaped first, so only printable characters remain):
/// wcwidth() of each character under C.UTF-8, so wide CJK characters take two columns and
/// combining marks none, as a terminal lays them out.
std::size_t display_width(std::string_view s) {
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return s.size();
  static const locale_t utf8 = ::newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  if (!utf8) return s.size();
  const locale_t old = ::uselocale(utf8);
  std::size_t width = 0;
  std::mbstate_t state{};
  for (std::size_t i = 0; i < s.size();) {
    wchar_t wc = 0;
    const std::size_t n = std::mbrtowc(&wc, s.data() + i, s.size() - i, &state);
    if (n == 0 || n > s.size() - i) {  // invalid or cut short: one column per byte
      state = {};
      ++width;
      ++i;
      continue;
    }
    const int w = ::wcwidth(wc);
    width += w < 0 ? 1 : static_cast<std::size_t>(w);
    i += n;
  }
  ::uselocale(old);
  return width;
}

std::string count_of(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string dtype_name(const TensorEntry& e) { return e.dtype ? std::string(dtype_info(*e.dtype).name) : "-"; }

using Json = nlohmann::ordered_json;

// Bytes of the values as data() hands them out (dtype itemsize x elements), which for
// quantized or compressed tensors differs from the bytes stored.
std::uint64_t decoded_nbytes(const TensorEntry& e) {
  std::uint64_t n = dtype_info(*e.dtype).itemsize;
  for (auto d : e.shape) n *= static_cast<std::uint64_t>(d);
  return n;
}

std::string dump(const Json& j, int indent = -1) { return j.dump(indent, ' ', false, Json::error_handler_t::replace); }

// Text form of a metadata value: strings quoted with their control characters escaped
// once, numbers as JSON writes them, long arrays shortened to their first 8 items.
std::string meta_text(const Json& v) {
  if (v.is_string()) {
    std::string s = escape_text(v.get_ref<const std::string&>()), q = "\"";
    for (char c : s) q += c == '"' ? std::string("\\\"") : std::string(1, c);
    return q + "\"";
  }
  if (v.is_array()) {
    std::string s = "[";
    const std::size_t shown = std::min<std::size_t>(v.size(), 8);
    for (std::size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + meta_text(v[i]);
    if (v.size() > shown) s += ", ... (" + std::to_string(v.size()) + " items)";
    return s + "]";
  }
  return escape_text(dump(v));
}

}  // namespace

void render_listing(const LoadedFile& file, bool json, OutBuffer& out) {
  if (json) {
    Json j;
    j["schema_version"] = kSchemaVersion;
    j["kind"] = "listing";
    j["file"] = file.path;
    j["format"] = file.format;
    j["tensors"] = Json::array();
    for (const auto& e : file.tensors) {
      Json t;
      t["name"] = e.name;
      t["dtype"] = e.dtype ? Json(std::string(dtype_info(*e.dtype).name)) : Json(nullptr);
      t["stored_type"] = e.stored_type;
      t["shape"] = e.shape;
      t["stored_shape"] = e.stored_shape;
      t["nbytes"] = e.nbytes;  // stored bytes (quantized blocks, compressed members: as stored)
      t["decoded_nbytes"] = e.dtype ? Json(decoded_nbytes(e)) : Json(nullptr);
      t["offset"] = e.offset;
      t["note"] = e.note.empty() ? Json(nullptr) : Json(e.note);
      j["tensors"].push_back(std::move(t));
    }
    j["metadata_count"] = file.metadata.size();
    j["warnings"] = file.warnings;
    out.write(dump(j));
    out.put('\n');
    return;
  }
  std::vector<std::array<std::string, 6>> rows;
  rows.push_back({"name", "dtype", "shape", "nbytes", "offset", "stored"});
  for (const auto& e : file.tensors)
    rows.push_back({escape_text(e.name), dtype_name(e), shape_repr(e.shape), std::to_string(e.nbytes), std::to_string(e.offset),
                    escape_text(e.stored_type) + (e.note.empty() ? "" : " (" + escape_text(e.note) + ")")});
  // Columns are padded by display width: a name of wide or combining characters lines up.
  std::vector<std::size_t> name_width(rows.size());
  std::array<std::size_t, 6> width{};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    name_width[i] = display_width(rows[i][0]);
    width[0] = std::max(width[0], name_width[i]);
    for (std::size_t c = 1; c < 6; ++c) width[c] = std::max(width[c], rows[i][c].size());
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    std::string line;
    for (std::size_t c = 0; c < 6; ++c) {
      line += r[c];
      const std::size_t used = c == 0 ? name_width[i] : r[c].size();
      if (c + 1 < 6) line += std::string(width[c] - used + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.write(line);
    out.put('\n');
  }
  out.write(count_of(file.tensors.size(), "tensor", "tensors") + ", " +
            count_of(file.metadata.size(), "metadata entry", "metadata entries") + " (" + file.format + ")\n");
  for (const std::string& w : file.warnings) out.write("warning: " + escape_text(w) + "\n");
}

void render_meta(const LoadedFile& file, bool json, OutBuffer& out) {
  if (json) {
    Json j;
    j["schema_version"] = kSchemaVersion;
    j["kind"] = "metadata";
    j["file"] = file.path;
    j["format"] = file.format;
    j["metadata"] = Json::array();
    for (const auto& m : file.metadata) j["metadata"].push_back(Json{{"key", m.key}, {"type", m.type}, {"value", m.value}});
    j["tensor_count"] = file.tensors.size();
    j["warnings"] = file.warnings;
    out.write(dump(j));
    out.put('\n');
    return;
  }
  for (const auto& m : file.metadata) {
    out.write(escape_text(m.key) + " (" + escape_text(m.type) + "): " + meta_text(m.value));
    out.put('\n');
  }
  out.write(count_of(file.metadata.size(), "metadata entry", "metadata entries") + ", " +
            count_of(file.tensors.size(), "tensor", "tensors") + " (" + file.format + ")\n");
  for (const std::string& w : file.warnings) out.write("warning: " + escape_text(w) + "\n");
}

}  // namespace tensor_inspect::app
