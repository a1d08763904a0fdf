// tensor_inspect/tensor_errors.hpp — errors that name the tensor. With several tensors in play
// (--all, --name globs, --jsonl, --stats over a file, --expect/--assert, diff), an Error
// raised while one tensor is loaded, evaluated, realized or printed says which file and
// which tensor, the same way on every path:
//
//   model.safetensors: tensor 'layers.3.w': expression: column 3: cannot reshape (4,) to (2, 3)
//
//   Tensor t = for_tensor(item.label, [&] { return evaluate_expression(expr, item.tensor, defaults); });
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

/// How messages name a tensor of a file: "model.safetensors: tensor 'w'"; the file alone
/// for an unnamed tensor (a lone .npy, raw bytes); "" for a literal or an expression.
std::string tensor_label(const std::optional<std::string>& file, const std::string& name);

/// `e` with "<label>: " in front of its message and the same ErrorCode, so exit status
/// and JSON "code" are unchanged. `e` as it is when `label` is empty or `e` already names
/// the tensor (Error::tensor(): a loader's "model.gguf: tensor 'w' is Q8_1, ..."; a
/// shard's "model-00002.safetensors: tensor 'w': ..."); an error whose Error::file() is the
/// label's file or a part of it gets the tensor after the file ("x.npz: member 'w.npy': ..."
/// becomes "x.npz: tensor 'w': member 'w.npy': ..."). The result's fields name the file and
/// the tensor. An error that gives no place is judged by its message, as before fields.
Error naming_tensor(const std::string& label, const Error& e);

/// The same for an Error raised by two tensors streamed together (diff): named by the
/// side whose file the message names, else by both ("a.npz: tensor 'w' vs b.gguf: tensor 'w': ...").
Error naming_pair(const std::string& label_a, const std::string& label_b, const Error& e);

/// f(), with an Error it throws rethrown as naming_tensor(label, error).
template <class F>
decltype(auto) for_tensor(const std::string& label, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const Error& e) {
    throw naming_tensor(label, e);
  }
}

/// f(), with an Error it throws rethrown as naming_pair(label_a, label_b, error).
template <class F>
decltype(auto) for_pair(const std::string& label_a, const std::string& label_b, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const Error& e) {
    throw naming_pair(label_a, label_b, e);
  }
}

}  // namespace tensor_inspect
