// compare/diff_input.cpp — what a diff is given: the options checked against each other, and
// each side opened from its argument, a literal as one unnamed tensor or a file, folder, URL or
// standard input with its tensors (diff.hpp).
#include <fmt/format.h>

#include "log/log.hpp"
#include "tensor_inspect/diff.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/input.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/schemes.hpp"

namespace tensor_inspect {

void check_diff_options(const DiffOptions& o, const std::string& tolerance_given) {
  if (!(o.rtol >= 0) || !(o.atol >= 0))  // NaN fails both tests too
    throw Error(ErrorCode::Usage, "diff: --rtol and --atol must be numbers >= 0 (got --rtol " +
                                      fmt::format("{}", o.rtol) + ", --atol " + fmt::format("{}", o.atol) + ")");
  if (o.exact && !tolerance_given.empty())
    throw Error(ErrorCode::Usage, "diff: --exact and " + tolerance_given + " contradict (--exact compares bits, " +
                                      tolerance_given + " is a tolerance of values): choose one");
  if (!o.tolerance.empty() && (o.exact || !tolerance_given.empty()))
    throw Error(ErrorCode::Usage, "diff: --tolerance torch and " +
                                      (o.exact ? std::string("--exact") : tolerance_given) +
                                      " contradict (--tolerance torch sets each pair's rtol and atol): choose one");
}

DiffInput open_diff_input(const std::string& arg, bool stored, const std::string& role) {
  DiffInput in;
  in.label = arg;
  if (arg != "-" && is_literal_input(arg)) {
    Tensor t = tensor_from_literal(arg, std::nullopt);
    TensorEntry e;
    e.dtype = commit_dtype(t.dtype());
    e.shape = t.shape();
    e.details_for_write().loader = [t] { return t; };
    in.format = "literal";
    lib_log().info("{}: literal, {} {}", role, dtype_info(*e.dtype).name, shape_repr(e.shape));
    in.entries.push_back(std::move(e));
    return in;
  }
  in.file = open_file_logged(arg, std::nullopt, role);
  if (!stored) apply_schemes(*in.file);
  in.file->path = arg == "-" ? "<stdin>" : input_name(arg);  // a URL without its password or query
  in.label = in.file->path;
  in.format = in.file->format;
  in.entries = in.file->tensors;
  return in;
}

}  // namespace tensor_inspect
