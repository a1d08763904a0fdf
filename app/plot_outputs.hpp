// app/plot_outputs.hpp — the PNG files --plot writes appear only when the run computed every
// tensor: each is drawn into a temporary file beside its path and renamed into place at the
// end, so a run that fails (a later tensor, half-way through a PNG) leaves no picture behind
// and no earlier file of that name replaced. A run ended by SIGINT, SIGTERM or SIGHUP removes
// its temporary files too (removed_on_signal.hpp).
//
//   PlotOutputs plots;
//   plots.write("hist-a.png", [&](const std::string& tmp) { write_histogram_png(tmp, h, "a"); });
//   ...                                   // more tensors; an exception removes what was drawn
//   plots.commit();                       // hist-a.png, ... appear
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "removed_on_signal.hpp"

namespace tensor_inspect::app {

/// The path of one tensor's PNG: each `{name}` of the --plot `pattern` becomes the tensor's
/// `name` ("" when unnamed), with '/' (which would name a folder) and the control
/// characters (NUL to 0x1f, DEL: a newline, an ESC of a terminal sequence) spelled '_'.
/// Every --plot goes through it, one tensor or several.
std::string plot_path_for(const std::string& pattern, const std::string& name);

class PlotOutputs {
 public:
  PlotOutputs() = default;
  PlotOutputs(const PlotOutputs&) = delete;
  PlotOutputs& operator=(const PlotOutputs&) = delete;
  /// Removes the temporary files not committed (a run that failed).
  ~PlotOutputs();

  /// Draws the PNG of `path` through `draw`, which writes the file it is given: a new
  /// temporary file in the same folder (`path.tmp-PID-N`, so the rename cannot cross file
  /// systems). Errors, also those `draw` throws, name `path`: Error(Io) when the folder
  /// cannot take the file.
  void write(const std::string& path, const std::function<void(const std::string&)>& draw);

  /// Renames every drawn file to its path, in the order drawn. Throws Error(Io) naming the
  /// path when one cannot be (a folder of that name); the rest are removed.
  void commit();

 private:
  struct Staged {
    std::string tmp, path;
    const RemovalTicket* ticket;  ///< removes tmp should a signal end the run
  };
  std::vector<Staged> staged_;
};

}  // namespace tensor_inspect::app
