// error/tensor_errors.cpp — errors that name the tensor (tensor_errors.hpp).
#include "tensor_inspect/tensor_errors.hpp"

#include <string_view>

namespace tensor_inspect {
namespace {

// The file part of a label: "x.npz" of "x.npz: tensor 'w'", the whole of an unnamed one.
std::string_view file_of(std::string_view label) { return label.substr(0, label.find(": tensor '")); }

}  // namespace

std::string tensor_label(const std::optional<std::string>& file, const std::string& name) {
  if (!file) return "";
  return name.empty() ? *file : *file + ": tensor '" + name + "'";
}

Error naming_tensor(const std::string& label, const Error& e) {
  const std::string_view message = e.what();
  if (label.empty() || message.starts_with(label + ":") || message.starts_with(label + " ")) return e;
  const auto at = label.find(": tensor '");
  // A label "FILE: tensor 'NAME'": a message naming the tensor under another path (the
  // shard that holds it) names it already.
  if (at != std::string::npos && message.find(std::string_view(label).substr(at + 2)) != std::string_view::npos)
    return e;
  // "FILE: member 'w.npy' ..." becomes "FILE: tensor 'w': member 'w.npy' ...": the file once.
  if (at != std::string::npos && message.starts_with(std::string_view(label).substr(0, at + 2)))
    return Error(e.code(), label + ": " + std::string(message.substr(at + 2)));
  return Error(e.code(), label + ": " + std::string(message));
}

Error naming_pair(const std::string& label_a, const std::string& label_b, const Error& e) {
  const std::string_view message = e.what();
  for (const std::string* label : {&label_a, &label_b})
    if (!label->empty() && message.starts_with(std::string(file_of(*label)) + ":")) return naming_tensor(*label, e);
  if (label_a.empty() || label_b.empty()) return naming_tensor(label_a.empty() ? label_b : label_a, e);
  return Error(e.code(), label_a + " vs " + label_b + ": " + std::string(message));
}

}  // namespace tensor_inspect
