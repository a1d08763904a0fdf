// The tables that bind Python names to the frontend: Tensor methods (`x.sum(axis=0)`),
// Tensor's static methods and constructor (`Tensor.arange(6)`, `Tensor([1, 2])`) and the
// builtins (`float`, `int`, `bool`, `abs`). The evaluator looks a name up and calls it.
#pragma once

#include <string_view>

#include "expr/args.hpp"
#include "expr/value.hpp"

namespace tensor_inspect::expr {

/// One call of a Tensor method: the tensor, the bound arguments (args.fname() is the method
/// name) and tinygrad's defaults.
struct MethodCall {
  const Tensor& t;
  const Args& args;
  const Defaults& defaults;
};
using MethodFn = Value (*)(const MethodCall&);

/// The binding of Tensor method `name`, or nullptr when Tensor has no such method.
MethodFn find_method(std::string_view name);

/// Calls Tensor.`name`(args...) (a static method or constructor, or the unbound
/// Tensor.method(t, ...)). Throws Error(BadExpression) for an unknown name.
Value call_static(std::string_view name, const Args& args, const Defaults& defaults);

/// Tensor(data, dtype=None).
Value construct(const Args& args, const Defaults& defaults);

/// The builtin `name` (float, int, bool or abs) on one argument.
Value call_builtin(std::string_view name, const Args& args);

}  // namespace tensor_inspect::expr
