// limits/limits.cpp — the caps in force, and setting them by name (see limits.hpp).
#include "tensor_inspect/limits.hpp"

#include <charconv>
#include <utility>
#include <vector>

#include "tensor_inspect/context.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

namespace {

// What the setters write: the process default's caps (context.hpp).
Limits& current() { return default_context().limits; }

constexpr LimitInfo kTable[] = {
    {"stream_bytes", &Limits::stream_bytes, "bytes"},
    {"buffer_bytes", &Limits::buffer_bytes, "bytes"},
    {"npy_header_bytes", &Limits::npy_header_bytes, "bytes"},
    {"npy_header_depth", &Limits::npy_header_depth, "levels"},
    {"safetensors_header_bytes", &Limits::safetensors_header_bytes, "bytes"},
    {"index_bytes", &Limits::index_bytes, "bytes"},
    {"json_depth", &Limits::json_depth, "levels"},
    {"gguf_key_bytes", &Limits::gguf_key_bytes, "bytes"},
    {"gguf_array_elements", &Limits::gguf_array_elements, "items"},
    {"zip_members", &Limits::zip_members, "items"},
    {"zip_ratio", &Limits::zip_ratio, "ratio"},
    {"pickle_bytes", &Limits::pickle_bytes, "bytes"},
    {"pickle_values", &Limits::pickle_values, "items"},
    {"pickle_memo", &Limits::pickle_memo, "items"},
    {"pickle_refs", &Limits::pickle_refs, "items"},
    {"pickle_depth", &Limits::pickle_depth, "levels"},
    {"pickle_entries", &Limits::pickle_entries, "items"},
    {"remote_whole_bytes", &Limits::remote_whole_bytes, "bytes"},
    {"remote_memory_bytes", &Limits::remote_memory_bytes, "bytes"},
    {"out_of_order_bytes", &Limits::out_of_order_bytes, "bytes"},
    {"broadcast_pairs", &Limits::broadcast_pairs, "items"},
    {"expression_elements", &Limits::expression_elements, "items"},
    {"compute_elements", &Limits::compute_elements, "items"},
    {"literal_bytes", &Limits::literal_bytes, "bytes"},
    {"manifest_bytes", &Limits::manifest_bytes, "bytes"},
    {"onnx_initializers", &Limits::onnx_initializers, "items"},
    {"onnx_dims", &Limits::onnx_dims, "items"},
    {"onnx_string_bytes", &Limits::onnx_string_bytes, "bytes"},
    {"onnx_graph_depth", &Limits::onnx_graph_depth, "levels"},
    {"hdf5_objects", &Limits::hdf5_objects, "items"},
    {"hdf5_name_bytes", &Limits::hdf5_name_bytes, "bytes"},
    {"hdf5_chunks", &Limits::hdf5_chunks, "items"},
    {"hdf5_chunk_bytes", &Limits::hdf5_chunk_bytes, "bytes"},
    {"dcp_metadata_bytes", &Limits::dcp_metadata_bytes, "bytes"},
    {"dcp_chunks", &Limits::dcp_chunks, "items"},
    {"dcp_grid_cells", &Limits::dcp_grid_cells, "items"},
    {"aws_config_bytes", &Limits::aws_config_bytes, "bytes"},
};

}  // namespace

const Limits& limits() { return current_context().limits; }
void set_limits(const Limits& l) { current() = l; }
std::span<const LimitInfo> limit_table() { return kTable; }

std::optional<std::uint64_t> parse_byte_count(std::string_view text) {
  if (text.size() > 3 && text.ends_with("iB") && std::string_view("KMG").find(text[text.size() - 3]) != text.npos)
    text.remove_suffix(2);  // 64MiB as 64M
  std::uint64_t scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': case 'k': scale = std::uint64_t{1} << 10; break;
      case 'M': case 'm': scale = std::uint64_t{1} << 20; break;
      case 'G': case 'g': scale = std::uint64_t{1} << 30; break;
      default: break;
    }
    if (scale != 1) text.remove_suffix(1);
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > UINT64_MAX / scale)
    return std::nullopt;
  return value * scale;
}

namespace {

// The cap "NAME=VALUE" names and its value. Throws Error(Usage) naming the spec.
std::pair<const LimitInfo*, std::uint64_t> parse_limit(std::string_view spec) {
  const std::size_t eq = spec.find('=');
  const std::string_view name = spec.substr(0, eq);
  const LimitInfo* info = nullptr;
  for (const LimitInfo& i : kTable)
    if (i.name == name) info = &i;
  if (!info) {
    std::string known;
    for (const LimitInfo& i : kTable) known += (known.empty() ? "" : ", ") + std::string(i.name);
    throw Error(ErrorCode::Usage, "--limit '" + std::string(spec) + "': unknown limit (known: " + known + ")");
  }
  const std::optional<std::uint64_t> value =
      parse_byte_count(eq == std::string_view::npos ? std::string_view() : spec.substr(eq + 1));
  if (!value || *value == 0)
    throw Error(ErrorCode::Usage, "--limit '" + std::string(spec) + "': expected " + std::string(name) +
                                      "=N with N a positive count (K, M, G or KiB, MiB, GiB suffixes allowed)");
  return {info, *value};
}

}  // namespace

void set_limit(std::string_view spec) {
  const auto [info, value] = parse_limit(spec);
  current().*(info->field) = value;
}

void set_limits_from(std::span<const std::string> specs) {
  std::vector<std::pair<const LimitInfo*, std::uint64_t>> parsed;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    parsed.push_back(parse_limit(specs[i]));
    for (std::size_t j = 0; j < i; ++j)
      if (parsed[j].first == parsed[i].first)
        throw Error(ErrorCode::Usage, "--limit " + std::string(parsed[i].first->name) + " given twice ('" + specs[j] +
                                          "' and '" + specs[i] + "'): each cap takes one value; give it once");
  }
  for (const auto& [info, value] : parsed) current().*(info->field) = value;
}

std::string limit_hint(std::string_view name) {
  return " (limit " + std::string(name) + "; raise it with --limit " + std::string(name) + "=N)";
}

Error limit_error(std::string_view name, const std::string& message, std::string file,
                  std::optional<std::uint64_t> offset) {
  return Error(ErrorCode::LimitExceeded, message, {std::move(file), "", offset, std::string(name)});
}

}  // namespace tensor_inspect
