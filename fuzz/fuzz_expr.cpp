// fuzz/fuzz_expr.cpp — the expression language (expr/): parse to a tree, evaluate over a
// small int tensor and over no input, schedule the result. Nothing is realized here
// (fuzz_expr_realize does that), so this one runs fast and reaches deep into the parser.
#include "harness.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/realize.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  fuzz::guarded([&] { (void)ti::expression_tree(text); });
  static const ti::Tensor x = ti::tensor_from_literal("[[1, 2, 3], [4, 5, 6]]", std::nullopt);
  for (const std::optional<ti::Tensor>& input : {std::optional<ti::Tensor>(x), std::optional<ti::Tensor>()})
    fuzz::guarded([&] { (void)ti::schedule(ti::evaluate_expression(text, input, {}).contiguous().node()); });
  return 0;
}
