// fuzz/fuzz_onnx.cpp — ONNX models (loaders/onnx*.cpp): the protobuf walk over libprotobuf's
// CodedInputStream, through both policies of its one parser: loading (the first fault
// throws, then tensors are realized: raw_data slices, decoded varint fields; bytes from no
// path open no external file, so the harness never reads the disk) and validate's (every
// fault collected, the walk carried on past a broken message), which must never read out
// of bounds either.
#include "harness.hpp"
#include "loaders/formats.hpp"
#include "loaders/onnx_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = fuzz::file_of(data, size, "fuzz.onnx");
  fuzz::guarded([&] { fuzz::inspect(ti::open_onnx(file)); });
  fuzz::guarded([&] {
    std::size_t faults = 0;
    const ti::OnnxFaults collect("fuzz.onnx", [&faults](const ti::OnnxFault&) { ++faults; });
    (void)ti::parse_onnx(file->bytes(), collect);
  });
  return 0;
}
