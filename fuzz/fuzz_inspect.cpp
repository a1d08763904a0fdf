// fuzz/fuzz_inspect.cpp — the whole path of one input, as the CLI takes it: detect the
// format by magic bytes (else a literal), load, realize, render text and JSON, and the
// file's listing and metadata in both forms (app/listing.cpp).
#include "tensor_inspect/listing.hpp"
#include "harness.hpp"
#include "tensor_inspect/literal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] {
    std::optional<ti::LoadedFile> f = ti::open_detected(fuzz::file_of(data, size, "fuzz.input"));
    if (!f) {
      fuzz::realize_and_render(ti::tensor_from_literal(fuzz::text_of(data, size), std::nullopt));
      return;
    }
    ti::OutBuffer out(fuzz::sink());
    for (bool json : {false, true}) {
      ti::render_listing(*f, json, out);
      ti::render_meta(*f, json, false, out);
      if (!json) ti::render_meta(*f, false, true, out);  // --meta --full
    }
    fuzz::inspect(*f);
  });
  return 0;
}
