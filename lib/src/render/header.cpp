// render/header.cpp — the memoryview's fields without tolist (--header), in the order
// and spelling of render_text and render_json.
#include <charconv>

#include "render/fields.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {
namespace render_fields {
namespace {

void write_tuple(OutBuffer& out, const std::vector<std::int64_t>& v, bool json) {
  if (!json) {
    out.write(shape_repr(v));
    return;
  }
  out.put('[');
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out.write(", ");
    write_int(out, v[i]);
  }
  out.put(']');
}

}  // namespace

void write_int(OutBuffer& out, std::int64_t v) {
  char buf[24];
  out.write(std::string_view(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf)));
}

void write_text(const MemoryView& mv, OutBuffer& out) {
  out.write("dtype: ");
  out.write(dtype_info(mv.dtype).name);
  out.write("\nformat: ");
  if (mv.format) out.write(*mv.format_string());
  else out.write("None");
  out.write("\nshape: ");
  write_tuple(out, mv.shape, false);
  // The tensor's own shape, where the memoryview's is not it (an empty tensor's data() is
  // a (0,) view): the fact JSON's "tensor_shape" gives, under the same name.
  if (mv.tensor_shape != mv.shape) {
    out.write("\ntensor_shape: ");
    write_tuple(out, mv.tensor_shape, false);
  }
  out.write("\nstrides: ");
  write_tuple(out, mv.strides, false);
  out.write("\nitemsize: ");
  write_int(out, mv.itemsize);
  out.write("\nnbytes: ");
  write_int(out, mv.nbytes);
  out.write("\nreadonly: ");
  out.write(mv.readonly ? "True\n" : "False\n");
}

void write_json(const MemoryView& mv, OutBuffer& out, const std::function<void()>& tolist, std::string_view head) {
  out.put('{');
  out.write(head);
  out.write("\"format\": ");
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
  if (tolist) {
    out.write(", \"tolist\": ");
    tolist();
  }
  out.write(", \"dtype\": \"");
  out.write(dtype_info(mv.dtype).name);
  out.write("\", \"tensor_shape\": ");
  write_tuple(out, mv.tensor_shape, true);
  out.write(", \"c_contiguous\": ");
  out.write(mv.c_contiguous ? "true" : "false");
}

}  // namespace render_fields

void render_text_header(const MemoryView& mv, OutBuffer& out) { render_fields::write_text(mv, out); }

void render_json_header(const MemoryView& mv, OutBuffer& out, const JsonOptions& options) {
  render_fields::write_json(mv, out, {}, options.head);
  out.write("}\n");
}

}  // namespace tensor_inspect
