// error/tensor_errors.cpp — errors that name the tensor (tensor_errors.hpp).
#include "tensor_inspect/tensor_errors.hpp"

#include <string_view>

namespace tensor_inspect {
namespace {

// The file part of a label: "x.npz" of "x.npz: tensor 'w'", the whole of an unnamed one.
// Labels are ours (tensor_label), so this reads no message.
std::string_view label_file(std::string_view label) { return label.substr(0, label.find(": tensor '")); }
// The tensor part of a label: "w" of "x.npz: tensor 'w'", "" of an unnamed one.
std::string label_tensor(std::string_view label) {
  const std::string_view file = label_file(label);
  if (file.size() == label.size()) return "";
  const std::string_view rest = label.substr(file.size() + 10);  // after ": tensor '"
  return std::string(rest.substr(0, rest.empty() ? 0 : rest.size() - 1));
}

// `e`'s place with the label's file and tensor filled in.
ErrorPlace place_of(std::string_view label, const Error& e) {
  ErrorPlace p = e.place();
  if (p.file.empty()) p.file = std::string(label_file(label));
  p.tensor = label_tensor(label);
  return p;
}

// The rule for an Error whose thrower gave no place (its message is all there is): the
// message is read for the label. TODO: goes once every throw site inside for_tensor
// gives its file (ByteReader, Buffer and the caps do; the loaders' own fault helpers not yet).
Error naming_by_message(const std::string& label, const Error& e) {
  const std::string_view message = e.what();
  if (message.starts_with(label + ":") || message.starts_with(label + " ")) return e;
  const auto at = label.find(": tensor '");
  // A label "FILE: tensor 'NAME'": a message naming the tensor under another path (the
  // shard that holds it) names it already.
  if (at != std::string::npos && message.find(std::string_view(label).substr(at + 2)) != std::string_view::npos)
    return e;
  // "FILE: member 'w.npy' ..." becomes "FILE: tensor 'w': member 'w.npy' ...": the file once.
  if (at != std::string::npos && message.starts_with(std::string_view(label).substr(0, at + 2)))
    return Error(e.code(), label + ": " + std::string(message.substr(at + 2)), place_of(label, e));
  return Error(e.code(), label + ": " + std::string(message), place_of(label, e));
}

// True when an Error thrown for input `thrown` is about `file`: the same input, or a part of
// it ("x.npz: member 'w.npy'" of "x.npz").
bool thrown_in(std::string_view thrown, std::string_view file) {
  return thrown == file ||
         (thrown.size() > file.size() + 2 && thrown.starts_with(file) && thrown.substr(file.size(), 2) == ": ");
}

}  // namespace

std::string tensor_label(const std::optional<std::string>& file, const std::string& name) {
  if (!file) return "";
  return name.empty() ? *file : *file + ": tensor '" + name + "'";
}

Error naming_tensor(const std::string& label, const Error& e) {
  if (label.empty()) return e;
  const std::string name = label_tensor(label);
  // The thrower named this tensor, under its file or another (the shard that holds it).
  if (!name.empty() && e.tensor() == name) return e;
  const std::string_view file = label_file(label), message = e.what();
  // A thrower that gave no place, or another input's, is read by its words.
  if (e.file().empty() || !thrown_in(e.file(), file) || !message.starts_with(e.file()))
    return naming_by_message(label, e);
  // The thrower's file is the label's, or a part of it ("x.npz: member 'w.npy'"), and its
  // message starts with it. An unnamed tensor's label is that file: named already. A named
  // one goes right after the file, so the file is said once.
  if (name.empty()) return e;
  return Error(e.code(), label + std::string(message.substr(file.size())), place_of(label, e));
}

Error naming_pair(const std::string& label_a, const std::string& label_b, const Error& e) {
  if (!e.file().empty()) {
    for (const std::string* label : {&label_a, &label_b})
      if (!label->empty() && thrown_in(e.file(), label_file(*label))) return naming_tensor(*label, e);
  } else {
    const std::string_view message = e.what();
    for (const std::string* label : {&label_a, &label_b})
      if (!label->empty() && message.starts_with(std::string(label_file(*label)) + ":"))
        return naming_tensor(*label, e);
  }
  if (label_a.empty() || label_b.empty()) return naming_tensor(label_a.empty() ? label_b : label_a, e);
  return Error(e.code(), label_a + " vs " + label_b + ": " + std::string(e.what()), e.place());
}

}  // namespace tensor_inspect
