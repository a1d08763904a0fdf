// output/safe_write.cpp — see tensor_inspect/safe_write.hpp.
#include "tensor_inspect/safe_write.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "buffer/read_inputs.hpp"
#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {
namespace {

[[noreturn]] void cannot_write(const std::string& path, const std::string& type, int err) {
  throw Error(ErrorCode::Io, path + ": cannot write the " + type + " file: " + std::strerror(err));
}

// Writes all of `bytes` to `fd`; false with errno set when the OS refuses part of them.
bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// A character device is asked whether it is a terminal through a descriptor of its own,
// opened without blocking and without becoming the controlling terminal.
bool device_is_terminal(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  const bool tty = ::isatty(fd) == 1;
  ::close(fd);
  return tty;
}

// The file a chain of symlinks from `path` ends at (`path` itself when it is no link), which
// may not exist yet: a dangling link's target is created. Relative targets are taken from the
// link's folder, as the kernel takes them.
std::string final_target(const std::string& path) {
  std::string p = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return p;
      throw Error(ErrorCode::Io, path + ": cannot follow the path: " + std::strerror(errno));
    }
    if (!S_ISLNK(st.st_mode)) return p;
    if (hops == 40) throw Error(ErrorCode::Io, path + ": cannot follow the path: " + std::strerror(ELOOP));
    std::string target(4096, '\0');
    const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n <= 0 || static_cast<std::size_t>(n) == target.size())
      throw Error(ErrorCode::Io,
                  path + ": cannot follow the symlink " + p + ": " + std::strerror(n < 0 ? errno : ENAMETOOLONG));
    target.resize(static_cast<std::size_t>(n));
    const std::size_t slash = p.rfind('/');
    p = target[0] == '/' || slash == std::string::npos ? target : p.substr(0, slash + 1) + target;
  }
}

}  // namespace

OutputTarget resolve_output(const std::string& path) {
  OutputTarget t;
  t.path = path;
  if (path == "-") {
    t.kind = OutputTarget::Kind::Stream;
    t.file = "-";
    t.is_stdout = true;
    t.terminal = ::isatty(1) == 1;
    return t;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw Error(ErrorCode::Io, path + ": cannot follow the path: " + std::strerror(errno));
    t.file = final_target(path);  // nothing there, or a dangling symlink: its target is created
    return t;
  }
  struct stat out {};
  if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::Usage, path + ": is a folder; name a file (in it, or beside it)");
  // /dev/stdout, /proc/self/fd/1, or the file the shell redirected stdout to: written through
  // descriptor 1, never replaced behind the shell's back.
  if (::fstat(1, &out) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino) {
    t.kind = OutputTarget::Kind::Stream;
    t.file = path;
    t.is_stdout = true;
    t.terminal = ::isatty(1) == 1;
    return t;
  }
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
    t.kind = OutputTarget::Kind::Stream;
    t.file = path;
    t.terminal = S_ISCHR(st.st_mode) && device_is_terminal(path);
    return t;
  }
  if (!S_ISREG(st.st_mode))
    throw Error(ErrorCode::Usage, path + ": is " + (S_ISSOCK(st.st_mode) ? "a socket" : "a block device") +
                                      ", not a file the tool writes");
  t.file = final_target(path);
  return t;
}

OutputFiles::OutputFiles(TempFileHooks hooks) : hooks_(std::move(hooks)) {}

OutputFiles::~OutputFiles() {
  for (Staged& s : staged_) discard(s);
}

void OutputFiles::discard(Staged& s) {
  if (!s.tmp.empty()) ::unlink(s.tmp.c_str());
  if (s.ticket && hooks_.done) hooks_.done(s.ticket);
  s.tmp.clear();
  s.ticket = nullptr;
}

void OutputFiles::protect(const std::string& input) {
  struct stat st {};
  if (input != "-" && ::stat(input.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    protected_.emplace_back(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
}

OutputTarget OutputFiles::check(const std::string& path, bool binary) const {
  OutputTarget t = resolve_output(path);
  struct stat st {};
  if (t.file != "-" && ::stat(t.file.c_str(), &st) == 0 && is_input(st)) refuse_input(path);
  if (t.terminal && binary)
    throw Error(ErrorCode::Usage, (path == "-" ? std::string("standard output") : path) +
                                      " is a terminal, where a picture's bytes would be noise: "
                                      "redirect it (> w.png) or name a file");
  return t;
}

int OutputFiles::stage_file(Staged s) {
  // O_EXCL: the name is ours alone; mode 0666 less the umask, as a new file gets, or the mode
  // of the file it replaces.
  const std::string tmp = s.target.file + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(staged_.size());
  // The signals that end a run are held from the file's creation until the hook knows its name:
  // one arriving in between would leave the temporary file behind (a SIGTERM right after open).
  sigset_t ending, before;
  sigemptyset(&ending);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&ending, sig);
  pthread_sigmask(SIG_BLOCK, &ending, &before);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  const int open_errno = errno;
  if (fd >= 0) {
    s.tmp = tmp;
    if (hooks_.created) s.ticket = hooks_.created(tmp);
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (fd < 0) cannot_write(s.target.path, s.type, open_errno);
  staged_.push_back(std::move(s));  // from here the destructor removes it
  struct stat old {};
  if (::stat(staged_.back().target.file.c_str(), &old) == 0 && S_ISREG(old.st_mode)) ::fchmod(fd, old.st_mode & 07777);
  return fd;
}

void OutputFiles::write(const std::string& path, std::string_view bytes, const std::string& type, bool binary) {
  Staged s{check(path, binary), type, {}, {}, {}, nullptr};
  if (s.target.kind == OutputTarget::Kind::Stream) {
    s.bytes.assign(bytes);
    staged_.push_back(std::move(s));
    return;
  }
  const int fd = stage_file(std::move(s));
  const bool ok = write_all(fd, bytes);
  const int err = errno;
  if (::close(fd) != 0 && ok) cannot_write(path, type, errno);
  if (!ok) cannot_write(path, type, err);
}

void OutputFiles::write_with(const std::string& path, const std::string& type, bool binary,
                             std::function<void(const std::string& path)> fill) {
  Staged s{check(path, binary), type, {}, {}, {}, nullptr};
  if (s.target.kind == OutputTarget::Kind::Stream) {
    s.fill = std::move(fill);
    staged_.push_back(std::move(s));
    return;
  }
  ::close(stage_file(std::move(s)));
  fill(staged_.back().tmp);
}

bool OutputFiles::is_input(const struct stat& st) const {
  const auto dev = static_cast<std::uint64_t>(st.st_dev), ino = static_cast<std::uint64_t>(st.st_ino);
  for (const auto& [d, i] : protected_)
    if (d == dev && i == ino) return true;
  return was_read_as_input(st);
}

void OutputFiles::refuse_input(const std::string& path) {
  throw Error(ErrorCode::Usage, path + ": is an input of this run; it is never written (name another file)");
}

void OutputFiles::commit() {
  // Within one folder, a rename fails for a folder of the file's name: looked for first, so
  // that a failed commit leaves nothing behind either. So is a file the run read since the
  // output was staged (an ONNX model's external data is opened only when its values are).
  struct stat st {};
  for (const Staged& s : staged_) {
    if (s.target.kind != OutputTarget::Kind::File || ::stat(s.target.file.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) cannot_write(s.target.path, s.type, EISDIR);
    if (is_input(st)) refuse_input(s.target.path);
  }
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    Staged& s = staged_[i];
    int err = 0;
    if (s.target.kind == OutputTarget::Kind::File) {
      if (::rename(s.tmp.c_str(), s.target.file.c_str()) != 0) err = errno;
      else s.tmp.clear();  // the name is the user's file now
    } else if (s.fill) {
      std::fflush(stdout);  // what the program printed before comes first
      s.fill(s.target.is_stdout ? std::string("/dev/stdout") : s.target.file);
    } else if (s.target.is_stdout) {
      std::fflush(stdout);  // what the program printed before comes first
      if (!write_all(1, s.bytes)) err = errno;
    } else {
      const int fd = ::open(s.target.file.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0 || !write_all(fd, s.bytes)) err = errno;
      if (fd >= 0 && ::close(fd) != 0 && err == 0) err = errno;
    }
    discard(s);
    if (err != 0) {
      const std::string path = s.target.path, type = s.type;
      // The destructor removes the rest.
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      cannot_write(path, type, err);
    }
  }
  staged_.clear();
}

}  // namespace tensor_inspect
