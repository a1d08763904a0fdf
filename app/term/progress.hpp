// app/term/progress.hpp — a long kernel's progress as one line on stderr, on a terminal only.
//
// The executor reports each kernel of more than one batch (about 8 million elements)
// through realize.hpp's progress hook. On a terminal that becomes one line, redrawn at most
// ten times a second and cleared when the kernel ends, so a run that computes for minutes
// never looks hung; in a pipe, a file or a CI log nothing is printed.
//
//   show_progress_on_terminal();            // once, in main
//   { QuietKernels quiet; ... }             // while a mode draws a progress line of its own
#pragma once

#include <chrono>
#include <string>

#include "tensor_inspect/realize.hpp"

namespace tensor_inspect::app {

/// Installs the hook that draws `tensor-inspect: computing: 37%, 12 s` when stderr is a
/// terminal; does nothing otherwise.
void show_progress_on_terminal();

/// Clears the progress line, if one is shown: call before writing an error to stderr.
void clear_progress();

/// A mode's own progress line on stderr (diff, a whole-file --stats): drawn at once, then at
/// most ten times a second, each draw replacing the last; cleared by clear(), by its
/// destructor, and by clear_progress() (an error line never lands on it). Draw only when
/// stderr is a terminal.
class ProgressLine {
 public:
  ProgressLine() = default;
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  /// Shows `text` (one line, no newline) unless the last draw was under 100 ms ago.
  void draw(const std::string& text);
  /// Erases the line, if one is shown.
  void clear() { clear_progress(); }

 private:
  std::chrono::steady_clock::time_point drawn_{};
};

/// Keeps kernels from drawing their line while it lives (a mode with a progress line of
/// its own: whole-file --stats, diff), and puts the hook back after.
class QuietKernels {
 public:
  QuietKernels() : saved_(set_progress_hook({})) {}
  ~QuietKernels() { set_progress_hook(std::move(saved_)); }
  QuietKernels(const QuietKernels&) = delete;
  QuietKernels& operator=(const QuietKernels&) = delete;

 private:
  ProgressHook saved_;
};

}  // namespace tensor_inspect::app
