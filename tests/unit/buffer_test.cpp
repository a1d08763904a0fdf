// Tests of buffer/buffer.cpp (MappedFile, Buffer) and error.cpp (error names, exit status).
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::bytes_of;
using test_util::code_of;

std::string text_of(std::span<const std::byte> b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace

TEST_CASE("MappedFile::open maps a regular file read-only") {
  const test_util::TempDir dir("ti_buffer_test_");
  const std::string path = dir.write("a.bin", "hello, tensors");
  const auto file = ti::MappedFile::open(path);
  CHECK(file->is_mapped());
  CHECK(file->size() == 14);
  CHECK(file->name() == path);
  CHECK(text_of(file->bytes()) == "hello, tensors");
}

TEST_CASE("MappedFile::open reads an empty file instead of mapping it") {
  const test_util::TempDir dir("ti_buffer_test_");
  const auto file = ti::MappedFile::open(dir.write("empty.bin", ""));
  CHECK_FALSE(file->is_mapped());
  CHECK(file->size() == 0);
  CHECK(file->bytes().empty());
}

TEST_CASE("MappedFile::open names the path and the reason when it fails") {
  const test_util::TempDir dir("ti_buffer_test_");
  const std::string missing = (dir.path / "missing.npy").string();
  CHECK_THROWS_WITH_AS(ti::MappedFile::open(missing), (missing + ": cannot open: " + std::strerror(ENOENT)).c_str(),
                       ti::Error);
  CHECK(code_of([&] { ti::MappedFile::open(missing); }) == ti::ErrorCode::Io);
  const std::string d = dir.path.string();
  CHECK_THROWS_WITH_AS(ti::MappedFile::open(d), (d + ": is a directory").c_str(), ti::Error);
  CHECK(code_of([&] { ti::MappedFile::open(d); }) == ti::ErrorCode::Io);
}

TEST_CASE("MappedFile::read_fd reads all of a pipe") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string content(100000, 'x');  // more than one read chunk
  // The pipe buffer (64 KiB) cannot hold it all: write from a child process.
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    std::size_t done = 0;
    while (done < content.size()) {
      const ssize_t n = ::write(fds[1], content.data() + done, content.size() - done);
      if (n <= 0) ::_exit(1);
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  const auto file = ti::MappedFile::read_fd(fds[0], "<stdin>");
  ::close(fds[0]);
  CHECK(file->name() == "<stdin>");
  CHECK_FALSE(file->is_mapped());
  CHECK(text_of(file->bytes()) == content);
  int status = 0;
  CHECK(::waitpid(pid, &status, 0) == pid);
  CHECK(status == 0);
}

TEST_CASE("MappedFile::read_fd of a bad descriptor is an Io error") {
  CHECK_THROWS_WITH_AS(ti::MappedFile::read_fd(-1, "<stdin>"),
                       (std::string("<stdin>: cannot read: ") + std::strerror(EBADF)).c_str(), ti::Error);
}

TEST_CASE("fault 7: an endless device or pipe is read up to Limits::stream_bytes, then refused") {
  const ti::Limits saved = ti::limits();
  ti::Limits small = saved;
  small.stream_bytes = 1 << 20;
  ti::set_limits(small);
  SUBCASE("/dev/zero never ends") {
    CHECK_THROWS_WITH_AS(ti::MappedFile::open("/dev/zero"),
                         "/dev/zero: more than 1048576 bytes from a pipe or special file, which is read into memory "
                         "(limit stream_bytes; raise it with --limit stream_bytes=N)",
                         ti::Error);
  }
  SUBCASE("a pipe holding exactly the cap is read whole; one byte more is refused") {
    for (const std::size_t n : {std::size_t{1} << 20, (std::size_t{1} << 20) + 1}) {
      int fds[2];
      REQUIRE(::pipe(fds) == 0);
      const pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        ::close(fds[0]);
        const std::string chunk(n, 'x');
        std::size_t done = 0;
        while (done < n) {
          const ssize_t w = ::write(fds[1], chunk.data() + done, n - done);
          if (w <= 0) ::_exit(0);  // the reader stopped: fine
          done += static_cast<std::size_t>(w);
        }
        ::_exit(0);
      }
      ::close(fds[1]);
      if (n == std::size_t{1} << 20) {
        const auto file = ti::MappedFile::read_fd(fds[0], "<stdin>");
        CHECK(file->size() == n);
        CHECK(static_cast<char>(file->bytes()[n - 1]) == 'x');
      } else {
        CHECK_THROWS_WITH_AS(ti::MappedFile::read_fd(fds[0], "<stdin>"),
                             "<stdin>: more than 1048576 bytes from a pipe or special file, which is read into memory "
                             "(limit stream_bytes; raise it with --limit stream_bytes=N)",
                             ti::Error);
      }
      ::close(fds[0]);
      int status = 0;
      CHECK(::waitpid(pid, &status, 0) == pid);
    }
  }
  ti::set_limits(saved);
}

TEST_CASE("MappedFile::from_bytes wraps memory") {
  const auto file = ti::MappedFile::from_bytes(bytes_of("abc"), "member.npy");
  CHECK(file->name() == "member.npy");
  CHECK(text_of(file->bytes()) == "abc");
  CHECK_FALSE(file->is_mapped());
}

TEST_CASE("Buffer::cpu is zeroed and refuses more than 2^40 bytes") {
  const auto buf = ti::Buffer::cpu(64);
  CHECK(buf->device() == ti::Device::CPU);
  CHECK(buf->nbytes() == 64);
  for (std::byte b : buf->bytes()) CHECK(b == std::byte{0});
  buf->mutable_bytes()[3] = std::byte{7};
  CHECK(buf->bytes()[3] == std::byte{7});
  CHECK(buf->file() == nullptr);
  CHECK(ti::Buffer::cpu(0)->nbytes() == 0);
  const std::size_t too_big = (std::size_t{1} << 40) + 1;
  CHECK_THROWS_WITH_AS(ti::Buffer::cpu(too_big),
                       "cannot allocate a buffer of 1099511627777 bytes: over the limit of 1099511627776 bytes (limit "
                       "buffer_bytes; raise it with --limit buffer_bytes=N)",
                       ti::Error);
  CHECK(code_of([&] { ti::Buffer::cpu(too_big); }) == ti::ErrorCode::LimitExceeded);
}

TEST_CASE("Buffer::disk is a bounds-checked slice of the file") {
  const std::shared_ptr<const ti::MappedFile> file = ti::MappedFile::from_bytes(bytes_of("0123456789"), "f.bin");
  const auto buf = ti::Buffer::disk(file, 2, 5);
  CHECK(buf->device() == ti::Device::DISK);
  CHECK(text_of(buf->bytes()) == "23456");
  CHECK(buf->bytes().data() == file->bytes().data() + 2);  // a view, not a copy
  CHECK(buf->file() == file);
  CHECK(ti::Buffer::disk(file, 10, 0)->nbytes() == 0);  // empty slice at the end
  CHECK(ti::Buffer::disk(file, 0, 10)->nbytes() == 10);

  CHECK_THROWS_WITH_AS(ti::Buffer::disk(file, 8, 3), "f.bin: data at byte 8 + 3 bytes is past end of file (10 bytes)",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::Buffer::disk(file, 11, 0), "f.bin: data at byte 11 + 0 bytes is past end of file (10 bytes)",
                       ti::Error);
  // offset + nbytes wraps around 2^64: still refused.
  CHECK_THROWS_WITH_AS(ti::Buffer::disk(file, 2, UINT64_MAX),
                       "f.bin: data at byte 2 + 18446744073709551615 bytes is past end of file (10 bytes)", ti::Error);
  CHECK(code_of([&] { ti::Buffer::disk(file, 8, 3); }) == ti::ErrorCode::BadFile);
}

TEST_CASE("Buffer::disk keeps the mapping alive after the file handle is dropped") {
  const test_util::TempDir dir("ti_buffer_test_");
  std::shared_ptr<ti::Buffer> buf;
  {
    const std::shared_ptr<const ti::MappedFile> file = ti::MappedFile::open(dir.write("k.bin", "keepalive"));
    buf = ti::Buffer::disk(file, 4, 5);
  }
  CHECK(text_of(buf->bytes()) == "alive");
}

TEST_CASE("error codes have stable snake_case names and exit status 2") {
  CHECK(ti::error_code_name(ti::ErrorCode::Usage) == "usage");
  CHECK(ti::error_code_name(ti::ErrorCode::BadLiteral) == "bad_literal");
  CHECK(ti::error_code_name(ti::ErrorCode::BadDType) == "bad_dtype");
  CHECK(ti::error_code_name(ti::ErrorCode::BadExpression) == "bad_expression");
  CHECK(ti::error_code_name(ti::ErrorCode::BadShape) == "bad_shape");
  CHECK(ti::error_code_name(ti::ErrorCode::BadFile) == "bad_file");
  CHECK(ti::error_code_name(ti::ErrorCode::Unsupported) == "unsupported");
  CHECK(ti::error_code_name(ti::ErrorCode::NoFormat) == "no_format");
  CHECK(ti::error_code_name(ti::ErrorCode::Io) == "io");
  CHECK(ti::error_code_name(ti::ErrorCode::NotFound) == "not_found");
  CHECK(ti::error_code_name(ti::ErrorCode::Internal) == "internal");
  CHECK(ti::error_code_name(ti::ErrorCode::LimitExceeded) == "limit_exceeded");
  // DESIGN.md: 1 is reserved for checks that find a difference; every error is trouble.
  for (int c = 0; c < static_cast<int>(ti::ErrorCode::Count); ++c)
    CHECK(ti::exit_status(static_cast<ti::ErrorCode>(c)) == 2);
}

TEST_CASE("MappedFile::read_fd of /dev/zero stops where its StreamCheck says, or with what it throws") {
  const int fd = ::open("/dev/zero", O_RDONLY);
  REQUIRE(fd >= 0);
  std::vector<std::size_t> seen;
  SUBCASE("a StreamStop: exactly that many bytes, the check asked from 64 bytes on") {
    const auto file = ti::MappedFile::read_fd(fd, "/dev/zero",
                                              [&](std::span<const std::byte> so_far) -> std::optional<ti::StreamStop> {
                                                seen.push_back(so_far.size());
                                                return ti::StreamStop{3'000'000, {}, {}};
                                              });
    CHECK(file->size() == 3'000'000);
    REQUIRE(seen.size() == 1);
    CHECK(seen[0] >= 64);
  }
  SUBCASE("a StreamStop that refuses more: its error, naming the input") {
    CHECK_THROWS_WITH_AS(ti::MappedFile::read_fd(fd, "/dev/zero",
                                                 [](std::span<const std::byte>) {
                                                   return std::optional<ti::StreamStop>({16, "more than 16 bytes", {}});
                                                 }),
                         "/dev/zero: more than 16 bytes", ti::Error);
  }
  SUBCASE("a StreamStop past the cap: refused at once, naming the cap") {
    ti::Limits saved = ti::limits(), l = saved;
    l.stream_bytes = 1 << 20;
    ti::set_limits(l);
    CHECK_THROWS_WITH_AS(
        ti::MappedFile::read_fd(fd, "/dev/zero",
                                [](std::span<const std::byte>) {
                                  return std::optional<ti::StreamStop>({2 << 20, {}, {}});
                                }),
        "/dev/zero: its first bytes say it holds 2097152 bytes, over the 1048576 read into memory from a pipe or "
        "special file (limit stream_bytes; raise it with --limit stream_bytes=N)",
        ti::Error);
    ti::set_limits(saved);
  }
  SUBCASE("nullopt reads on, asked again as the bytes double, up to the cap") {
    ti::Limits saved = ti::limits(), l = saved;
    l.stream_bytes = 8 << 20;
    ti::set_limits(l);
    CHECK_THROWS_AS(ti::MappedFile::read_fd(fd, "/dev/zero",
                                            [&](std::span<const std::byte> so_far) -> std::optional<ti::StreamStop> {
                                              seen.push_back(so_far.size());
                                              return std::nullopt;
                                            }),
                    ti::Error);
    ti::set_limits(saved);
    REQUIRE(seen.size() >= 2);
    for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] >= 2 * seen[i - 1]);
  }
  ::close(fd);
}
