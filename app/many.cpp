// app/many.cpp — several tensors in one run (--name globs, --all, --jsonl): text blocks
// under their names, one JSON object holding them, or JSON Lines streamed per tensor.
#include <cstdio>

#include "inspect.hpp"
#include "json_shape.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {

int run_many(const std::vector<Item>& items, const Options& o, const Defaults& defaults) {
  JsonOptions jo;
  jo.nonfinite = o.json_nonfinite == "python" ? NonFinite::Python : NonFinite::String;
  OutBuffer out(stdout);
  if (o.json && !o.jsonl) {
    out.write(std::string("{") + json_head("tensors") + "\"file\": " + json_string_or_null(items.empty() ? std::nullopt : items[0].file) +
              ", \"tensors\": [");
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    // Each tensor is realized before any of its bytes are written: a failure never
    // leaves half a block or half a line.
    MemoryView mv = item_view(item, o, defaults);
    if (o.jsonl || o.json) {
      jo.head = tensor_json_head(item.file, item.name);
      if (o.json && !o.jsonl && i) out.write(", ");
      render_json(mv, jo, out);
      if (o.jsonl) {
        out.flush();
        std::fflush(stdout);
      }
      continue;
    }
    if (i) out.put('\n');
    out.write("== " + (item.name ? escape_untrusted(*item.name, true) : std::string("(unnamed)")) + " ==\n");
    render_text(mv, out);
  }
  if (o.json && !o.jsonl) out.write("]}\n");
  return 0;
}

}  // namespace tensor_inspect::app
