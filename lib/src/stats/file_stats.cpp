// stats/file_stats.cpp — statistics of every tensor of a file and --fail-on's verdicts
// (file_stats.hpp): each tensor scanned in place where its bytes allow (a GGUF tensor's
// blocks, a mapped tensor's bytes), else streamed through the executor.
#include <algorithm>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/file_stats.hpp"
#include "tensor_inspect/frontend.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/totals.hpp"

namespace tensor_inspect {

FailOn parse_fail_on(const std::string& text) {
  FailOn f;
  std::size_t at = 0;
  for (int item = 1; at <= text.size(); ++item) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    // Spaces around an item are how people type lists ('nan, inf'); inside one they are not.
    std::string check = text.substr(at, comma - at);
    check.erase(0, check.find_first_not_of(" \t"));
    check.erase(check.find_last_not_of(" \t") + 1);
    if (check.empty())
      throw Error(ErrorCode::Usage,
                  "--fail-on '" + text + "': " +
                      (text.find(',') == std::string::npos ? std::string("no check given")
                                                           : "check " + std::to_string(item) + " is empty") +
                      " (known: nan, inf, zero-tensor; e.g. --fail-on nan,inf)");
    if (check != "nan" && check != "inf" && check != "zero-tensor")
      throw Error(ErrorCode::Usage,
                  "--fail-on: unknown check '" + check + "' (known: nan, inf, zero-tensor; e.g. --fail-on nan,inf)");
    if (std::find(f.checks.begin(), f.checks.end(), check) == f.checks.end()) f.checks.push_back(check);
    at = comma + 1;
  }
  return f;
}

std::string fail_on_unchecked(const std::string& reason) {
  return reason + ": --fail-on cannot check its values (leave it out with --name)";
}

void apply_fail_on(const FailOn& f, StatsRow& row) {
  row.failed.clear();
  if (!row.stats) return;
  const TensorStats& s = *row.stats;
  for (const std::string& c : f.checks) {
    const bool fails = c == "nan"   ? s.nan > 0
                       : c == "inf" ? s.posinf + s.neginf > 0
                                    : s.count > 0 && s.zero == static_cast<std::uint64_t>(s.count);
    if (fails) row.failed.push_back(c);
  }
}

StatsRow stats_row_of(const TensorEntry& entry) {
  StatsRow r;
  r.name = entry.name;
  r.dtype = entry.dtype;
  r.stored_type = entry.stored_type;
  r.shape = entry.shape;
  r.nbytes = entry.nbytes;
  r.group = std::string(stored_type_of(entry));
  return r;
}

std::optional<StoredElements> in_place_source(const Tensor& t, const TensorEntry* entry, const Defaults& defaults) {
  if (const EntryDetails* d = entry ? &entry->details() : nullptr; d && d->ggml_type && d->blocks_file) {
    const std::span<const std::byte> blocks = entry->stored_blocks();
    return gguf_blocks_source(blocks, *d->ggml_type, entry->shape, d->blocks_file);
  }
  return stored_elements(t.cast(commit_dtype(t.dtype(), defaults)), false);  // the scan fetches, window by window
}

// A scan gives back the remote blocks wholly inside a tensor; those a tensor shares with
// the next one go when both are scanned: tensors that follow each other in the file
// (safetensors, a GGUF data section) are released as one run from the first of them.
struct StatsReleaseBehind {
  const MappedFile* file = nullptr;
  std::uint64_t begin = 0, end = 0;  ///< the run of adjacent tensors scanned so far
  void scanned(const StoredElements& s) {
    if (!s.file || !s.file->is_remote() || s.bytes.empty()) return;
    const auto at = static_cast<std::uint64_t>(s.bytes.data() - s.file->bytes().data());
    if (s.file.get() != file || at != end) file = s.file.get(), begin = at;
    end = at + s.bytes.size();
    file->release_pages(begin, end - begin);
  }
};

std::string index_text(std::int64_t flat, const Shape& shape) {
  std::string index;
  auto rest = static_cast<std::uint64_t>(flat);
  for (std::size_t ax = shape.size(); ax-- > 0;) {
    const auto dim = static_cast<std::uint64_t>(shape[ax]);
    index = std::to_string(dim ? rest % dim : 0) + (index.empty() ? "" : ", ") + index;
    rest = dim ? rest / dim : 0;
  }
  return "[" + index + "]";
}

std::string first_nan_index(const Tensor& t, const Defaults& defaults) {
  // Only when --fail-on nan failed: one more pass, over a bool per element.
  DataOptions dopt;
  dopt.defaults = defaults;
  const MemoryView mv = data(tg::isnan(t), dopt);
  for (std::int64_t i = 0, n = mv.numel(); i < n; ++i)
    if (mv.element(i).b) return index_text(i, t.shape());
  return "";
}

std::vector<StatsRow> file_stats(const LoadedFile& file, const FailOn& fail_on, const Defaults& defaults,
                                 const FileStatsCallbacks& callbacks) {
  // A tensor --fail-on cannot check ends the run before a byte is written (also with
  // --jsonl): those whose values cannot be decoded say so as they load. Other trouble is
  // met, and named, where the scan below reaches the tensor.
  if (fail_on.enabled())
    for (const TensorEntry& e : file.tensors) {
      if (e.dtype) continue;
      try {
        e.load();
      } catch (const Error& err) {
        if (cannot_show(err)) throw Error(err.code(), fail_on_unchecked(err.what()), err.place());
      }
    }
  std::vector<StatsRow> rows;
  std::uint64_t done = 0;
  StatsReleaseBehind behind;
  for (const TensorEntry& e : file.tensors) {
    StatsRow row = stats_row_of(e);
    const std::string label = tensor_label(file.path, e.name);
    try {
      row.stats = for_tensor(label, [&] {
        // In place where the bytes allow; else streamed through the executor (memory flat,
        // and a broadcast costs its stored values, not its shape).
        const Tensor t = e.load();
        if (e.details().check_whole) e.details().check_whole();  // every byte is scanned
        const std::optional<StoredElements> source = in_place_source(t, &e, defaults);
        ScanOptions scan;
        scan.release_pages = true;  // also a scheme's parts, behind the scan (decoded_tensor.hpp)
        if (!source) return compute_stats_streamed(t, defaults, scan);
        if (callbacks.progress)
          scan.progress = [&](std::uint64_t bytes) { callbacks.progress(rows.size(), done + bytes); };
        TensorStats st = compute_stats(*source, scan);
        behind.scanned(*source);
        return st;
      });
    } catch (const Error& err) {
      // A tensor whose values cannot be shown (an unknown dtype, a type we cannot
      // dequantize) is listed as skipped, unless --fail-on was to check it; a corrupt file
      // is trouble and ends the run.
      if (!cannot_show(err)) throw;
      if (fail_on.enabled()) throw Error(err.code(), fail_on_unchecked(err.what()), err.place());
      row.skipped = err.what();
    }
    apply_fail_on(fail_on, row);
    if (std::find(row.failed.begin(), row.failed.end(), "nan") != row.failed.end())
      row.first_nan = for_tensor(label, [&] { return first_nan_index(e.load(), defaults); });
    done += e.nbytes;
    if (callbacks.on_row) callbacks.on_row(row, label);
    rows.push_back(std::move(row));
    if (callbacks.progress) callbacks.progress(rows.size(), done);
  }
  return rows;
}

}  // namespace tensor_inspect
