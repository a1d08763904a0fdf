// tests/unit/safe_write_test.cpp — output/safe_write.cpp: what each kind of path becomes, and
// that nothing appears, or is replaced, before commit().
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "tensor_inspect/safe_write.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
namespace ti = tensor_inspect;

namespace {

// A fresh folder under the temporary directory, removed with its contents at the end of a test.
struct WriteFolder {
  fs::path path;
  WriteFolder() {
    path =
        fs::temp_directory_path() / ("ti_safe_write_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::create_directories(path);
  }
  ~WriteFolder() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string written_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("resolve_output: a new path and a regular file are Files; '-' is stdout; a folder is a usage error") {
  WriteFolder d;
  CHECK(ti::resolve_output(d / "new.png").kind == ti::OutputTarget::Kind::File);
  CHECK(ti::resolve_output(d / "new.png").file == d / "new.png");
  std::ofstream(d / "old.png") << "x";
  CHECK(ti::resolve_output(d / "old.png").kind == ti::OutputTarget::Kind::File);
  CHECK(ti::resolve_output("-").is_stdout);
  CHECK(test_util::code_of([&] { ti::resolve_output(d.path.string()); }) == ti::ErrorCode::Usage);
}

TEST_CASE("resolve_output: a chain of relative symlinks ends at its target, also a dangling one") {
  WriteFolder d;
  fs::create_directories(d.path / "sub");
  std::ofstream(d / "sub/t.png") << "old";
  fs::create_symlink("sub/t.png", d / "a.png");  // a.png -> sub/t.png
  fs::create_symlink("a.png", d / "b.png");      // b.png -> a.png -> sub/t.png
  CHECK(ti::resolve_output(d / "b.png").file == d / "sub/t.png");
  fs::create_symlink("sub/none.png", d / "dangling.png");
  CHECK(ti::resolve_output(d / "dangling.png").file == d / "sub/none.png");
}

TEST_CASE("resolve_output: a FIFO is a Stream") {
  WriteFolder d;
  REQUIRE(::mkfifo((d / "p").c_str(), 0600) == 0);
  const ti::OutputTarget t = ti::resolve_output(d / "p");
  CHECK(t.kind == ti::OutputTarget::Kind::Stream);
  CHECK_FALSE(t.terminal);
}

TEST_CASE("OutputFiles: nothing is replaced before commit; the symlink stays a link; no temporary file is left") {
  WriteFolder d;
  std::ofstream(d / "t.png") << "old";
  fs::create_symlink("t.png", d / "l.png");
  {
    ti::OutputFiles out;
    out.write(d / "l.png", "new bytes", "PNG", true);
    CHECK(written_bytes(d / "t.png") == "old");
    out.commit();
  }
  CHECK(fs::is_symlink(d / "l.png"));
  CHECK(written_bytes(d / "t.png") == "new bytes");
  CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()) == 2);
}

TEST_CASE("OutputFiles: a run that does not commit leaves the old file and no temporary file") {
  WriteFolder d;
  std::ofstream(d / "a.png") << "old";
  {
    ti::OutputFiles out;
    out.write(d / "a.png", "new", "PNG", true);
    out.write(d / "b.png", "new", "PNG", true);
  }
  CHECK(written_bytes(d / "a.png") == "old");
  CHECK_FALSE(fs::exists(d / "b.png"));
  CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()) == 1);
}

TEST_CASE("OutputFiles: a protected input is never written, also through a link") {
  WriteFolder d;
  std::ofstream(d / "in.npy") << "input";
  fs::create_symlink("in.npy", d / "in.png");
  ti::OutputFiles out;
  out.protect(d / "in.npy");
  CHECK(test_util::code_of([&] { out.write(d / "in.png", "x", "PNG", true); }) == ti::ErrorCode::Usage);
  CHECK(written_bytes(d / "in.npy") == "input");
}

TEST_CASE("OutputFiles: the hooks see each temporary file created and done") {
  WriteFolder d;
  std::vector<std::string> created;
  int done = 0;
  {
    ti::OutputFiles out(ti::TempFileHooks{[&](const std::string& tmp) -> const void* {
                                            created.push_back(tmp);
                                            return &created;
                                          },
                                          [&](const void*) { ++done; }});
    out.write(d / "a.png", "x", "PNG", true);
    REQUIRE(created.size() == 1);
    CHECK(created[0].rfind(d / "a.png.tmp-", 0) == 0);
    CHECK(fs::exists(created[0]));
    out.commit();
  }
  CHECK(done == 1);
  CHECK_FALSE(fs::exists(created[0]));
}
