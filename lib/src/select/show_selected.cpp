// select/show_selected.cpp — selected tensors printed as the inspect mode prints them
// (show_selected.hpp): one, or several in blocks, one JSON object or JSON Lines.
#include "tensor_inspect/show_selected.hpp"

#include "log/log.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/tensor_errors.hpp"

namespace tensor_inspect {

MemoryView selected_memoryview(const SelectedTensor& item, const ShowOptions& o, bool realized,
                               const ComputeHook& computing) {
  DataOptions dopt;
  dopt.defaults = o.defaults;
  dopt.strict = o.strict;
  if (!realized) return for_tensor(item.label, [&] { return cast_view_as(data_header(item.tensor, dopt), o.view_as); });
  if (computing) computing(item.tensor);
  // The view is only printed: a big-endian file is read in place, swapped as printed. Not
  // under --view-as, which reinterprets the memoryview's own bytes.
  dopt.swapped_in_place = o.view_as.empty();
  MemoryView mv = for_tensor(item.label, [&] { return cast_view_as(data(item.tensor, dopt), o.view_as); });
  if (!item.note.empty()) lib_log().info("{}", item.note);
  return mv;
}

ShownTensor selected_shown(const SelectedTensor& item, const ShowOptions& o) {
  if (o.view_as.empty()) return {item.tensor, false};
  DataOptions dopt;
  dopt.defaults = o.defaults;
  dopt.strict = o.strict;
  const MemoryView cast = selected_memoryview(item, o, false);
  if (std::optional<Tensor> lazy = cast_of_swapped(item.tensor, cast, dopt)) return {*lazy, false};
  return {item.tensor, true};
}

void print_selected(const SelectedTensor& item, const ShowOptions& o, const PrintFlags& flags, bool json,
                    JsonOptions jo, OutBuffer& out, const std::function<void(OutBuffer&)>& prefix,
                    const ComputeHook& computing) {
  jo.head = tensor_json_head(item.file, item.name);
  auto view = [&](bool realized) { return selected_memoryview(item, o, realized, computing); };
  for_tensor(item.label, [&] {
    const ShownTensor shown = selected_shown(item, o);
    if (!o.computed && item.entry && item.entry->details().check_whole &&
        prints_every_element(shown.tensor, shown.reinterpreted, flags, json))
      item.entry->details().check_whole();
    print_tensor(shown.tensor, view, shown.reinterpreted, flags, json, jo, out, prefix, computing);
  });
}

void print_selected_many(const std::vector<SelectedTensor>& items, const std::optional<std::string>& file,
                         const ShowOptions& o, const PrintFlags& flags, TensorsOutput output,
                         const JsonOptions& jo, std::FILE* to,
                         const std::function<ComputeHook(const SelectedTensor&)>& computing_for) {
  const bool json = output != TensorsOutput::Text;
  const bool object = output == TensorsOutput::Json;
  // What the headers can refuse (--strict on a dtype without a struct format, a --view-as
  // that does not fit) is refused before the first tensor is printed, not after some.
  for (const SelectedTensor& item : items) selected_memoryview(item, o, false);
  OutBuffer out(to);
  if (object)
    out.write(std::string("{") + json_head("tensors") + "\"file\": " +
              json_string_or_null(items.empty() ? file : items[0].file) + ", \"tensors\": [");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const SelectedTensor& item = items[i];
    // print_tensor computes everything (the tensor realized, or its shown elements)
    // before `prefix` writes the block's first byte: a failure never leaves half a block.
    auto prefix = [&](OutBuffer& dst) {
      if (object && i) dst.write(", ");
      if (json) return;
      if (i) dst.put('\n');
      dst.write("== " + (item.name ? escape_untrusted(*item.name, true) : std::string("(unnamed)")) + " ==\n");
    };
    print_selected(item, o, flags, json, jo, out, prefix, computing_for ? computing_for(item) : ComputeHook{});
    if (output == TensorsOutput::Jsonl) {
      out.flush();
      std::fflush(to);
    }
  }
  if (object) out.write("]}\n");
}

}  // namespace tensor_inspect
