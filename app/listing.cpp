// app/listing.cpp — tensor listings and metadata, text and JSON.
#include "listing.hpp"

#include "json_shape.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

namespace tensor_inspect::app {
namespace {

// Names and metadata are untrusted: shown escaped, never sent raw to the terminal.
std::string escape_text(std::string_view s) { return escape_untrusted(s, true); }

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
    out.write(dump(j));
    out.put('\n');
    return;
  }
  std::vector<std::array<std::string, 6>> rows;
  rows.push_back({"name", "dtype", "shape", "nbytes", "offset", "stored"});
  for (const auto& e : file.tensors)
    rows.push_back({escape_text(e.name), dtype_name(e), shape_repr(e.shape), std::to_string(e.nbytes), std::to_string(e.offset),
                    escape_text(e.stored_type) + (e.note.empty() ? "" : " (" + escape_text(e.note) + ")")});
  std::array<std::size_t, 6> width{};
  for (const auto& r : rows)
    for (std::size_t c = 0; c < 6; ++c) width[c] = std::max(width[c], r[c].size());
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < 6; ++c) {
      line += r[c];
      if (c + 1 < 6) line += std::string(width[c] - r[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.write(line);
    out.put('\n');
  }
  out.write(std::to_string(file.tensors.size()) + (file.tensors.size() == 1 ? " tensor" : " tensors") + ", " +
            std::to_string(file.metadata.size()) + " metadata entries (" + file.format + ")\n");
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
    out.write(dump(j));
    out.put('\n');
    return;
  }
  for (const auto& m : file.metadata) {
    out.write(escape_text(m.key) + " (" + escape_text(m.type) + "): " + meta_text(m.value));
    out.put('\n');
  }
  out.write(std::to_string(file.metadata.size()) + " metadata entries, " + std::to_string(file.tensors.size()) +
            (file.tensors.size() == 1 ? " tensor" : " tensors") + " (" + file.format + ")\n");
}

}  // namespace tensor_inspect::app
