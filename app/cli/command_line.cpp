// app/cli/command_line.cpp — the command line (CLI11) parsed once into one verb and its
// options (command_line.hpp): option groups built only where argv reaches them, usage
// faults refused with one line, the verb run with the remote options applied.
#include "cli/command_line.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string_view>
#include <span>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/option_groups.hpp"
#include "cli/suggest.hpp"
#include "cli/usage_faults.hpp"
#include "cli/version.hpp"
#include "commands/stats/stats.hpp"
#include "term/report.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"

namespace tensor_inspect::app {
namespace {

constexpr const char* kExamples = R"(Examples:
  tensor-inspect '[[1, 2], [3, 4]]'                    what Tensor.data() holds: format i, shape (2, 2)
  tensor-inspect --dtype float16 '[0.1, 65520, -0.0]'  values rounded as float16: 0.0999755859375, inf, -0.0
  tensor-inspect '[1.5, True]' --json | jq .tolist     one JSON object, for scripts
  tensor-inspect weights.npy                           a NumPy file (any dtype, big-endian, Fortran order)
  tensor-inspect model.safetensors                     several tensors: a listing from the header alone
  tensor-inspect model.safetensors --name model.norm.weight   one tensor's values
  tensor-inspect model.safetensors --name 'model.layers.*.mlp.*' --header --jsonl | jq -c '{name, shape}'
                                                       globs (repeatable) or --all: one JSON line per tensor;
                                                       --header: no values read or written (JSON keeps them all)
  tensor-inspect ./hf-model/ --list                    a model folder (shards and index) as one checkpoint
  tensor-inspect m.safetensors --name lm_head.weight --expect dtype=bfloat16 --expect shape=32000,4096
  tensor-inspect x.npy --assert '(x.abs() < 100).all()'   checks: exit 1 and each failure with its value
  tensor-inspect diff a.safetensors b.gguf --names hf-gguf --rtol 1e-3
                                                       a checkpoint and its GGUF, paired by llama.cpp's names
                                                       (see: tensor-inspect diff --help)
  tensor-inspect model.gguf --meta                     GGUF key/values
  tensor-inspect x.npy -e 'x.T[0, ::-1] * 2'           a tinygrad expression over the input, named x
  tensor-inspect -e 'Tensor.arange(6).reshape(2, 3)'   an expression alone
  tensor-inspect x.npy -e 'x.isfinite().all(axis=1)'   bool checks: isnan isinf isfinite any all
  tensor-inspect w.npy -e 'x @ x.T'                    a matrix product (float32/float64 through OpenBLAS)
  OMP_NUM_THREADS=1 tensor-inspect x.npy -e 'x.sum()'  threads for loops; results are the same on any count
  tensor-inspect '[1.0]' --view-as B --view-as i       memoryview.cast('B').cast('i'): the raw bits, [1065353216]
  tensor-inspect -vv x.npy -e 'x.sum()'                on stderr: format, bytes mapped, kernels, timings
  tensor-inspect dump.bin --raw float32 --shape 2,3    raw bytes, as numpy.frombuffer reads them
  tensor-inspect big.npy                               above 1000 elements: the first and last 3, as NumPy prints
  tensor-inspect big.npy --edgeitems 1 --threshold 10  fewer items at each end; --full prints every element
  tensor-inspect big.npy --json --threshold 1000       JSON summarizes only when asked: "..." marks the elisions
  tensor-inspect big.npy --header                      format, shape, strides, nbytes: no data read
  cat x.npy | tensor-inspect -                         standard input (up to 1 GiB: --limit stream_bytes=4G for more)
  tensor-inspect model.pt --list --strict              refuse globals torch.load(weights_only=True) refuses
  tensor-inspect big.npy --full | head -c 300          printed on all cores (OMP_NUM_THREADS=1: one); stops quietly
  tensor-inspect -- -5                                 a negative literal after --
  tensor-inspect model.safetensors --stats             min max mean std absmax nan/inf/zero per tensor, totals
  tensor-inspect model.gguf --name blk.0.attn_q.weight --stats --hist=40   dequantized values, a histogram
  tensor-inspect x.npy --plot h.png                    a histogram PNG (--plot-kind heatmap: a 2-D tensor)
  tensor-inspect model.safetensors --fail-on nan,inf   exit 1 naming the tensors that hold nan or inf
  tensor-inspect m.safetensors --name 'model.layers.*.mlp.*' --stats --jsonl | jq -c '{name, mean}'
                                                       statistics of a selection, one JSON line per tensor
  tensor-inspect m.safetensors --all --plot 'h-{name}.png'   one histogram PNG per tensor
  tensor-inspect validate model.safetensors x.npz      every rule of each file's format (see: validate --help)
  tensor-inspect hash ./hf-model/ --json > m.json      a content hash per tensor, any format (see: hash --help)
  tensor-inspect https://host/model.safetensors --list  a URL: range requests fetch only the bytes read (headers here)
  tensor-inspect hf://org/model/model.safetensors --name lm_head.weight -e 'x[:2, :8]'
                                                       the hub's resolve URL; HF_TOKEN or --token-file FILE
  tensor-inspect https://host/m.safetensors --stats --cache ~/.cache/ti   keep fetched blocks: a second look is local
  tensor-inspect https://host/m.safetensors --list --timeout 5   give up on a server silent for 5 s (default 20)

Exit status: 0 success; 1 a check (--expect, --assert, --fail-on) failed, diff found a difference
(or a tensor it could not compare) or validate found an error (a warning with --strict); 2 trouble (bad command line,
unreadable or malformed input, unsupported operation, a tensor --fail-on cannot decode), with one
line on stderr and nothing on stdout. Options on the command line win over TI_CACHE_DIR,
TI_CACHE_SIZE and TI_TIMEOUT; options that contradict
(--all with --name, --json with --jsonl, --list with --stats, ...) are a usage error naming both. Files named diff or
validate are reached as ./diff, ./validate. JSON objects carry "schema_version" and "kind";
a file of several tensors without --name gives its listing (schemas/*.schema.json).)";

}  // namespace

CommandLine::CommandLine() = default;
CommandLine::~CommandLine() = default;

bool CommandLine::json() const {
  switch (verb) {
    case Verb::Diff:
      return diff.json || diff.jsonl;
    case Verb::Validate:
      return validate.json;
    case Verb::Hash:
      return hash.json;
    case Verb::Export:
      return false;
    case Verb::Inspect:
      break;
  }
  return inspect.json || inspect.jsonl;
}

std::string CommandLine::input_label() const {
  return !inspect.input.empty() ? input_name(inspect.input)
         : inspect.expr         ? "expression '" + *inspect.expr + "'"
                                : "input";
}

std::optional<int> parse_command_line(int argc, char** argv, CommandLine& cl) {
  Options& o = cl.inspect;
  // Kept by `cl` until the run ends: a successful run ends the process without freeing it
  // (process_exit.hpp), as main's own parser did.
  cl.parser = std::make_unique<CLI::App>(
      "tensor-inspect: what tinygrad's Tensor.data() returns for a tensor — the memoryview's\n"
      "format, shape, itemsize, nbytes and tolist() — from a literal or a tensor file.",
      "tensor-inspect");
  CLI::App& cli = *cl.parser;
  cli.footer(kExamples);
  // One option group per heading: CLI11 checks a new option only against its group's
  // (option_groups.hpp); --help shows them as before through help_formatter().
  cli.formatter(help_formatter());
  // Only the option groups a word of argv can reach are built (option_groups.hpp):
  // `tensor-inspect 5` or `tensor-inspect FILE` builds none of them.
  enum Group { kRoot, kFile, kCheck, kEngine, kPrint, kStats, kRemote, kGroups };
  const OptionNames names[kGroups] = {
      {"--dtype --expr --json --strict --default-float --default-int --json-nonfinite", "e"},
      {"--name --all --jsonl --list --stored --meta --list0 --overview --format --raw --shape --offset --byte-order",
       ""},
      {"--expect --assert", ""},
      {"--graph --view-as --limit", "v"},
      kPrintOptionNames,
      kStatsOptionNames,
      kRemoteOptionNames,
  };
  // Building a subcommand's parser costs about what a small run does (CLI11 checks each new
  // option against all before it), so one is built only where argv could reach it: when a
  // word of argv is its name (CLI11 matches subcommands by that word) or asks for help,
  // whose page lists the subcommands. Other command lines parse exactly as with all built.
  const auto reachable = [&](std::string_view name) {
    for (int i = 1; i < argc; ++i) {
      const std::string_view a = argv[i];
      const bool short_flags = a.size() > 1 && a[0] == '-' && a[1] != '-';  // -h, or -vh
      if (a == name || a == "--help" || (short_flags && a.find('h') != std::string_view::npos)) return true;
    }
    return false;
  };
  const std::vector<bool> reach =
      reachable_groups(std::span<char* const>(argv + 1, static_cast<std::size_t>(argc - 1)), names);
  CLI::App* group[kGroups] = {&cli};
  // The root's help flag is set aside while the groups are made: each would build a copy.
  const std::string help_description = cli.get_help_ptr()->get_description();
  cli.set_help_flag();
  for (int g = kFile; g < kGroups; ++g)
    if (reach[static_cast<std::size_t>(g)]) group[g] = &option_group(cli);
  cli.set_help_flag("-h,--help", help_description);
  cli.set_version_flag("--version", version_string());
  cli.add_option(
      "INPUT", o.input,
      "a tensor literal ('[[1, 2], [3, 4]]', '5', '[]'), a file (.npy .npz .safetensors .gguf .pt), or - for stdin");
  if (reach[kRoot]) {
    cli.add_option(
        "--dtype", o.dtype,
        "dtype of a literal (tinygrad's, NumPy's, torch's or a format's name: float16, half, f16, BF16, u8, ...)");
    cli.add_option("-e,--expr", o.expr, "tinygrad-style expression over the input, named x");
    cli.add_flag("--json", o.json, "one JSON object on stdout instead of text");
    cli.add_flag(
        "--strict", o.strict,
        "fail exactly where Tensor.data() fails (bfloat16 and fp8 have no format); in every mode, refuse a file "
        "that warns (pickle globals, missing shards)");
    cli.add_option("--default-float", o.default_float, "what Python floats commit to")->default_str("float32");
    cli.add_option("--default-int", o.default_int, "what Python ints commit to")->default_str("int32");
    cli.add_option(
           "--json-nonfinite", o.json_nonfinite,
           "nan/inf among tensor values in JSON: string (\"nan\", strict JSON) or python (NaN); with --json/--jsonl")
        ->check(CLI::IsMember({"string", "python"}))
        ->default_str("string");
  }
  if (CLI::App* file_options = group[kFile]) {
    auto* files = "Files";
    file_options
        ->add_option("--name", o.names,
                     "a tensor of a file (its exact name, glob characters and all), or a shell glob "
                     "('model.layers.*.mlp.*'); repeatable")
        ->group(files);
    file_options->add_flag("--all", o.all, "every tensor of a file, each under its name")->group(files);
    file_options->add_flag("--jsonl", o.jsonl, "one JSON object per tensor and line (with file and name), streamed")
        ->group(files);
    file_options->add_flag("--list", o.list, "list the tensors of a file (reads headers only)")->group(files);
    file_options
        ->add_flag("--stored", o.stored,
                   "quantized weights as their stored parts (qweight, scales, ...), not dequantized")
        ->group(files);
    file_options->add_flag("--meta", o.meta, "show a file's metadata (reads headers only)")->group(files);
    file_options
        ->add_flag(
            "--overview", o.overview,
            "tensors repeated across layers as one row (x32), totals, config.json or GGUF facts (reads headers only)")
        ->group(files);
    file_options
        ->add_flag("--list0", o.list0,
                   "the names of a file's tensors, raw, each followed by a NUL byte: for scripts and shell completion "
                   "(xargs -0)")
        ->group(files);
    file_options
        ->add_option("--format", o.format,
                     "force a format: npy, npz, safetensors, safetensors-index, gguf, pytorch, dcp, onnx, hdf5, keras")
        ->group(files);
    file_options->add_option("--raw", o.raw, "read the file as raw bytes of this dtype (numpy.frombuffer)")
        ->group(files);
    file_options->add_option("--shape", o.shape, "shape of --raw data, e.g. 2,3 (default: one axis)")->group(files);
    file_options->add_option("--offset", o.offset, "bytes to skip before --raw data (a whole number, 0 or more)")
        ->check(byte_offset_check())
        ->type_name("BYTES")
        ->group(files);
    file_options->add_option("--byte-order", o.byte_order, "byte order of --raw data")
        ->check(CLI::IsMember({"little", "big"}))
        ->group(files);
  }
  if (CLI::App* check_options = group[kCheck]) {
    auto* checks = "Checks (exit 1 when one fails)";
    check_options
        ->add_option("--expect", o.expects,
                     "KEY=VALUE for dtype, shape, ndim, numel, format, nbytes (decoded), stored_dtype, stored_nbytes: "
                     "--expect dtype=bf16 --expect shape=32000,4096; with --stats, --fail-on and --assert in one run")
        ->group(checks);
    check_options
        ->add_option("--assert", o.asserts, "an expression over x that must be True: --assert '(x.abs() < 100).all()'")
        ->group(checks);
  }
  if (CLI::App* engine_options = group[kEngine]) {
    auto* eng = "Engine";
    engine_options
        ->add_option("--graph", o.graph,
                     "the lazy graph and kernels of what printing computes, on stderr (text or dot)")
        ->expected(0, 1)
        ->default_str("text")
        ->group(eng);
    engine_options
        ->add_option("--view-as", o.view_as, "memoryview.cast(FMT[, SHAPE]) on the result: B, i, f:2,2 (repeatable)")
        ->group(eng);
    engine_options->add_flag("-v", o.verbosity, "more log output on stderr (-vv for debug; -v takes no value)")
        ->group(eng);
    engine_options
        ->add_option("--limit", o.limits, "raise a resource cap, e.g. stream_bytes=4G (errors name the cap they hit)")
        ->group(eng);
  }
  if (group[kPrint]) setup_print_options(*group[kPrint], o.print);
  if (group[kStats]) setup_stats(*group[kStats], o.stats);

  DiffOptions& diff_options = cl.diff;
  CLI::App* diff = reachable("diff") ? setup_diff(cli, diff_options) : nullptr;
  ValidateOptions& validate_options = cl.validate;
  CLI::App* validate = reachable("validate") ? setup_validate(cli, validate_options) : nullptr;
  HashOptions& hash_options = cl.hash;
  CLI::App* hash = reachable("hash") ? setup_hash(cli, hash_options) : nullptr;
  ExportOptions& export_options = cl.exporter;
  CLI::App* exporter = reachable("export") ? setup_export(cli, export_options) : nullptr;
  RemoteFlags& remote = cl.remote;
  for (CLI::App* app : {&cli, diff, validate, hash, exporter}) {
    if (!app) continue;
    if (app != &cli) {
      setup_remote(*app, remote);
      // -v is every verb's, before its name or after (`diff a b -v`), as the remote options are.
      app->add_flag("-v", cl.sub_verbosity, "more log output on stderr (-vv for debug; -v takes no value)");
    } else if (group[kRemote])
      setup_remote(*group[kRemote], remote);
    // A repeatable option takes one value per occurrence (--name a --name b), as grep -e
    // and curl -H do: CLI11's default lets `--name ids FILE` swallow FILE as a second name.
    for (CLI::Option* opt : options_with_groups(*app)) {
      if (opt->nonpositional() && opt->get_items_expected_max() > 1) opt->allow_extra_args(false);
      take_repeats(*opt);  // `--dtype a --dtype b`: named below, not CLI11's "At Most 1"
    }
  }
  bool argv_json = false;
  for (int i = 1; i < argc; ++i)
    argv_json |= std::string_view(argv[i]) == "--json" || std::string_view(argv[i]) == "--jsonl";
  try {
    refuse_verbosity_values(std::span<char* const>(argv + 1, static_cast<std::size_t>(argc - 1)));
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version: their page must arrive too (a full disk is exit 2)
      errno = 0;
      const int status = cli.exit(e);
      std::cout.flush();
      if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
        return report(Error(ErrorCode::Io, std::string("<stdout>: write error: ") + std::strerror(errno)), argv_json);
      return status;
    }
    // An unknown option (CLI11's ExtrasError) names the closest known one: --stat, --stats.
    const std::string hint =
        dynamic_cast<const CLI::ExtrasError*>(&e)
            ? unknown_option_hint(cli, std::span<char* const>(argv + 1, static_cast<std::size_t>(argc - 1)))
            : "";
    return report(Error(ErrorCode::Usage, std::string(e.what()) + hint + " (see --help)"), argv_json);
  } catch (const Error& e) {
    return report(e, argv_json);
  }
  try {
    refuse_repeats_and_empty_inputs(cli, "");
    if (diff && *diff) refuse_repeats_and_empty_inputs(*diff, "diff: ");
    if (validate && *validate) refuse_repeats_and_empty_inputs(*validate, "validate: ");
    if (hash && *hash) refuse_repeats_and_empty_inputs(*hash, "hash: ");
    if (exporter && *exporter) refuse_repeats_and_empty_inputs(*exporter, "export: ");
  } catch (const Error& e) {
    return report(e, argv_json);
  }
  // What stands before a subcommand's name is the main command's: `--json diff a b` would
  // set the main command's --json and print diff's text. Refused, naming it, except the
  // options both share (the remote ones, -v).
  if (CLI::App* sub = diff && *diff           ? diff
                      : validate && *validate ? validate
                      : hash && *hash         ? hash
                      : exporter && *exporter ? exporter
                                              : nullptr) {
    for (int g : {kRoot, kFile, kCheck, kEngine, kPrint, kStats}) {
      if (!group[g]) continue;
      for (const CLI::Option* opt : group[g]->get_options()) {
        if (opt->count() == 0 || opt->get_name() == "-v") continue;
        const std::string what = opt->nonpositional() ? opt->get_name() : "'" + o.input + "'";
        return report(Error(ErrorCode::Usage, what + " stands before '" + sub->get_name() +
                                                  "', where it belongs to the main command: " + sub->get_name() +
                                                  "'s options and inputs come after '" + sub->get_name() +
                                                  "' (see tensor-inspect " + sub->get_name() + " --help)"),
                      diff_options.json || validate_options.json || hash_options.json);
      }
    }
  }

  o.verbosity += cl.sub_verbosity;
  cl.verb = diff && *diff           ? Verb::Diff
            : validate && *validate ? Verb::Validate
            : hash && *hash         ? Verb::Hash
            : exporter && *exporter ? Verb::Export
                                    : Verb::Inspect;
  adopt_input_from_hist(o.stats, o.input);
  try {
    for (int g = kRoot; g < kGroups; ++g)
      if (group[g]) check_option_names(*group[g], names[g]);
  } catch (const Error& e) {
    return report(e, cl.json());
  }
  return std::nullopt;
}

int run_command_line(const CommandLine& cl) {
  apply_remote(cl.remote);
  switch (cl.verb) {
    case Verb::Diff:
      return run_diff(cl.diff);
    case Verb::Validate:
      return run_validate(cl.validate);
    case Verb::Hash:
      return run_hash(cl.hash);
    case Verb::Export:
      return run_export(cl.exporter);
    case Verb::Inspect:
      break;
  }
  return run(cl.inspect);
}

}  // namespace tensor_inspect::app
