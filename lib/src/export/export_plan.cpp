// export/export_plan.cpp — export's tensors built, checked and written (export_plan.hpp).
#include "tensor_inspect/export_plan.hpp"

#include <algorithm>
#include <filesystem>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/tensor_errors.hpp"

namespace tensor_inspect {

NamedTensors export_tensors(const LoadedFile& file, const std::vector<std::size_t>& chosen,
                            const std::optional<std::string>& expr, std::optional<DType> cast) {
  NamedTensors tensors;
  for (std::size_t i : chosen) {
    const TensorEntry& e = file.tensors[i];
    Tensor t = e.load();
    if (expr) t = evaluate_expression(*expr, t, {});
    t = t.cast(commit_dtype(t.dtype()));
    if (cast) t = t.cast(*cast);
    tensors.emplace_back(e.name.empty() ? "x" : e.name, t);
  }
  return tensors;
}

void refuse_numpy_less(const NamedTensors& tensors, const std::string& format, const std::string& output) {
  if (format == "safetensors") return;
  for (const auto& [name, t] : tensors)
    if (const DTypeInfo& d = dtype_info(t.dtype()); d.numpy_kind.empty())
      throw Error(ErrorCode::Unsupported,
                  (output == "-" ? std::string("standard output") : output) + ": NumPy has no dtype for " +
                      std::string(d.name) + (format == "npz" ? " (tensor " + name + ")" : "") +
                      ": export it to .safetensors, or cast it with --dtype float32");
}

void refuse_input_as_output(const std::string& input, const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (input == "-" || is_url(input) || !fs::exists(output, ec)) return;
  std::vector<fs::path> files{input};
  if (fs::is_directory(input, ec))
    for (fs::directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) files.push_back(it->path());
  for (const fs::path& p : files)
    if (fs::equivalent(p, output, ec) && !ec)
      throw Error(ErrorCode::Usage, "export: " + output + " is an input (" + p.string() + "): choose another output");
}

void write_export(const std::string& format, const NamedTensors& tensors,
                  const std::vector<std::pair<std::string, std::string>>& metadata, const std::string& path,
                  std::uint64_t zip64_from) {
  try {
    if (format == "npy") write_npy(tensors.at(0).second, path);
    else if (format == "npz") write_npz(tensors, path, zip64_from);
    else write_safetensors(tensors, metadata, path);
  } catch (const Error& e) {
    // A value the cast or the expression cannot convert (a nan to an int) is met only as the
    // values stream: the error names the input they come from, not the output being written.
    const auto source =
        std::find_if(metadata.begin(), metadata.end(), [](const auto& m) { return m.first == "source"; });
    if (e.code() != ErrorCode::BadExpression || source == metadata.end()) throw;
    throw naming_tensor(source->second, e);
  }
}

}  // namespace tensor_inspect
