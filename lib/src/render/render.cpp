// render.cpp — text (Python's print of each memoryview field) and JSON renderers, and
// the per-value printing they share with other renderers.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "text/byte_classes.hpp"
#include "render/digits.hpp"
#include "render/fields.hpp"
#include "render/float_repr.hpp"
#include "render/tolist_loops.hpp"
#include "tensor_inspect/render.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

void write_scalar(const Scalar& s, bool json, NonFinite nonfinite, OutBuffer& out) {
  char* o = out.reserve(kMaxValueRepr);
  switch (s.kind) {
    case DKind::Bool: out.write(json ? (s.b ? "true" : "false") : (s.b ? "True" : "False")); return;
    case DKind::Signed: out.commit(render::write_int(s.i, o)); return;
    case DKind::Unsigned: out.commit(render::write_uint(s.u, o)); return;
    case DKind::Float:
      if (json && !std::isfinite(s.f)) {
        if (nonfinite == NonFinite::Python) out.write(std::isnan(s.f) ? "NaN" : s.f > 0 ? "Infinity" : "-Infinity");
        else out.write(std::isnan(s.f) ? "\"nan\"" : s.f > 0 ? "\"inf\"" : "\"-inf\"");
        return;
      }
      out.commit(render::write_float_repr(s.f, o));
      return;
  }
}

void write_element(const MemoryView& mv, std::int64_t i, bool json, NonFinite nonfinite, OutBuffer& out) {
  if (mv.format == 'c') out.write(render::bytes_repr(static_cast<std::uint8_t>(mv.element(i).u), json));
  else write_scalar(mv.element(i), json, nonfinite, out);
}

std::string escape_untrusted(std::string_view s, bool escape_backslash) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // Keep a valid UTF-8 sequence whole; escape stray bytes.
      std::size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
      bool valid = len > 0 && i + len <= s.size();
      for (std::size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
      if (valid) {
        out += s.substr(i, len);
        i += len - 1;
        continue;
      }
    }
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c == '\\' && escape_backslash) out += "\\\\";
    else if (c < 0x20 || c == 0x7f || c >= 0x80) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool plain_text(std::string_view s) { return byte_classes::plain(s); }

std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void render_text(const MemoryView& mv, OutBuffer& out) {
  render_fields::write_text(mv, out);
  out.write("tolist: ");
  write_tolist(mv, false, NonFinite::Python, out);
  out.put('\n');
}

void render_json(const MemoryView& mv, const JsonOptions& options, OutBuffer& out) {
  render_fields::write_json(mv, out, [&] { write_tolist(mv, true, options.nonfinite, out); }, options.head);
  out.write("}\n");
}

}  // namespace tensor_inspect
