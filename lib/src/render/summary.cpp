// render/summary.cpp — a summarized tolist laid out as numpy.array2string does
// (_formatArray: edgeitems leading items, "...", the trailing items, on each elided axis).
#include <string>

#include "render/fields.hpp"

namespace tensor_inspect {
namespace {

struct SummaryWriter {
  const MemoryView& edges;
  const Summary& summary;
  bool json;
  NonFinite nonfinite;
  OutBuffer& out;
  Shape shown = summary.shown_shape();
  std::vector<std::int64_t> stride = strides_in(shown);

  static std::vector<std::int64_t> strides_in(const Shape& s) {
    std::vector<std::int64_t> st(s.size(), 1);
    for (std::size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
    return st;
  }

  // The list of axis `d` whose first element is edges' element `base`. Depth is at most
  // 64 axes (a memoryview's limit).
  void write(std::size_t d, std::int64_t base) {
    if (d == shown.size()) {
      write_element(edges, base, json, nonfinite, out);
      return;
    }
    out.put('[');
    for (std::int64_t i = 0; i < shown[d] && !out.failed(); ++i) {
      if (i) out.write(", ");
      if (summary.elided[d] && i == summary.edgeitems) out.write(json ? "\"...\", " : "..., ");
      write(d + 1, base + i * stride[d]);
    }
    out.put(']');
  }
};

}  // namespace

void write_tolist_summary(const MemoryView& edges, const Summary& summary, bool json, NonFinite nonfinite,
                          OutBuffer& out) {
  SummaryWriter{edges, summary, json, nonfinite, out}.write(0, 0);
}

void render_text_summary(const MemoryView& mv, const MemoryView& edges, const Summary& summary, OutBuffer& out) {
  render_fields::write_text(mv, out);
  out.write("tolist: ");
  write_tolist_summary(edges, summary, false, NonFinite::Python, out);
  out.write("\nsummary: ");
  render_fields::write_int(out, summary.shown());
  out.write(" of ");
  render_fields::write_int(out, summary.size());
  out.write(summary.size() == 1 ? " element shown (--full prints all)\n" : " elements shown (--full prints all)\n");
}

void render_json_summary(const MemoryView& mv, const MemoryView& shown, const std::optional<Summary>& summary,
                         const JsonOptions& options, OutBuffer& out) {
  render_fields::write_json(mv, out, [&] {
    if (summary) write_tolist_summary(shown, *summary, true, options.nonfinite, out);
    else write_tolist(shown, true, options.nonfinite, out);
  }, options.head);
  out.write(", \"summary\": {\"summarized\": ");
  out.write(summary ? "true" : "false");
  out.write(", \"shown\": ");
  render_fields::write_int(out, summary ? summary->shown() : mv.numel());
  out.write(", \"size\": ");
  render_fields::write_int(out, summary ? summary->size() : mv.numel());
  out.write("}}\n");
}

}  // namespace tensor_inspect
