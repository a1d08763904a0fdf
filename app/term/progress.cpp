// app/term/progress.cpp — the executor's progress on a terminal (see progress.hpp).
#include "term/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace tensor_inspect::app {
namespace {

using Clock = std::chrono::steady_clock;

struct Line {
  bool shown = false;
  std::int64_t last_done = -1;
  Clock::time_point start, drawn;
};

Line& line() {
  static Line l;
  return l;
}

void draw(std::int64_t done, std::int64_t total) {
  Line& l = line();
  const auto now = Clock::now();
  if (done <= l.last_done || l.last_done < 0) l.start = now;  // a new kernel
  l.last_done = done >= total ? -1 : done;
  if (done >= total) {
    clear_progress();
    return;
  }
  // The first report of a kernel is drawn at once, later ones at most ten times a second.
  if (l.shown && now - l.drawn < std::chrono::milliseconds(100)) return;
  l.drawn = now;
  const double percent = 100.0 * static_cast<double>(done) / static_cast<double>(total);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - l.start).count();
  std::fprintf(stderr, "\rtensor-inspect: computing: %.0f%%, %lld s\033[K", percent, static_cast<long long>(seconds));
  std::fflush(stderr);
  l.shown = true;
}

}  // namespace

void ProgressLine::draw(const std::string& text) {
  Line& l = line();
  const auto now = Clock::now();
  if (l.shown && now - drawn_ < std::chrono::milliseconds(100)) return;
  drawn_ = now;
  std::fprintf(stderr, "\r%s\033[K", text.c_str());
  std::fflush(stderr);
  l.shown = true;
}

void show_progress_on_terminal() {
  if (::isatty(2) == 1) set_progress_hook(draw);
}

void clear_progress() {
  Line& l = line();
  if (!l.shown) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  l.shown = false;
}

}  // namespace tensor_inspect::app
