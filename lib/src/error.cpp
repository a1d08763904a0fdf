// error.cpp — the stable names of ErrorCode and their exit statuses (DESIGN.md).
#include "tensor_inspect/error.hpp"

#include <array>
#include <cstddef>

namespace tensor_inspect {
namespace {

// One row per code, in the enum's order; the static_assert ties the count to ErrorCode::Count.
constexpr std::array<std::string_view, static_cast<std::size_t>(ErrorCode::Count)> kErrorCodeNames = {
    "usage", "bad_literal", "bad_dtype", "bad_expression", "bad_shape", "bad_file",
    "unsupported", "no_format", "io", "not_found", "internal", "limit_exceeded",
};
static_assert(kErrorCodeNames.back() == "limit_exceeded", "a name for every ErrorCode, in order");

}  // namespace

std::string_view error_code_name(ErrorCode code) {
  const auto i = static_cast<std::size_t>(code);
  return i < kErrorCodeNames.size() ? kErrorCodeNames[i] : "internal";
}

// Status 1 is for checks that find a difference, which report through their own return
// value rather than an Error: every code, and a value outside the enum, is trouble (2).
// Written per code, so a code that comes to mean "a check failed" says so here.
int exit_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::Usage:
    case ErrorCode::BadLiteral:
    case ErrorCode::BadDType:
    case ErrorCode::BadExpression:
    case ErrorCode::BadShape:
    case ErrorCode::BadFile:
    case ErrorCode::Unsupported:
    case ErrorCode::NoFormat:
    case ErrorCode::Io:
    case ErrorCode::NotFound:
    case ErrorCode::Internal:
    case ErrorCode::LimitExceeded: return 2;
    case ErrorCode::Count: break;
  }
  return 2;
}

}  // namespace tensor_inspect
