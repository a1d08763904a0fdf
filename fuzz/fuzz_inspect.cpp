// fuzz/fuzz_inspect.cpp — the whole path of one input, as the CLI takes it: detect the
// format by magic bytes (else a literal), load, realize, render text and JSON, and the
// file's listing and metadata in both forms (app/listing.cpp).
#include "tensor_inspect/listing.hpp"
#include "harness.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/literal.hpp"

// libhdf5 (not ours, not instrumented) looks up each chunk of a dataset it reads, present or
// not: 10 KiB of input declaring 327,680 chunks of (2, 4) took 22 s here under ASan (5 s in the
// Release CLI, a cost named in the closing note of stop 41) and hit libFuzzer's 10 s timeout.
// fuzz_hdf5 caps chunk bytes the same way; the loader's own refusal past the cap is still fuzzed.
static const bool kFewChunks = [] {
  ti::Limits l = ti::limits();
  l.hdf5_chunks = 4096;
  l.hdf5_chunk_bytes = std::uint64_t{16} << 20;
  ti::set_limits(l);
  return true;
}();

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)kFewChunks;
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
