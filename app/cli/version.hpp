// app/cli/version.hpp — what --version prints.
#pragma once

namespace tensor_inspect::app {

/// "tensor-inspect 0.1.0 (git 1a2b3c4d5e6f)", or "(git unknown)" outside a git checkout;
/// "-dirty" marks uncommitted changes at configure time.
const char* version_string();

}  // namespace tensor_inspect::app
