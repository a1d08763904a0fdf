// app/commands/hash/hash.cpp — the hash subcommand: open every input, hash its tensors through the
// library (tensor_inspect/hash.hpp, hash_check.hpp), print sha256sum-style lines, a manifest, or
// with --check the report.
#include "commands/hash/hash.hpp"

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/hash_check.hpp"
#include "tensor_inspect/input.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {
namespace {

constexpr const char* kHashExamples = R"(Examples:
  tensor-inspect hash model.safetensors                  hash and name, one tensor a line (as sha256sum)
  tensor-inspect hash ./llama/ --json > llama.manifest.json   a manifest of a model folder
  tensor-inspect hash --check llama.manifest.json ./resharded/   exit 0: the same tensors
  tensor-inspect hash x.npy --algo sha256                SHA-256 instead of XXH3-128
  tensor-inspect hash a.safetensors b.safetensors        the tensors of several files, as one checkpoint

A tensor's hash covers its logical content: its dtype, its shape and its elements in C
order, little-endian (docs/hash.md), so it is the same in .npy (C or Fortran
order, either byte order), .npz, safetensors, PyTorch and GGUF files and after re-sharding.
A GGUF block-quantized tensor hashes its quantization type and its stored blocks. A file's
one unnamed tensor (.npy) is shown under the input's name; a manifest and an input that each
hold one tensor are compared whatever their names.
Exit status: 0 hashed, or with --check every tensor matches; 1 --check found a changed,
missing or added tensor (each is named); 2 trouble (nothing on stdout).)";

}  // namespace

CLI::App* setup_hash(CLI::App& app, HashOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "hash", "a content hash per tensor, the same in every format and layout (--check MANIFEST: verify)");
  sub->footer(kHashExamples);
  sub->add_option("INPUT", o.inputs,
                  "tensor files (.safetensors .gguf .npy .npz .pt), an index, a model folder, a URL or -")
      ->required();
  sub->add_option("--algo", o.algo, "hash function: xxh3-128 (default; as xxhsum -H2) or sha256")
      ->check(CLI::IsMember({"xxh3-128", "sha256"}));
  sub->add_option("--check", o.check,
                  "verify the inputs against MANIFEST (a hash --json output): exit 0 all match, 1 not")
      ->type_name("MANIFEST");
  sub->add_flag("--json", o.json,
                "one JSON object: the manifest (kind \"hash\"), or with --check the report (kind \"hash_check\")");
  sub->add_flag("--quiet", o.quiet, "with --check: print only the tensors that do not match");
  sub->add_option("--limit", o.limits, "raise a resource cap, e.g. manifest_bytes=1G (errors name the cap they hit)");
  return sub;
}

namespace {

// What the files warn of (a missing shard, pickle globals), once each, on stderr.
void warn_of_inputs(const HashInputs& in) {
  std::vector<const LoadedFile*> files;
  for (const LoadedFile& f : in.files) files.push_back(&f);
  for (const std::string& w : warnings_once(files)) spdlog::warn("{}", escape_untrusted(w, false));
}

// `hash --check MANIFEST INPUT...`: the inputs' tensors hashed with the manifest's algorithm
// and compared with it (tensor_inspect/hash_check.hpp).
int run_hash_check(const HashOptions& o) {
  const Manifest m = read_manifest(*o.check);
  if (o.algo && *o.algo != hash_algorithm_name(m.algorithm))
    throw Error(ErrorCode::Usage, "hash: --algo " + *o.algo + " contradicts the manifest's algorithm (" +
                                      std::string(hash_algorithm_name(m.algorithm)) + "): --check uses the manifest's");
  const HashInputs in = open_hash_inputs(o.inputs);
  const std::vector<HashCheckRow> rows = check_manifest(m, in);
  OutBuffer out(stdout);
  write_hash_check(rows, m, *o.check, in, o.quiet, o.json, out);
  out.flush();
  warn_of_inputs(in);
  for (const HashCheckRow& r : rows)
    if (r.status != HashCheckStatus::Ok) return 1;
  return 0;
}

}  // namespace

int run_hash(const HashOptions& o) {
  set_limits_from(o.limits);
  if (o.quiet && !o.check)
    throw Error(ErrorCode::Usage, "hash: --quiet belongs to --check (it leaves out the tensors that match)");
  if (o.check) return run_hash_check(o);
  const HashAlgorithm algo = o.algo ? *hash_algorithm_from_name(*o.algo) : HashAlgorithm::Xxh3_128;
  const HashInputs in = open_hash_inputs(o.inputs);
  const std::vector<TensorHash> hashes = hash_tensors(in.entries, algo);
  OutBuffer out(stdout);
  write_hashes(hashes, in, algo, o.json, out);
  out.flush();
  warn_of_inputs(in);
  return 0;
}

}  // namespace tensor_inspect::app
