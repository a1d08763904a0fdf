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

// Every code is trouble (2) today: status 1 is reserved for checks that find a difference,
// which report through their own return value rather than an Error. The codes are listed
// without a default, so a code added to the enum must be given its status here (-Wswitch).
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
    case ErrorCode::Internal: return 2;
  }
  return 2;  // a value outside the enum: trouble all the same
}

}  // namespace tensor_inspect
