// render.cpp — text (Python's print of each memoryview field) and JSON renderers.
#include <charconv>
#include <functional>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "tensor_inspect/render.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {
namespace {

void write_int(OutBuffer& out, std::int64_t v) {
  char buf[24];
  out.write(std::string_view(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf)));
}

void write_scalar(OutBuffer& out, const Scalar& s, bool json, NonFinite nonfinite) {
  char buf[40];
  switch (s.kind) {
    case DKind::Bool: out.write(json ? (s.b ? "true" : "false") : (s.b ? "True" : "False")); return;
    case DKind::Signed:
      out.write(std::string_view(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, s.i).ptr - buf)));
      return;
    case DKind::Unsigned:
      out.write(std::string_view(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, s.u).ptr - buf)));
      return;
    case DKind::Float:
      if (json && !std::isfinite(s.f)) {
        if (nonfinite == NonFinite::Python) out.write(std::isnan(s.f) ? "NaN" : s.f > 0 ? "Infinity" : "-Infinity");
        else out.write(std::isnan(s.f) ? "\"nan\"" : s.f > 0 ? "\"inf\"" : "\"-inf\"");
        return;
      }
      out.write(std::string_view(buf, float_repr(s.f, buf)));
      return;
  }
}

// Format 'c' elements are 1-byte bytes objects: Python prints b'a', b'\x01', b"'";
// JSON has no bytes, so they become 1-character strings of that code point.
void write_char(OutBuffer& out, std::uint8_t c, bool json) {
  char buf[16];
  if (json) {
    if (c < 0x80) {
      out.write(json_string(std::string(1, static_cast<char>(c))));
    } else {
      std::snprintf(buf, sizeof buf, "\"\\u%04x\"", c);
      out.write(buf);
    }
    return;
  }
  if (c == '\'') out.write("b\"'\"");
  else if (c == '\\') out.write("b'\\\\'");
  else if (c == '\t') out.write("b'\\t'");
  else if (c == '\n') out.write("b'\\n'");
  else if (c == '\r') out.write("b'\\r'");
  else if (c >= 0x20 && c < 0x7f) {
    std::snprintf(buf, sizeof buf, "b'%c'", c);
    out.write(buf);
  } else {
    std::snprintf(buf, sizeof buf, "b'\\x%02x'", c);
    out.write(buf);
  }
}

void write_tuple(OutBuffer& out, const std::vector<std::int64_t>& v, bool json) {
  if (json) {
    out.put('[');
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out.write(", ");
      write_int(out, v[i]);
    }
    out.put(']');
  } else {
    out.write(shape_repr(v));
  }
}

}  // namespace

void write_tolist(const MemoryView& mv, bool json, NonFinite nonfinite, OutBuffer& out) {
  const bool chars = mv.format == 'c';
  auto write_element = [&](std::int64_t e) {
    if (chars) write_char(out, static_cast<std::uint8_t>(mv.element(e).u), json);
    else write_scalar(out, mv.element(e), json, nonfinite);
  };
  if (mv.shape.empty()) {
    write_element(0);
    return;
  }
  // Walk the elements in C order, opening and closing brackets as the index rolls over.
  const std::size_t nd = mv.shape.size();
  if (mv.numel() == 0) {
    // Nested empty lists: [[], []] for shape (2, 0); [] when the first axis is 0.
    std::function<void(std::size_t)> empty = [&](std::size_t d) {
      out.put('[');
      if (d + 1 < nd)
        for (std::int64_t i = 0; i < mv.shape[d]; ++i) {
          if (i) out.write(", ");
          empty(d + 1);
        }
      out.put(']');
    };
    empty(0);
    return;
  }
  std::vector<std::int64_t> idx(nd, 0);
  for (std::size_t d = 0; d < nd; ++d) out.put('[');
  const std::int64_t n = mv.numel();
  for (std::int64_t e = 0; e < n && !out.failed(); ++e) {
    write_element(e);
    // Advance the multi-index; count the axes that roll over.
    std::size_t d = nd;
    while (d-- > 0) {
      if (++idx[d] < mv.shape[d]) break;
      idx[d] = 0;
      out.put(']');
    }
    if (e + 1 < n) {
      out.write(", ");
      for (std::size_t k = d + 1; k < nd; ++k) out.put('[');
    }
  }
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

std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void render_text(const MemoryView& mv, OutBuffer& out) {
  out.write("dtype: ");
  out.write(dtype_info(mv.dtype).name);
  out.write("\nformat: ");
  if (mv.format) out.write(*mv.format_string());
  else out.write("None");
  out.write("\nshape: ");
  write_tuple(out, mv.shape, false);
  out.write("\nstrides: ");
  write_tuple(out, mv.strides, false);
  out.write("\nitemsize: ");
  write_int(out, mv.itemsize);
  out.write("\nnbytes: ");
  write_int(out, mv.nbytes);
  out.write("\nreadonly: ");
  out.write(mv.readonly ? "True" : "False");
  out.write("\ntolist: ");
  write_tolist(mv, false, NonFinite::Python, out);
  out.put('\n');
}

void render_json(const MemoryView& mv, const JsonOptions& options, OutBuffer& out) {
  out.write("{\"format\": ");
  if (mv.format) {
    out.put('"');
    out.write(*mv.format_string());
    out.put('"');
  } else {
    out.write("null");
  }
  out.write(", \"shape\": ");
  write_tuple(out, mv.shape, true);
  out.write(", \"itemsize\": ");
  write_int(out, mv.itemsize);
  out.write(", \"nbytes\": ");
  write_int(out, mv.nbytes);
  out.write(", \"ndim\": ");
  write_int(out, static_cast<std::int64_t>(mv.ndim()));
  out.write(", \"strides\": ");
  write_tuple(out, mv.strides, true);
  out.write(", \"readonly\": ");
  out.write(mv.readonly ? "true" : "false");
  out.write(", \"tolist\": ");
  write_tolist(mv, true, options.nonfinite, out);
  out.write(", \"dtype\": \"");
  out.write(dtype_info(mv.dtype).name);
  out.write("\", \"tensor_shape\": ");
  write_tuple(out, mv.tensor_shape, true);
  out.write(", \"c_contiguous\": ");
  out.write(mv.c_contiguous ? "true" : "false");
  out.write("}\n");
}

}  // namespace tensor_inspect
