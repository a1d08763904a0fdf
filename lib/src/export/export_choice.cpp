// export/export_choice.cpp — what `export` is asked to write: the output's format, from --format
// or the output's extension, and the tensors chosen, checked against what the format holds
// (export_plan.hpp).
#include <filesystem>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/export_plan.hpp"
#include "tensor_inspect/selection.hpp"

namespace tensor_inspect {

std::string export_format(const std::string& output, const std::optional<std::string>& format) {
  const std::string ext = std::filesystem::path(output).extension().string();
  const bool known = ext == ".npy" || ext == ".npz" || ext == ".safetensors";
  if (format) {
    if (*format != "npy" && *format != "npz" && *format != "safetensors")
      throw Error(ErrorCode::Usage, "export: --format " + *format + ": npy, npz or safetensors");
    if (known && ext.substr(1) != *format)
      throw Error(ErrorCode::Usage, "export: --format " + *format + " contradicts the extension of " + output +
                                        ": drop one, or make them agree");
    return *format;
  }
  if (output == "-")
    throw Error(ErrorCode::Usage, "export: -o - (standard output) has no extension to choose the format: "
                                  "add --format npy, npz or safetensors");
  if (!known)
    throw Error(ErrorCode::Usage, "export: " + output + ": the output's extension chooses its format: .npy, .npz or "
                                  ".safetensors (or --format)");
  return ext.substr(1);
}

std::vector<std::size_t> export_choice(const LoadedFile& file, const std::string& label,
                                       const std::vector<std::string>& names, bool all, const std::string& format) {
  std::vector<std::size_t> chosen;
  if (all || !names.empty()) chosen = select_entries(file, names, all);
  else if (file.tensors.size() == 1) chosen = {0};
  else
    throw Error(ErrorCode::Usage, "export: " + label + " holds " + std::to_string(file.tensors.size()) +
                                      " tensors: choose them with --name or --all");
  if (format == "npy" && chosen.size() != 1)
    throw Error(ErrorCode::Usage, "export: a .npy holds one tensor, and " + std::to_string(chosen.size()) +
                                      " are chosen: write a .safetensors, or choose one with --name");
  return chosen;
}

}  // namespace tensor_inspect
