// tensor_inspect/plot_outputs.hpp — the pictures --plot writes, through the library's one safe-write
// helper (tensor_inspect/safe_write.hpp): they appear only when the run computed every tensor,
// each drawn whole and renamed into place (a symlink's target written, the link kept; a pipe,
// device or `-` written through), so a run that fails leaves no picture behind and no earlier
// file of that name replaced. The hooks given tell the caller of each temporary file (the
// tool removes them when SIGINT, SIGTERM or SIGHUP ends it). The extension names the format:
// .png, .svg or .pdf.
//
//   ti::PlotOutputs plots({});
//   plots.protect(item.file);                                   // an input is never written
//   plots.check("hist-a.png");                                  // usage errors before any work
//   plots.write("hist-a.png", "histogram of a",
//               [&](ti::PlotFormat f, std::string& out) { ti::draw_histogram(h, "a", f, out); });
//   plots.commit();                                             // hist-a.png, ... appear
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/plot.hpp"
#include "tensor_inspect/safe_write.hpp"

namespace tensor_inspect {

/// The path of one tensor's picture: each `{name}` of the --plot `pattern` becomes the tensor's
/// `name` ("" when unnamed), with '/' (which would name a folder) and the control
/// characters (NUL to 0x1f, DEL: a newline, an ESC of a terminal sequence) spelled '_'.
/// Every --plot goes through it, one tensor or several.
std::string plot_path_for(const std::string& pattern, const std::string& name);

/// The pictures of one run, staged until commit().
class PlotOutputs {
 public:
  /// `hooks` hear of each temporary file made and renamed or removed (safe_write.hpp).
  explicit PlotOutputs(TempFileHooks hooks);

  /// Never writes the file `input` names (no-op for nullopt: a literal or expression).
  void protect(const std::optional<std::string>& input);

  /// The format `path` asks for; throws Error(Usage) for an unknown extension, a folder, an
  /// input of the run, or a PNG or PDF for a terminal.
  PlotFormat check(const std::string& path) const;

  /// Draws the picture of `path` through `draw` (bytes of the format given) and stages it.
  /// `what` says what it shows ("histogram of 'w'") for the line written() gives.
  void write(const std::string& path, const std::string& what,
             const std::function<void(PlotFormat, std::string&)>& draw);

  /// Makes every staged picture appear, in the order drawn (Error(Io) naming the path when one
  /// cannot).
  void commit();

  /// One line per picture committed: "wrote h.png: PNG histogram of 'w'".
  const std::vector<std::string>& written() const { return written_; }

  /// True when a picture went to standard output (which then holds nothing else).
  bool to_stdout() const { return to_stdout_; }

 private:
  OutputFiles files_;
  std::vector<std::string> staged_lines_, written_;
  bool to_stdout_ = false;
};

}  // namespace tensor_inspect
