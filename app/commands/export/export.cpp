// app/commands/export/export.cpp — the export subcommand: choose tensors, build each lazily (loader,
// -e, --dtype), and write them through a temporary file renamed into place (export.hpp).
#include "commands/export/export.hpp"
#include "tensor_inspect/export_plan.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>

#include "term/removed_on_signal.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/safe_write.hpp"
#include "tensor_inspect/schemes.hpp"

namespace tensor_inspect::app {
namespace {

constexpr const char* kExportExamples = R"(Examples:
  tensor-inspect export model.safetensors --name lm_head.weight -o lm_head.npy
  tensor-inspect export model-Q4_K_M.gguf --name 'blk.0.*' -o blk0.safetensors     dequantized, float32
  tensor-inspect export model.safetensors --name embed.weight -e 'x[:100]' -o first100.npy
  tensor-inspect export ./hf-model/ --all --dtype float32 -o all-f32.safetensors
  tensor-inspect export model.safetensors --all --format npz -o - | ssh host 'cat > w.npz'

The output's extension chooses its format, or --format: .npy (one tensor), .npz (several, as
numpy.savez writes them, zip64 from 4 GiB; NumPy has no bfloat16 or fp8: cast them with
--dtype) or .safetensors (any number, with a __metadata__ naming the source). `-o -` writes
standard output (a pipe or a file, never a terminal) and needs --format.
Quantized GGUF tensors are written dequantized (float32). The file is written beside OUT and
renamed into place when complete; an existing OUT is replaced only with --force, an input never.
Exit status: 0 written; 2 trouble (nothing written).)";

namespace fs = std::filesystem;

// The size from which .npz members are zip64: TI_ZIP64_FROM (bytes) lets tests force zip64
// records on a small archive, which readers take as they take a 4 GiB one's.
std::uint64_t export_zip64_from() {
  const char* v = std::getenv("TI_ZIP64_FROM");
  if (!v || !*v) return kZip64From;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (*end != '\0') throw Error(ErrorCode::Usage, std::string("export: TI_ZIP64_FROM=") + v + " is not a byte count");
  return std::min<std::uint64_t>(n, kZip64From);
}

}  // namespace

CLI::App* setup_export(CLI::App& app, ExportOptions& o) {
  CLI::App* sub =
      app.add_subcommand("export", "write selected tensors as .npy, .npz or .safetensors (dequantized, after -e)");
  sub->footer(kExportExamples);
  sub->add_option("INPUT", o.input,
                  "a tensor file (.safetensors .gguf .npy .npz .pt), an index, a model folder, a URL or -")
      ->required();
  sub->add_option("--name", o.names, "a tensor's name or a shell glob (repeatable)");
  sub->add_flag("--all", o.all, "every tensor");
  sub->add_option("-e,--expr", o.expr, "a tinygrad expression applied to each tensor, named x");
  sub->add_option("--dtype", o.dtype, "cast the values to this dtype (tinygrad names)");
  sub->add_option("-o,--output", o.output, "the file to write: .npy, .npz or .safetensors, or - (stdout)")->required();
  sub->add_option("--format", o.format, "npy, npz or safetensors: the format where OUT has no such extension (-)");
  sub->add_flag("--force", o.force, "replace an existing output file");
  sub->add_option("--limit", o.limits, "raise a resource cap, e.g. hdf5_chunks=64M (errors name the cap they hit)");
  return sub;
}

int run_export(const ExportOptions& o) {
  set_limits_from(o.limits);
  if (o.all && !o.names.empty())
    throw Error(ErrorCode::Usage,
                "export: --all and --name contradict (--all takes every tensor, --name those it matches): choose one");
  const std::string format = export_format(o.output, o.format);
  const std::uint64_t zip64_at = export_zip64_from();
  std::optional<DType> cast;  // the one table of dtype names every option reads (bf16, torch.float16, F8_E4M3, ...)
  if (o.dtype) cast = parse_dtype_name(*o.dtype, "export: --dtype");
  refuse_input_as_output(o.input, o.output);
  // The one safe-write helper: a regular file or new path gets a temporary file renamed into
  // place, a symlink's target is written and the link kept, a FIFO or `-` is written through;
  // a run ended by a signal removes its temporary file.
  OutputFiles outputs(removed_on_signal_hooks());
  if (o.input != "-" && !is_url(o.input)) outputs.protect(o.input);
  const OutputTarget target = outputs.check(o.output, false);
  if (target.terminal)
    throw Error(ErrorCode::Usage, "export: " + (o.output == "-" ? std::string("standard output") : o.output) +
                                      " is a terminal, where the file's bytes would be noise: redirect it (> out." +
                                      format + ") or name a file with -o");
  // A file (or a link to one) is replaced only when asked; a pipe, FIFO or `-` is written through.
  std::error_code ec;
  if (!o.force && target.kind == OutputTarget::Kind::File &&
      (fs::exists(fs::symlink_status(o.output, ec)) || fs::is_symlink(o.output, ec)))
    throw Error(ErrorCode::Usage, "export: " + o.output + " exists: --force replaces it");
  LoadedFile lf = open_file(o.input);
  apply_schemes(lf);  // quantized weights as the logical tensors the listing shows, dequantized
  const std::string label = o.input == "-" ? "<stdin>" : input_name(o.input);
  const std::vector<std::size_t> chosen = export_choice(lf, label, o.names, o.all, format);
  const NamedTensors tensors = export_tensors(lf, chosen, o.expr, cast);
  // NumPy has no bfloat16 or fp8: refused before anything is written, naming the output the user
  // gave (not the temporary file the writer would fill).
  refuse_numpy_less(tensors, format, o.output);
  outputs.write_with(o.output, format, true, [&](const std::string& tmp) {
    write_export(format, tensors, {{"source", label}, {"format", lf.format}, {"producer", "tensor-inspect export"}},
                 tmp, zip64_at);
  });
  outputs.commit();
  return 0;
}

}  // namespace tensor_inspect::app
