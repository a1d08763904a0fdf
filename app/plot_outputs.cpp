// app/plot_outputs.cpp — see plot_outputs.hpp.
#include "plot_outputs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect::app {

namespace {

[[noreturn]] void cannot_write(const std::string& path, int err) {
  throw Error(ErrorCode::Io, path + ": cannot write the PNG file: " + std::strerror(err));
}

}  // namespace

std::string plot_path_for(const std::string& pattern, const std::string& name) {
  std::string safe;
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    safe += c == '/' || byte < 0x20 || byte == 0x7f ? '_' : c;
  }
  std::string out = pattern;
  for (std::size_t at = out.find("{name}"); at != std::string::npos; at = out.find("{name}", at + safe.size()))
    out.replace(at, 6, safe);
  return out;
}

PlotOutputs::~PlotOutputs() {
  for (const Staged& s : staged_) {
    ::unlink(s.tmp.c_str());
    forget_on_signal(s.ticket);
  }
}

void PlotOutputs::write(const std::string& path, const std::function<void(const std::string&)>& draw) {
  // O_EXCL: the name is ours alone; mode 0666 less the umask, as the file itself would get.
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(staged_.size());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) cannot_write(path, errno);
  ::close(fd);
  staged_.push_back({tmp, path, remove_on_signal(tmp)});
  try {
    draw(tmp);
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.compare(0, tmp.size(), tmp) != 0) throw;
    throw Error(e.code(), path + what.substr(tmp.size()));  // the user's name for the file, not ours
  }
}

void PlotOutputs::commit() {
  // Within one folder, a rename fails for a folder of the file's name: looked for first, so
  // that a failed commit leaves nothing behind either.
  struct stat st {};
  for (const Staged& s : staged_)
    if (::stat(s.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) cannot_write(s.path, EISDIR);
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    if (::rename(staged_[i].tmp.c_str(), staged_[i].path.c_str()) != 0) {
      const int err = errno;
      const std::string path = staged_[i].path;
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(i));  // the destructor removes the rest
      cannot_write(path, err);
    }
    forget_on_signal(staged_[i].ticket);  // the name is the user's file now
  }
  staged_.clear();
}

}  // namespace tensor_inspect::app
