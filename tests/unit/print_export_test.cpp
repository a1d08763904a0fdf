// tests/unit/print_export_test.cpp — tensor_inspect/print_tensor.hpp's choice of what is read
// and printed, and export_plan.hpp's tensors. Expected values by hand: NumPy's defaults
// summarize above 1000 elements with 3 items at each end; [1.5, 2.5] cast to bfloat16 has no
// NumPy dtype, and committed to float32 it is 2 elements of 4 bytes.
#include <doctest/doctest.h>

#include <string>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/export_plan.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/print_tensor.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

TEST_CASE("print_options and prints_every_element: text summarizes, JSON prints all unless asked") {
  const ti::Tensor big = ti::evaluate_expression("Tensor.arange(1001)", std::nullopt, {});
  const ti::Tensor small = ti::evaluate_expression("Tensor.arange(1000)", std::nullopt, {});
  ti::PrintFlags flags;
  CHECK(ti::print_options(flags, false)->threshold == 1000);
  CHECK(ti::print_options(flags, false)->edgeitems == 3);
  CHECK_FALSE(ti::print_options(flags, true));
  CHECK_FALSE(ti::prints_every_element(big, false, flags, false));
  CHECK(ti::prints_every_element(small, false, flags, false));
  CHECK(ti::prints_every_element(big, false, flags, true));
  CHECK(ti::prints_every_element(big, true, flags, false));
  flags.header = true;
  CHECK_FALSE(ti::prints_every_element(small, false, flags, false));
}

TEST_CASE("print_tensor: a header prints the memoryview's fields without reading") {
  const ti::Tensor t = ti::tensor_from_literal("[1.5, 2.5]", std::nullopt);
  ti::PrintFlags flags;
  flags.header = true;
  const std::string text = test_util::rendered([&](ti::OutBuffer& out) {
    ti::print_tensor(t, [&](bool) { return ti::data_header(t); }, false, flags, false, {}, out);
  });
  CHECK(text.find("format: f\nshape: (2,)\n") != std::string::npos);
  CHECK(text.find("tolist") == std::string::npos);
}

TEST_CASE("refuse_numpy_less: bfloat16 has no NumPy dtype, safetensors takes it") {
  const ti::NamedTensors bf16{{"w", ti::tensor_from_literal("[1.5, 2.5]", ti::DType::BFloat16)}};
  CHECK_THROWS_WITH_AS(ti::refuse_numpy_less(bf16, "npz", "out.npz"),
                       "out.npz: NumPy has no dtype for bfloat16 (tensor w): export it to .safetensors, or cast it "
                       "with --dtype float32",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::refuse_numpy_less(bf16, "npy", "-"),
                       "standard output: NumPy has no dtype for bfloat16: export it to .safetensors, or cast it "
                       "with --dtype float32",
                       ti::Error);
  CHECK_NOTHROW(ti::refuse_numpy_less(bf16, "safetensors", "out.safetensors"));
}
