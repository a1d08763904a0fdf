// render/fields.hpp — the memoryview's fields as the text and JSON renderers write them,
// shared by the header-only and the summarized renderers.
#pragma once

#include <functional>
#include <string_view>

#include "tensor_inspect/render.hpp"

namespace tensor_inspect::render_fields {

/// The text lines before `tolist:`: dtype, format, shape, strides, itemsize, nbytes,
/// readonly, each ending in a newline.
void write_text(const MemoryView& mv, OutBuffer& out);
/// The JSON object's opening brace, `head` (JsonOptions::head: the app's schema_version,
/// kind, file and name), and keys in render_json's order; `tolist`, when set, writes the
/// value of a "tolist" key in its place. The closing brace is the caller's.
void write_json(const MemoryView& mv, OutBuffer& out, const std::function<void()>& tolist, std::string_view head);
/// An integer in decimal.
void write_int(OutBuffer& out, std::int64_t v);

}  // namespace tensor_inspect::render_fields
