// tensor_inspect/checks.hpp — assertions for CI over selected tensors: --expect KEY=VALUE
// (dtype, shape, ndim, numel, format, nbytes, stored_dtype, stored_nbytes, read from the lazy
// tensor and its file entry without realizing it) and --assert EXPR (a tinygrad expression
// over x that must give True or an all-True boolean tensor), and their report as text or JSON
// (schemas/checks.schema.json, check.schema.json).
//
//   std::vector<ti::CheckResult> r = ti::evaluate_checks(items, {"dtype=bf16"}, {"(x < 100).all()"}, {});
//   ti::OutBuffer out(stdout);
//   ti::render_checks(r, items, ti::ChecksOutput::Text, out);   // each failure, then "all 2 checks passed on 1 tensor"
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "tensor_inspect/render.hpp"
#include "tensor_inspect/selection.hpp"

namespace tensor_inspect {

/// One check's result on one tensor.
struct CheckResult {
  const SelectedTensor* item;  ///< the tensor checked (points into the items given)
  std::string type;            ///< "expect" or "assert"
  std::string check;           ///< as given: "dtype=bf16", "(x < 100).all()"
  std::string expected;        ///< the value normalised ("bfloat16", "(2, 3)"), or "True" for an assertion
  std::string actual;          ///< what the tensor has; for a failed assertion what made it false
  bool passed = false;
};

/// Decides every --expect (`expects`, KEY=VALUE each) and every --assert (`asserts`) on every
/// item, in item order, expects before asserts; reads only what an assertion computes.
/// A tensor whose values cannot be decoded (load_error set) answers the --expect keys from
/// its file header. `defaults` commit Python numbers (as --default-float/--default-int).
/// Throws Error(Usage) for a malformed --expect, Error(BadExpression) for an --assert that
/// does not give a boolean, Error(Unsupported) for an --assert over an undecodable tensor,
/// and what computing an assertion throws, naming the tensor.
std::vector<CheckResult> evaluate_checks(const std::vector<SelectedTensor>& items,
                                         const std::vector<std::string>& expects,
                                         const std::vector<std::string>& asserts, const Defaults& defaults);

/// True when `expected`, an --expect stored_dtype value, names the stored type `stored`: the
/// same name in any case (q4_k is Q4_K), or the same dtype (bf16 for BF16, float32 for '<f4',
/// int16 for '>i2', uint8 for torch's ByteStorage).
bool stored_type_matches(const std::string& expected, const std::string& stored);

/// How the checks are reported.
enum class ChecksOutput {
  Text,   ///< each failure with its actual value, then one summary line
  Json,   ///< one "checks" object
  Jsonl,  ///< one "check" object per result and line
};

/// The "checks" JSON object of `results` (its "file" that of items[0]), without a newline:
/// statistics objects embed it.
std::string checks_json(const std::vector<CheckResult>& results, const std::vector<SelectedTensor>& items);

/// Writes the results onto `out` as `how` says. Returns the number of failed checks.
std::size_t render_checks(const std::vector<CheckResult>& results, const std::vector<SelectedTensor>& items,
                          ChecksOutput how, OutBuffer& out);

/// The one JSON object of a statistics run (--json) with the checks in it: `write_stats`
/// writes the statistics' object onto the FILE it is given (a buffer in memory) and returns
/// its exit status; that object is written to `out` with a "checks" member (checks_json)
/// added as its last key. Returns 1 when the statistics or a check failed, else 0. Throws
/// what write_stats throws (nothing written then), Error(Internal) when it wrote no object.
int write_stats_with_checks(const std::vector<CheckResult>& results, const std::vector<SelectedTensor>& items,
                            const std::function<int(std::FILE*)>& write_stats, OutBuffer& out);

}  // namespace tensor_inspect
