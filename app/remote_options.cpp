// app/remote_options.cpp — --token-file: the bearer token for http(s):// and hf:// inputs.
#include "remote_options.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"

namespace tensor_inspect::app {

void setup_remote(CLI::App& app, RemoteFlags& flags) {
  app.add_option("--token-file", flags.token_file,
                 "a file whose first line is a bearer token for URL inputs (hf:// also reads HF_TOKEN)")
      ->group("Remote files");
}

void apply_remote(const RemoteFlags& flags) {
  if (flags.token_file.empty()) return;
  std::ifstream in(flags.token_file);
  if (!in) throw Error(ErrorCode::Io, flags.token_file + ": cannot read the token file: " + std::strerror(errno));
  std::string token;
  std::getline(in, token);
  const auto first = token.find_first_not_of(" \t\r\n");
  const auto last = token.find_last_not_of(" \t\r\n");
  token = first == std::string::npos ? std::string() : token.substr(first, last - first + 1);
  if (token.empty()) throw Error(ErrorCode::Io, flags.token_file + ": the token file's first line is empty");
  RemoteOptions r = remote_options();
  r.token = token;
  set_remote_options(r);
}

}  // namespace tensor_inspect::app
