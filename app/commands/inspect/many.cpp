// app/commands/inspect/many.cpp — several tensors in one run (--name globs, --all, --jsonl): text blocks
// under their names, one JSON object holding them, or JSON Lines streamed per tensor.
// Each tensor prints as one would alone (summarized above --threshold, --header, --full).
#include <cstdio>

#include "commands/inspect/inspect.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "cli/print_options.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {

int run_many(const std::vector<Item>& items, const Options& o, const Defaults& defaults) {
  JsonOptions jo;
  jo.nonfinite = o.json_nonfinite == "python" ? NonFinite::Python : NonFinite::String;
  const bool json = o.json || o.jsonl;
  // What the headers can refuse (--strict on a dtype without a struct format, a --view-as
  // that does not fit) is refused before the first tensor is printed, not after some.
  for (const Item& item : items) item_memoryview(item, o, defaults, false);
  OutBuffer out(stdout);
  if (o.json && !o.jsonl) {
    out.write(std::string("{") + json_head("tensors") + "\"file\": " +
              json_string_or_null(
                  items.empty() ? (o.input.empty() ? std::nullopt : std::optional<std::string>(input_name(o.input)))
                                : items[0].file) +
              ", \"tensors\": [");
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    jo.head = tensor_json_head(item.file, item.name);
    // print_tensor computes everything (the tensor realized, or its shown elements)
    // before `prefix` writes the block's first byte: a failure never leaves half a block.
    auto prefix = [&](OutBuffer& dst) {
      if (o.json && !o.jsonl && i) dst.write(", ");
      if (json) return;
      if (i) dst.put('\n');
      dst.write("== " + (item.name ? escape_untrusted(*item.name, true) : std::string("(unnamed)")) + " ==\n");
    };
    auto view = [&](bool realized) { return item_memoryview(item, o, defaults, realized, true); };
    for_tensor(item.label, [&] {
      const Shown shown = item_shown(item, o, defaults);
      check_whole_read(item, shown, o, json);
      print_tensor(shown.tensor, view, shown.reinterpreted, o.print, json, jo, out, prefix, graph_hook(o, &item));
    });
    if (o.jsonl) {
      out.flush();
      std::fflush(stdout);
    }
  }
  if (o.json && !o.jsonl) out.write("]}\n");
  return 0;
}

}  // namespace tensor_inspect::app
