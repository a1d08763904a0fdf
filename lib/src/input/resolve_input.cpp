// input/resolve_input.cpp — a run's INPUT to the tensors it shows (tensor_inspect/input.hpp): a
// literal, --raw bytes, a tensor file or standard input; then the entries chosen, or the file
// itself to list. Only headers are read.
#include <sys/stat.h>

#include <string>

#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/input.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/schemes.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {
namespace {

bool input_path_exists(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0;
}

// A literal starts like a Python value; anything else is taken for a path.
bool input_looks_like_literal(const std::string& s) {
  auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return true;
  char c = s[first];
  if (std::string("[(-+.0123456789'\"").find(c) != std::string::npos) return true;
  std::string word = s.substr(first, s.find_first_of(" ([,", first) - first);
  return word == "True" || word == "False" || word == "None" || word == "float" || word == "nan" || word == "inf";
}

ResolvedInput resolve_file(LoadedFile lf, const InputRequest& o) {
  // What the file warns of (pickle globals torch.load would import, missing shards) is the
  // caller's to say at the end of a run without trouble; --strict refuses the file.
  if (o.strict && !lf.warnings.empty()) throw Error(ErrorCode::BadFile, lf.warnings[0] + " (--strict)");
  ResolvedInput r;
  r.format = lf.format;
  r.warnings = lf.warnings;
  if (o.meta || o.list || o.list0 || o.overview) {
    r.file = std::move(lf);
    return r;
  }
  std::vector<std::size_t> chosen;
  r.many = many_mode(o) && !(o.names.size() == 1 && !o.all && !o.jsonl && names_a_tensor(lf, o.names[0]));
  if (*r.many && (o.all || !o.names.empty())) {
    chosen = select_entries(lf, o.names, o.all);
  } else if (!o.names.empty()) {
    chosen = select_entries(lf, o.names, false);
    if (chosen.size() > 1)
      chosen.erase(chosen.begin() + 1, chosen.end());  // an exact name held twice: the first, as before
  } else if (lf.tensors.size() == 1) {
    chosen = {0};
  } else if (o.jsonl && !o.stats) {
    throw Error(ErrorCode::Usage, lf.path + " holds " + count_of(lf.tensors.size(), "tensor") +
                                      ": choose them with --name or --all for --jsonl");
  } else {
    r.file = std::move(lf);
    return r;
  }
  // --expect reads the header alone: a tensor whose values cannot be decoded is checked too.
  for (std::size_t i : chosen)
    r.items.push_back(selected_tensor_of(lf, lf.tensors[i], (o.stats || o.checks) && !o.expr));
  return r;
}

// The run prints the listing, the names or the metadata, and nothing else of the tensors:
// the file may be opened for a listing only (open_listing: a GGUF header's records, no
// entry per tensor). Not --overview, which groups the entries.
bool input_lists_only(const InputRequest& o) {
  return (o.list || o.meta || o.list0) && !o.overview && !o.stats && !o.expr && !o.checks && !o.describes_tensor;
}

ResolvedInput resolve_raw(const InputRequest& o) {
  if (o.format)
    throw Error(ErrorCode::Usage,
                "--raw " + *o.raw + " and --format " + *o.format + " both say how to read the file: choose one");
  RawOptions ro;
  ro.dtype = parse_dtype_name(*o.raw, "--raw");
  if (o.shape) ro.shape = parse_shape(*o.shape, "--shape");
  ro.offset = o.offset.value_or(0);
  ro.big_endian = o.byte_order == "big";
  const bool from_stdin = o.input.empty() || o.input == "-";
  struct stat st{};
  const bool device = (from_stdin ? ::fstat(0, &st) : ::stat(o.input.c_str(), &st)) == 0 && S_ISCHR(st.st_mode);
  const StreamCheck check =
      tensor_stream_check({from_stdin ? "<stdin>" : o.input, std::nullopt, false, ro, false, device});
  auto file = from_stdin ? MappedFile::read_fd(0, "<stdin>", check) : MappedFile::open(o.input, check);
  LoadedFile lf = open_raw(file, ro);
  lf.path = file->name();
  return resolve_file(std::move(lf), o);
}

ResolvedInput resolve_stdin(const InputRequest& o, const Defaults& defaults, const std::optional<DType>& literal_dtype,
                            bool file_mode) {
  auto file = MappedFile::read_fd(0, "<stdin>",
                                  tensor_stream_check({"<stdin>", o.format, !file_mode, std::nullopt, false, false}));
  std::optional<LoadedFile> lf = open_detected(file, o.format);
  if (lf) {
    if (o.dtype)
      throw Error(ErrorCode::Usage, "--dtype applies to literals, and <stdin> holds a " + lf->format +
                                        " file; use -e 'x.cast(dtypes." +
                                        std::string(dtype_info(*literal_dtype).name) + ")'");
    if (!o.stored) apply_schemes(*lf);
    lf->path = "<stdin>";
    return resolve_file(std::move(*lf), o);
  }
  auto bytes = file->bytes();
  if (bytes.empty())  // `< /dev/null`, or a producer that wrote nothing
    throw Error(ErrorCode::BadFile, "<stdin>: empty input (0 bytes): neither a tensor file nor a literal");
  if (file_mode) throw Error(ErrorCode::BadFile, "<stdin>: not a recognised tensor file");
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());  // parsed where it was read
  ResolvedInput r;
  try {
    r.items.push_back(SelectedTensor{std::nullopt, std::nullopt, tensor_from_literal(text, literal_dtype, defaults),
                                     "<stdin>", "", std::nullopt, ""});
  } catch (const Error& e) {
    throw Error(e.code(), "<stdin>: " + std::string(e.what()), {"<stdin>", "", e.byte_offset(), e.limit()});
  }
  return r;
}

}  // namespace

bool many_mode(const InputRequest& o) {
  return o.all || o.jsonl || o.names.size() > 1 || (o.names.size() == 1 && is_glob(o.names[0]));
}

bool is_literal_input(const std::string& input) {
  return !input_path_exists(input) && input_looks_like_literal(input);
}

ResolvedInput resolve_input(const InputRequest& o, const Defaults& defaults) {
  std::optional<DType> literal_dtype;
  if (o.dtype) literal_dtype = parse_dtype_name(*o.dtype, "--dtype");
  if (o.raw) return resolve_raw(o);
  if (o.shape || o.offset || o.byte_order)
    throw Error(ErrorCode::Usage, "--shape, --offset and --byte-order go with --raw");
  if (o.input.empty()) {
    if (!o.names.empty() || o.all || o.list || o.meta || o.list0 || o.overview)
      throw Error(ErrorCode::Usage, "--name, --all, --list, --meta, --list0 and --overview need a file INPUT");
    if (o.dtype)
      throw Error(ErrorCode::Usage,
                  "--dtype types a literal INPUT, and -e alone has none: cast in the expression (.cast(dtypes." +
                      std::string(dtype_info(*literal_dtype).name) + "))");
    return {};
  }
  const bool file_mode = !o.names.empty() || o.all || o.list || o.meta || o.list0 || o.overview || o.format;
  if (o.input == "-") return resolve_stdin(o, defaults, literal_dtype, file_mode);
  if (file_mode || input_path_exists(o.input) || !input_looks_like_literal(o.input)) {
    if (o.dtype) throw Error(ErrorCode::Usage, "--dtype applies to literals; for a file use -e 'x.cast(dtypes." +
                                                  std::string(dtype_info(*literal_dtype).name) + ")'");
    LoadedFile lf = open_file_logged(o.input, o.format, "", input_lists_only(o));
    if (!o.stored) apply_schemes(lf);
    lf.path = input_name(o.input);  // a URL without its password or query
    return resolve_file(std::move(lf), o);
  }
  ResolvedInput r;
  r.items.push_back(SelectedTensor{std::nullopt, std::nullopt, tensor_from_literal(o.input, literal_dtype, defaults),
                                   "", "", std::nullopt, ""});
  return r;
}

}  // namespace tensor_inspect
