// error.cpp — the stable names of ErrorCode and their exit statuses (DESIGN.md).
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::Usage: return "usage";
    case ErrorCode::BadLiteral: return "bad_literal";
    case ErrorCode::BadDType: return "bad_dtype";
    case ErrorCode::BadExpression: return "bad_expression";
    case ErrorCode::BadShape: return "bad_shape";
    case ErrorCode::BadFile: return "bad_file";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::NoFormat: return "no_format";
    case ErrorCode::Io: return "io";
    case ErrorCode::NotFound: return "not_found";
    case ErrorCode::Internal: return "internal";
  }
  return "internal";
}

// NOTE: every error is "trouble" (2); status 1 is reserved for checks that find a
// difference, which report through their own return value rather than an Error.
int exit_status(ErrorCode code) {
  (void)code;
  return 2;
}

}  // namespace tensor_inspect
