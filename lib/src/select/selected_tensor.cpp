// select/selected_tensor.cpp — a file entry as the tensor a run shows, checks or scans (selection.hpp).
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/selection.hpp"
#include "tensor_inspect/tensor_errors.hpp"

namespace tensor_inspect {

SelectedTensor selected_tensor_of(const LoadedFile& lf, const TensorEntry& entry, bool tolerate_unsupported) {
  const std::string label = tensor_label(lf.path, entry.name);
  std::string load_error;
  Tensor t = [&] {
    try {
      return for_tensor(label, [&] { return entry.load(); });
    } catch (const Error& e) {
      if (!tolerate_unsupported || !cannot_show(e)) throw;
      load_error = e.what();
      return tensor_from_literal("[]", std::nullopt);
    }
  }();
  const std::optional<std::string> name = entry.name.empty() ? std::nullopt : std::optional<std::string>(entry.name);
  return SelectedTensor{lf.path, name, t, label, entry.note, entry, load_error};
}

}  // namespace tensor_inspect
