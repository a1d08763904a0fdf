// render/print_tensor.cpp — a tensor in full, summarized or as its fields (print_tensor.hpp).
#include "tensor_inspect/print_tensor.hpp"

#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/summary.hpp"

namespace tensor_inspect {

std::optional<PrintOptions> print_options(const PrintFlags& flags, bool json) {
  if (flags.full || (json && !flags.threshold && !flags.edgeitems)) return std::nullopt;
  PrintOptions po;
  if (flags.threshold) po.threshold = *flags.threshold;
  if (flags.edgeitems) po.edgeitems = *flags.edgeitems;
  return po;
}

bool prints_every_element(const Tensor& t, bool reinterpreted, const PrintFlags& flags, bool json) {
  if (flags.header) return false;
  const std::optional<PrintOptions> po = print_options(flags, json);
  return !po || reinterpreted || !summarize(t.shape(), *po);
}

void print_tensor(const Tensor& t, const std::function<MemoryView(bool realized)>& view, bool reinterpreted,
                  const PrintFlags& flags, bool json, const JsonOptions& json_options, OutBuffer& out,
                  const std::function<void(OutBuffer&)>& prefix, const ComputeHook& computing) {
  auto begin = [&] {
    if (prefix) prefix(out);
  };
  if (flags.header) {
    const MemoryView head = view(false);
    begin();
    if (json) render_json_header(head, out, json_options);
    else render_text_header(head, out);
    return;
  }
  const std::optional<PrintOptions> po = print_options(flags, json);
  const MemoryView head = view(!po || reinterpreted);
  const std::optional<Summary> summary = po ? summarize(head.shape, *po) : std::nullopt;
  if (!summary) {
    const MemoryView mv = head.buffer ? head : view(true);
    begin();
    if (json && po) render_json_summary(mv, mv, std::nullopt, json_options, out);
    else if (json) render_json(mv, json_options, out);
    else render_text(mv, out);
    return;
  }
  // Only the shown elements are realized: a lazy pad/reshape/shrink of the tensor, or of
  // the realized view's bytes when a cast reinterpreted them (then its format, e.g. 'c'
  // over uint8, is the view's).
  const Tensor source = reinterpreted ? Tensor::from_buffer(head.buffer, head.dtype, head.shape) : t;
  const Tensor shown = edge_elements(source.cast(head.dtype), *summary);
  if (computing) computing(shown);
  MemoryView edges = data(shown);
  edges.format = head.format;
  begin();
  if (json) render_json_summary(head, edges, summary, json_options, out);
  else render_text_summary(head, edges, *summary, out);
}

}  // namespace tensor_inspect
