// Tests of error.hpp, error.cpp and error/tensor_errors.cpp: the place of an Error as fields
// (file, tensor, byte offset, cap), one code for every hit cap, and naming a tensor by those
// fields. Expected messages and offsets are those the loaders' own tests pin, counted by
// hand from the bytes given (npy: magic 6 + version 2 + length 2 or 4).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "loaders/formats.hpp"
#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

// The Error `f` throws; Error(Internal, "none") when it throws none.
template <class F>
ti::Error error_thrown_by(F&& f) {
  try {
    f();
  } catch (const ti::Error& e) {
    return e;
  }
  return ti::Error(ti::ErrorCode::Internal, "none");
}

ti::Error npy_error(const std::string& bytes) {
  return error_thrown_by([&] { (void)ti::open_npy(ti::MappedFile::from_bytes(test_util::bytes_of(bytes), "x.npy")); });
}

// Puts back the process default's caps when a test ends, passed or not.
struct ErrorTestLimits {
  ti::Limits saved = ti::limits();
  ~ErrorTestLimits() { ti::set_limits(saved); }
};

}  // namespace

TEST_CASE("Error keeps its place as fields beside an unchanged message") {
  const ti::Error plain(ti::ErrorCode::BadFile, "offset past end");
  CHECK(plain.file().empty());
  CHECK(plain.tensor().empty());
  CHECK(!plain.byte_offset());
  CHECK(plain.limit().empty());
  const ti::Error placed(ti::ErrorCode::BadFile, "m.gguf: bad at byte 40", {"m.gguf", "w", 40, ""});
  CHECK(std::string(placed.what()) == "m.gguf: bad at byte 40");
  CHECK(placed.file() == "m.gguf");
  CHECK(placed.tensor() == "w");
  CHECK(placed.byte_offset() == std::uint64_t{40});
  const ti::Error nul(ti::ErrorCode::BadFile, std::string("a\0b", 3), {"f", "", std::nullopt, ""});
  CHECK(std::string(nul.what()) == "a\\x00b");  // still never cut short
}

TEST_CASE("a loader's fault carries the file and the byte its message names") {
  const ti::Error e = npy_error(std::string("\x93NUMPY\x01\x00\x10", 9));
  CHECK(std::string(e.what()) == "x.npy: truncated header length: needs 2 bytes, 1 left at byte 8");
  CHECK(e.code() == ti::ErrorCode::BadFile);
  CHECK(e.file() == "x.npy");
  CHECK(e.byte_offset() == std::uint64_t{8});
  CHECK(e.limit().empty());
}

TEST_CASE("every hit cap is ErrorCode::LimitExceeded naming the cap, in whichever layer it is hit") {
  ErrorTestLimits guard;
  SUBCASE("a header length over npy_header_bytes (formerly bad_file)") {
    const ti::Error e = npy_error(std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14));
    CHECK(e.code() == ti::ErrorCode::LimitExceeded);
    CHECK(e.limit() == "npy_header_bytes");
    CHECK(e.file() == "x.npy");
    CHECK(e.byte_offset() == std::uint64_t{12});
  }
  SUBCASE("a header nesting past npy_header_depth (formerly bad_file)") {
    const ti::Error e = npy_error(test_util::npy(std::string(40, '[') + std::string(40, ']')));
    CHECK(e.code() == ti::ErrorCode::LimitExceeded);
    CHECK(e.limit() == "npy_header_depth");
    CHECK(e.byte_offset() == std::uint64_t{43});
  }
  SUBCASE("a buffer over buffer_bytes (formerly unsupported)") {
    const ti::Error e = error_thrown_by([] { (void)ti::Buffer::cpu((std::size_t{1} << 40) + 1); });
    CHECK(e.code() == ti::ErrorCode::LimitExceeded);
    CHECK(e.limit() == "buffer_bytes");
    CHECK(e.file().empty());
  }
  SUBCASE("a literal over literal_bytes (formerly bad_literal)") {
    ti::set_limit("literal_bytes=4");
    const ti::Error e = error_thrown_by([] { (void)ti::tensor_from_literal("[1, 2, 3]", std::nullopt); });
    CHECK(e.code() == ti::ErrorCode::LimitExceeded);
    CHECK(e.limit() == "literal_bytes");
  }
  CHECK(ti::error_code_name(ti::ErrorCode::LimitExceeded) == "limit_exceeded");
  CHECK(ti::exit_status(ti::ErrorCode::LimitExceeded) == 2);
  CHECK(ti::cannot_show(ti::Error(ti::ErrorCode::LimitExceeded, "x")));
  CHECK(!ti::cannot_show(ti::Error(ti::ErrorCode::BadFile, "x")));
}

TEST_CASE("naming_tensor reads the error's fields: the tensor after its file, once; a named one kept") {
  SUBCASE("a fault of a member of the file: the tensor goes after the file, the place kept") {
    const ti::Error member(ti::ErrorCode::BadFile, "x.npz: member 'w.npy': truncated at byte 3",
                           {"x.npz: member 'w.npy'", "", 3, ""});
    const ti::Error named = ti::naming_tensor("x.npz: tensor 'w'", member);
    CHECK(std::string(named.what()) == "x.npz: tensor 'w': member 'w.npy': truncated at byte 3");
    CHECK(named.tensor() == "w");
    CHECK(named.byte_offset() == std::uint64_t{3});
    CHECK(named.code() == ti::ErrorCode::BadFile);
  }
  SUBCASE("a thrower that named the tensor in its fields is not named twice, whatever its words") {
    const ti::Error shard(ti::ErrorCode::BadFile, "m-2.safetensors: 'w' runs past the end",
                          {"m-2.safetensors", "w", 8, ""});
    CHECK(std::string(ti::naming_tensor("m.json: tensor 'w'", shard).what()) ==
          "m-2.safetensors: 'w' runs past the end");
  }
  SUBCASE("an unnamed tensor's file is the whole label: the message names it already") {
    const ti::Error e(ti::ErrorCode::BadFile, "x.npy: bad at byte 9", {"x.npy", "", 9, ""});
    CHECK(std::string(ti::naming_tensor("x.npy", e).what()) == "x.npy: bad at byte 9");
  }
  SUBCASE("a pair: named by the side whose file the error's field gives") {
    const ti::Error e(ti::ErrorCode::LimitExceeded, "b.npz: too deep at byte 9", {"b.npz", "", 9, "json_depth"});
    const ti::Error named = ti::naming_pair("a.npz: tensor 'w'", "b.npz: tensor 'w'", e);
    CHECK(std::string(named.what()) == "b.npz: tensor 'w': too deep at byte 9");
    CHECK(named.limit() == "json_depth");
    CHECK(named.code() == ti::ErrorCode::LimitExceeded);
  }
}

TEST_CASE("a member's fault, thrown by the loader, is named after the archive's tensor by its fields") {
  const auto member_error = [](const std::string& bytes) {
    return error_thrown_by([&] {
      (void)ti::open_npy(ti::MappedFile::from_bytes(test_util::bytes_of(bytes), "x.npz: member 'w.npy'"));
    });
  };
  SUBCASE("a truncated header (ByteReader)") {
    const ti::Error e = member_error(std::string("\x93NUMPY\x01\x00\x10", 9));
    CHECK(e.file() == "x.npz: member 'w.npy'");
    CHECK(e.byte_offset() == std::uint64_t{8});
    const ti::Error named = ti::naming_tensor("x.npz: tensor 'w'", e);
    CHECK(std::string(named.what()) ==
          "x.npz: tensor 'w': member 'w.npy': truncated header length: needs 2 bytes, 1 left at byte 8");
    CHECK(named.tensor() == "w");
  }
  SUBCASE("a bad magic (the .npy fault policy)") {
    const ti::Error e = member_error(std::string("\x93NUMPX\x01\x00\x02\x00{}", 12));
    CHECK(e.file() == "x.npz: member 'w.npy'");
    CHECK(e.byte_offset() == std::uint64_t{0});
    const std::string named = ti::naming_tensor("x.npz: tensor 'w'", e).what();
    CHECK(named.rfind("x.npz: tensor 'w': member 'w.npy': ", 0) == 0);
  }
}
