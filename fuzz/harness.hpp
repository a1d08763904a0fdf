// fuzz/harness.hpp — what every libFuzzer harness shares: the realization cap, a sink for
// rendered output, and the one rule of what counts as a finding.
//
// A harness feeds its bytes to one parser or path of the library. Error (the library's
// one exception) is the expected answer to bad input and is swallowed — except
// Error(Internal), which is a bug of ours by definition and aborts like a crash. Anything
// else that escapes (std::bad_alloc, std::out_of_range, ...) also reaches libFuzzer as an
// uncaught exception, i.e. a finding.
//
//   extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
//     fuzz::guarded([&] { fuzz::inspect(ti::open_npy(fuzz::file_of(data, size, "f.npy"))); });
//     return 0;
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/log.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/render.hpp"

namespace ti = tensor_inspect;

namespace fuzz {

/// The library logs nothing in a harness: its "data(): ... realized in ..." lines at info
/// once cost 95 MB of output a minute. Set before the first input, once per program.
inline const bool kQuietLibrary = (ti::set_log_level(ti::LogLevel::Off), true);

/// Most bytes one realization may allocate (DataOptions::max_bytes): far above what a
/// fuzz input of a few KiB can legitimately hold, far below libFuzzer's 2 GiB RSS limit,
/// and small enough that the instrumented build realizes it well inside the 10 s timeout
/// (Tensor.eye(2866), 32 MiB, took 2.8 s to realize under ASan at 64 MiB).
inline constexpr std::uint64_t kMaxBytes = std::uint64_t{16} << 20;
/// Views of more elements are rendered as their header fields only: formatting millions
/// of values reaches no code a smaller view does not (the blocks of the parallel printer
/// start at 2^14 elements), and took over 10 s in the instrumented build.
inline constexpr std::int64_t kMaxRenderedElements = std::int64_t{1} << 16;
/// Most tensors of one file a harness realizes (a listing may name thousands).
inline constexpr std::size_t kMaxTensors = 8;

/// Runs `f`; swallows Error other than Internal, aborts on Error(Internal). With
/// TI_FUZZ_VERBOSE set in the environment, prints each swallowed error (to see how far
/// an input gets).
template <class F>
void guarded(F&& f) {
  static const bool verbose = std::getenv("TI_FUZZ_VERBOSE") != nullptr;
  try {
    f();
  } catch (const ti::Error& e) {
    if (verbose) std::fprintf(stderr, "fuzz: %s\n", e.what());
    if (e.code() == ti::ErrorCode::Internal) {
      std::fprintf(stderr, "fuzz: Error(Internal) escaped: %s\n", e.what());
      std::abort();
    }
  }
}

/// The input as a file of its own (a heap copy; the library never writes it).
inline std::shared_ptr<const ti::MappedFile> file_of(const std::uint8_t* data, std::size_t size,
                                                     const std::string& name) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>(data[i]);
  return ti::MappedFile::from_bytes(std::move(bytes), name);
}

/// The input as text.
inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// /dev/null, opened once: renderers write through it so formatting runs in full.
inline std::FILE* sink() {
  static std::FILE* f = std::fopen("/dev/null", "w");
  return f;
}

/// data() under the cap.
inline ti::MemoryView realize_capped(const ti::Tensor& t) {
  ti::DataOptions o;
  o.max_bytes = kMaxBytes;
  return ti::data(t, o);
}

/// Renders `mv` as text and as JSON (both non-finite spellings); beyond
/// kMaxRenderedElements, its header fields only.
inline void render(const ti::MemoryView& mv) {
  ti::OutBuffer out(sink());
  if (mv.numel() > kMaxRenderedElements) {
    ti::render_text_header(mv, out);
    ti::render_json_header(mv, out, {});
    return;
  }
  ti::render_text(mv, out);
  ti::render_json(mv, {}, out);
  ti::JsonOptions py;
  py.nonfinite = ti::NonFinite::Python;
  ti::render_json(mv, py, out);
}

/// data() and render of `t`, under the cap.
inline void realize_and_render(const ti::Tensor& t) { render(realize_capped(t)); }

/// Every tensor of an opened file (up to kMaxTensors): load, realize, render. Each tensor
/// is guarded on its own so one bad entry does not hide the others.
inline void inspect(const ti::LoadedFile& f) {
  std::size_t n = 0;
  for (const ti::TensorEntry& e : f.tensors) {
    if (n++ == kMaxTensors) break;
    guarded([&] { realize_and_render(e.load()); });
  }
  // Metadata a loader left in the file (GGUF arrays) is decoded here and dumped as --meta
  // --json does: invalid UTF-8 in a file's strings is replaced, not thrown on.
  for (const ti::MetaEntry& m : f.metadata)
    guarded([&] { (void)m.decoded().dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace); });
}

}  // namespace fuzz
