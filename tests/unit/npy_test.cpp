// Tests of loaders/npy.cpp and loaders/registry.cpp: header parsing, detection, malformed
// files built byte by byte, the samples NumPy wrote and the real files of other projects.
//
// Expected byte offsets were computed with Python (10 + header.index(...)); expected values
// come from NumPy (samples/make_npy_samples.py) or hand-checked bytes (struct.pack).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>

#include <unistd.h>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::bytes_of;
using test_util::doubles;
using test_util::ints;
using test_util::kRealData;
using test_util::kSamples;
using test_util::npy;
using test_util::npy_header;

ti::LoadedFile open_bytes(const std::vector<std::byte>& bytes) {
  return ti::open_npy(ti::MappedFile::from_bytes(bytes, "x.npy"));
}
ti::LoadedFile open_bytes(const std::string& bytes) { return open_bytes(bytes_of(bytes)); }

#define CHECK_NPY_ERROR(bytes, code, message)                       \
  do {                                                              \
    const auto bytes_ = (bytes);                                    \
    CHECK_THROWS_WITH_AS(open_bytes(bytes_), message, ti::Error);   \
    CHECK(test_util::code_of([&] { open_bytes(bytes_); }) == (code)); \
  } while (0)

}  // namespace

TEST_CASE("npy: a numpy 1.0 header gives dtype, shape, data offset and metadata") {
  const std::string h = npy_header("<f8", "(2,)");
  const std::string data("\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\0\xc0", 16);  // 1.0, -2.0
  const ti::LoadedFile f = open_bytes(npy(h, data));
  CHECK(f.format == "npy");
  CHECK(f.path == "x.npy");
  REQUIRE(f.tensors.size() == 1);
  const ti::TensorEntry& e = f.tensors[0];
  CHECK(e.name == "");
  CHECK(e.stored_type == "<f8");
  CHECK(e.dtype == ti::DType::Float64);
  CHECK(e.shape == ti::Shape{2});
  CHECK(e.details().stored_shape == ti::Shape{2});
  CHECK(e.offset == 10 + h.size());
  CHECK(e.nbytes == 16);
  CHECK(e.note == "");
  REQUIRE(f.metadata.size() == 3);
  CHECK(f.metadata[0].key == "descr");
  CHECK(f.metadata[0].type == "str");
  CHECK(f.metadata[0].value == "<f8");
  CHECK(f.metadata[1].key == "fortran_order");
  CHECK(f.metadata[1].type == "bool");
  CHECK(f.metadata[1].value == false);
  CHECK(f.metadata[2].key == "shape");
  CHECK(f.metadata[2].type == "tuple");
  CHECK(f.metadata[2].value == nlohmann::ordered_json::array({2}));
}

TEST_CASE("npy: every numeric descr numpy writes maps to its dtype") {
  struct Case {
    const char* descr;
    ti::DType dtype;
  };
  const Case cases[] = {
      {"|b1", ti::DType::Bool},    {"|i1", ti::DType::Int8},     {"|u1", ti::DType::UInt8},
      {"<i2", ti::DType::Int16},   {"<u2", ti::DType::UInt16},   {"<i4", ti::DType::Int32},
      {"<u4", ti::DType::UInt32},  {"<i8", ti::DType::Int64},    {"<u8", ti::DType::UInt64},
      {"<f2", ti::DType::Float16}, {"<f4", ti::DType::Float32},  {"<f8", ti::DType::Float64},
      {"=f4", ti::DType::Float32}, {">u1", ti::DType::UInt8},    {"f8", ti::DType::Float64},
      {"<d", ti::DType::Float64},  {"|?", ti::DType::Bool},
  };
  for (const Case& c : cases) {
    CAPTURE(c.descr);
    const ti::LoadedFile f = open_bytes(npy(npy_header(c.descr, "()"), std::string(8, '\0')));
    CHECK(f.tensors[0].dtype == c.dtype);
    CHECK(f.tensors[0].note == "");  // native order, or a 1-byte type where order does not apply
  }
}

TEST_CASE("npy: header edge cases numpy accepts") {
  SUBCASE("old writers pad the header to 16 bytes, not 64") {
    const std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }            \n";
    CHECK(open_bytes(npy(h, std::string(16, '\0'))).tensors[0].offset == 10 + h.size());
  }
  SUBCASE("no trailing comma, no padding, double quotes, newlines inside") {
    const ti::LoadedFile f =
        open_bytes(npy("{\"descr\": \"<i2\",\n \"shape\": (3,),\"fortran_order\":False}", "abcdef"));
    CHECK(f.tensors[0].shape == ti::Shape{3});
    CHECK(f.metadata[1].key == "shape");  // metadata keeps the file's key order
  }
  SUBCASE("Python 2 longs in a 1.0 header") {
    CHECK(open_bytes(npy(npy_header("<u1", "(2L, 3L)"), "abcdef")).tensors[0].shape == ti::Shape{2, 3});
  }
  SUBCASE("a 0-d shape") {
    const ti::LoadedFile f = open_bytes(npy(npy_header("<i4", "()"), "abcd"));
    CHECK(f.tensors[0].shape == ti::Shape{});
    CHECK(f.tensors[0].nbytes == 4);
  }
  SUBCASE("zero-size shapes need no data") {
    const ti::LoadedFile f = open_bytes(npy(npy_header("<f8", "(3, 0)"), ""));
    CHECK(f.tensors[0].shape == ti::Shape{3, 0});
    CHECK(f.tensors[0].nbytes == 0);
  }
  SUBCASE("bytes after the data are ignored") {
    CHECK(open_bytes(npy(npy_header("|u1", "(2,)"), "abc")).tensors[0].nbytes == 2);
  }
  SUBCASE("version 2.0 has a 4-byte header length") {
    const std::string h = npy_header("<u2", "(1,)");
    const ti::LoadedFile f = open_bytes(npy(h, "ab", 2));
    CHECK(f.tensors[0].offset == 12 + h.size());
  }
  SUBCASE("version 3.0 is UTF-8") {
    const std::string h = npy_header("<u2", "(1,)");
    CHECK(open_bytes(npy(h, "ab", 3)).tensors[0].dtype == ti::DType::UInt16);
  }
  SUBCASE("big-endian and Fortran order are noted") {
    const ti::LoadedFile f = open_bytes(npy(npy_header(">f4", "(2, 3)", true), std::string(24, '\0')));
    CHECK(f.tensors[0].note == "big-endian, converted to native order; Fortran order, converted to C order");
    CHECK(f.tensors[0].shape == ti::Shape{2, 3});
    CHECK(f.tensors[0].details().stored_shape == ti::Shape{3, 2});
  }
  SUBCASE("a 1-d Fortran array is already in C order") {
    CHECK(open_bytes(npy(npy_header("<f4", "(2,)", true), std::string(8, '\0'))).tensors[0].note == "");
  }
}

TEST_CASE("npy: malformed magic, version and header length are refused with the byte offset") {
  using ti::ErrorCode;
  CHECK_NPY_ERROR(bytes_of(""), ErrorCode::BadFile, "x.npy: truncated magic: needs 6 bytes, 0 left at byte 0");
  CHECK_NPY_ERROR(bytes_of("\x93NUM"), ErrorCode::BadFile, "x.npy: truncated magic: needs 6 bytes, 4 left at byte 0");
  CHECK_NPY_ERROR(bytes_of("\x93NUMPX\x01\x00\x10\x00"), ErrorCode::BadFile,
                  "x.npy: bad magic: not a .npy file at byte 0");
  CHECK_NPY_ERROR(bytes_of(std::string("\x93NUMPY\x04\x00\x10\x00", 10)), ErrorCode::BadFile,
                  "x.npy: unknown version 4.0 (known: 1.0, 2.0, 3.0) at byte 6");
  CHECK_NPY_ERROR(bytes_of(std::string("\x93NUMPY\x01\x01\x10\x00", 10)), ErrorCode::BadFile,
                  "x.npy: unknown version 1.1 (known: 1.0, 2.0, 3.0) at byte 6");
  CHECK_NPY_ERROR(bytes_of("\x93NUMPY\x01"), ErrorCode::BadFile,
                  "x.npy: truncated minor version: needs 1 bytes, 0 left at byte 7");
  CHECK_NPY_ERROR(bytes_of(std::string("\x93NUMPY\x01\x00\x10", 9)), ErrorCode::BadFile,
                  "x.npy: truncated header length: needs 2 bytes, 1 left at byte 8");
  CHECK_NPY_ERROR(bytes_of(std::string("\x93NUMPY\x02\x00\x10\x00\x00", 11)), ErrorCode::BadFile,
                  "x.npy: truncated header length: needs 4 bytes, 3 left at byte 8");
  CHECK_NPY_ERROR(bytes_of(std::string("\x93NUMPY\x01\x00\x76\x00{'descr': ", 20)), ErrorCode::BadFile,
                  "x.npy: truncated header: needs 118 bytes, 10 left at byte 10");
  CHECK_NPY_ERROR(bytes_of(std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14)), ErrorCode::LimitExceeded,
                  "x.npy: header length 4294967295 exceeds the limit of 1048576 (limit npy_header_bytes; raise it with "
                  "--limit npy_header_bytes=N) at byte 12");
}

TEST_CASE("npy: header dict syntax errors name the byte") {
  using ti::ErrorCode;
  CHECK_NPY_ERROR(npy("[1, 2]\n"), ErrorCode::BadFile, "x.npy: header: expected a dict, found a list at byte 10");
  CHECK_NPY_ERROR(npy(""), ErrorCode::BadFile, "x.npy: header: expected a value, found end of header at byte 10");
  CHECK_NPY_ERROR(npy("{'descr': '<f8'"), ErrorCode::BadFile,
                  "x.npy: header: expected ',' or '}', found end of header at byte 25");
  CHECK_NPY_ERROR(npy("{'descr' '<f8'}"), ErrorCode::BadFile,
                  "x.npy: header: expected ':' after key 'descr', found \"'\" at byte 19");
  CHECK_NPY_ERROR(npy("{'descr': '<f8}\n"), ErrorCode::BadFile, "x.npy: header: unterminated string at byte 20");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} x\n"), ErrorCode::BadFile,
                  "x.npy: header: unexpected 'x' after the header dict at byte 66");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': Flase, 'shape': (2,)}"), ErrorCode::BadFile,
                  "x.npy: header: unexpected name 'Flase' at byte 44");
  CHECK_NPY_ERROR(npy("{1: 2}"), ErrorCode::BadFile, "x.npy: header: dict key 1 is not a string at byte 11");
  CHECK_NPY_ERROR(npy(std::string("{'descr': '<f8', \0}", 19)), ErrorCode::BadFile,
                  "x.npy: header: expected a value, found byte 0x00 at byte 27");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2.5,)}"), ErrorCode::BadFile,
                  "x.npy: header: malformed number at byte 61");
  CHECK_NPY_ERROR(npy("{'descr': '<f\\q8'}"), ErrorCode::BadFile,
                  "x.npy: header: unsupported escape '\\q' in a string at byte 23");
  CHECK_NPY_ERROR(npy(std::string(40, '[') + std::string(40, ']')), ErrorCode::LimitExceeded,
                  "x.npy: header: values nest deeper than 32 levels (limit npy_header_depth; raise it with --limit "
                  "npy_header_depth=N) at byte 43");
  CHECK_NPY_ERROR(npy(npy_header("<u1", "(2L,)"), "ab", 3), ErrorCode::BadFile,
                  "x.npy: header: malformed number at byte 63");
  CHECK_NPY_ERROR(npy("{'descr': '<f\xff', 'fortran_order': False, 'shape': ()}", "abcd", 3), ErrorCode::BadFile,
                  "x.npy: header: invalid UTF-8 in a string at byte 25");
}

TEST_CASE("npy: header keys and values are checked") {
  using ti::ErrorCode;
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'shape': (2,)}"), ErrorCode::BadFile,
                  "x.npy: header: missing key 'fortran_order' at byte 10");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1}"), ErrorCode::BadFile,
                  "x.npy: header: unexpected key 'extra' (allowed: 'descr', 'fortran_order', 'shape') at byte 66");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}"), ErrorCode::BadFile,
                  "x.npy: header: duplicate key 'descr' at byte 27");
  CHECK_NPY_ERROR(npy("{'descr': '<q9', 'fortran_order': False, 'shape': (2,)}"), ErrorCode::BadFile,
                  "x.npy: header: 'descr' '<q9' is not a numpy dtype at byte 20");
  CHECK_NPY_ERROR(npy("{'descr': 5, 'fortran_order': False, 'shape': (2,)}"), ErrorCode::Unsupported,
                  "x.npy: dtype 5 is not supported at byte 20");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': 1, 'shape': (2,)}"), ErrorCode::BadFile,
                  "x.npy: header: 'fortran_order' must be True or False, not 1 at byte 44");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': False, 'shape': [2, 3]}"), ErrorCode::BadFile,
                  "x.npy: header: 'shape' must be a tuple of ints, not [2, 3] at byte 60");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2)}"), ErrorCode::BadFile,
                  "x.npy: header: 'shape' must be a tuple of ints, not 2 at byte 61");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, '3')}"), ErrorCode::BadFile,
                  "x.npy: header: 'shape' must be a tuple of ints, not (2, '3') at byte 64");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3)}"), ErrorCode::BadFile,
                  "x.npy: header: 'shape' (2, -3) has a negative dimension at byte 64");
  std::string dims65 = "(";
  for (int i = 0; i < 65; ++i) dims65 += "1, ";
  CHECK_NPY_ERROR(npy(npy_header("<f8", dims65 + ")")), ErrorCode::BadFile,
                  "x.npy: header: 'shape' has 65 dimensions, more than 64 at byte 60");
}

TEST_CASE("npy: shapes whose size overflows and data shorter than the shape are refused") {
  using ti::ErrorCode;
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}"), ErrorCode::BadFile,
                  "x.npy: header: integer 99999999999999999999 is out of range at byte 61");
  CHECK_NPY_ERROR(
      npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}"), ErrorCode::BadFile,
      "x.npy: header: shape (4294967296, 4294967296) of <f8 is too large: its byte size overflows at byte 60");
  // 2**31 * 2**31 elements fit in int64, their 8-byte size does not.
  CHECK_NPY_ERROR(
      npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2147483648, 2147483648)}"), ErrorCode::BadFile,
      "x.npy: header: shape (2147483648, 2147483648) of <f8 is too large: its byte size overflows at byte 60");
  // A zero dimension does not excuse the others: their strides would overflow.
  CHECK_NPY_ERROR(
      npy("{'descr': '<u1', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296)}"), ErrorCode::BadFile,
      "x.npy: header: shape (0, 4294967296, 4294967296) of <u1 is too large: its byte size overflows at byte 60");
  CHECK_NPY_ERROR(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}\n", std::string(40, '\0')),
                  ErrorCode::BadFile, "x.npy: data at byte 68 is 40 bytes, shape (2, 3) of <f8 needs 48");
}

TEST_CASE("npy: dtypes tinygrad cannot show are refused as unsupported after the header parses") {
  using ti::ErrorCode;
  CHECK_NPY_ERROR(npy(npy_header("<c8", "(2,)")), ErrorCode::Unsupported,
                  "x.npy: complex dtype '<c8' is not supported at byte 20");
  CHECK_NPY_ERROR(npy(npy_header("<c16", "(2,)")), ErrorCode::Unsupported,
                  "x.npy: complex dtype '<c16' is not supported at byte 20");
  CHECK_NPY_ERROR(npy(npy_header("|O", "(2,)")), ErrorCode::Unsupported,
                  "x.npy: object dtype '|O' is not supported at byte 20");
  CHECK_NPY_ERROR(npy(npy_header("|S5", "(2,)")), ErrorCode::Unsupported,
                  "x.npy: bytes string dtype '|S5' is not supported at byte 20");
  CHECK_NPY_ERROR(npy(npy_header("<U3", "(2,)")), ErrorCode::Unsupported,
                  "x.npy: unicode string dtype '<U3' is not supported at byte 20");
  CHECK_NPY_ERROR(npy(npy_header("<M8[ns]", "(2,)")), ErrorCode::Unsupported,
                  "x.npy: datetime64 dtype '<M8[ns]' is not supported at byte 20");
  CHECK_NPY_ERROR(npy(npy_header("<m8[s]", "(2,)")), ErrorCode::Unsupported,
                  "x.npy: timedelta64 dtype '<m8[s]' is not supported at byte 20");
  CHECK_NPY_ERROR(npy(npy_header("|V8", "(2,)")), ErrorCode::Unsupported,
                  "x.npy: void dtype '|V8' is not supported at byte 20");
  CHECK_NPY_ERROR(npy(npy_header("<f16", "(2,)")), ErrorCode::Unsupported,
                  "x.npy: long double dtype '<f16' is not supported at byte 20");
  CHECK_NPY_ERROR(npy("{'descr': [('a', '<i4'), ('b', '<f4')], 'fortran_order': False, 'shape': (2,), }"),
                  ErrorCode::Unsupported,
                  "x.npy: structured dtype [('a', '<i4'), ('b', '<f4')] is not supported at byte 20");
  // A structured descr with a bad shape is a bad header first.
  CHECK_NPY_ERROR(npy("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (-1,)}"), ErrorCode::BadFile,
                  "x.npy: header: 'shape' (-1,) has a negative dimension at byte 70");
}

TEST_CASE("npy: sniff matches the magic only") {
  CHECK(ti::sniff_npy(bytes_of("\x93NUMPY\x01\x00")));
  CHECK(ti::sniff_npy(bytes_of("\x93NUMPY")));
  CHECK_FALSE(ti::sniff_npy(bytes_of("\x93NUMP")));
  CHECK_FALSE(ti::sniff_npy(bytes_of("PK\x03\x04")));
}

TEST_CASE("registry: open_file detects .npy by magic, forces formats by name, and names unknown files") {
  const test_util::TempDir dir("ti_npy_test_");
  const std::string good = dir.write("data.bin", npy(npy_header("|u1", "(2,)"), "ab"));
  CHECK(ti::open_file(good).format == "npy");
  CHECK(ti::open_file(good, std::string("npy")).tensors[0].shape == ti::Shape{2});
  CHECK(ti::formats().at(0).name == "npy");

  const std::string unknown = dir.write("junk.bin", "hello world");
  CHECK_THROWS_WITH_AS(ti::open_file(unknown),
                       (unknown + ": not a recognised tensor file (first bytes: 68 65 6c 6c 6f 20 77 6f ...)").c_str(),
                       ti::Error);
  const std::string empty = dir.write("empty.bin", "");
  CHECK_THROWS_WITH_AS(ti::open_file(empty), (empty + ": not a recognised tensor file (the file is empty)").c_str(),
                       ti::Error);
  // By extension, a .npy without its magic reaches the npy loader and its message.
  const std::string bad_npy = dir.write("bad.NPY", "NUMPY!");
  CHECK_THROWS_WITH_AS(ti::open_file(bad_npy), (bad_npy + ": bad magic: not a .npy file at byte 0").c_str(), ti::Error);
  CHECK_THROWS_WITH_AS(ti::open_file(good, std::string("tiff")), doctest::Contains("unknown format 'tiff' (known: npy"),
                       ti::Error);
  try {
    ti::open_file(good, std::string("tiff"));
  } catch (const ti::Error& e) {
    CHECK(e.code() == ti::ErrorCode::Usage);
  }
}

TEST_CASE("registry: open_file(\"-\") reads standard input and detects its format by magic") {
  const std::string bytes = npy(npy_header("<i2", "(2,)"), std::string("\x05\x00\xfe\xff", 4));  // 5, -2
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));  // fits the pipe buffer
  ::close(fds[1]);
  const int saved_stdin = ::dup(0);
  ::dup2(fds[0], 0);
  ::close(fds[0]);
  std::optional<ti::LoadedFile> f;
  try {
    f = ti::open_file("-");
  } catch (...) {
  }
  ::dup2(saved_stdin, 0);
  ::close(saved_stdin);
  REQUIRE(f.has_value());
  CHECK(f->path == "<stdin>");
  CHECK(f->format == "npy");
  CHECK(f->tensors[0].offset == 68);
  CHECK_FALSE(f->file->is_mapped());
  CHECK(ints(f->tensors[0].load()) == std::vector<std::int64_t>{5, -2});
}

TEST_CASE("npy: the real files of other projects behave as EXPECTED.md says") {
  if (!std::filesystem::exists(kRealData + "numpy_python3.npy")) {
    MESSAGE("no " << kRealData << ": skipped");
    return;
  }
  SUBCASE("numpy's python3 file: header padded to 16, data at byte 80") {
    const ti::LoadedFile f = ti::open_file(kRealData + "numpy_python3.npy");
    CHECK(f.tensors[0].offset == 80);
    CHECK(f.tensors[0].nbytes == 16);
    CHECK(doubles(f.tensors[0].load()) == std::vector<double>{1.0, 1.0});
  }
  std::vector<double> expected(24);
  for (int i = 0; i < 24; ++i) expected[static_cast<std::size_t>(i)] = i;
  SUBCASE("ndarray-npy big-endian >f8 (2, 3, 4): values 0..23") {
    const ti::LoadedFile f = ti::open_file(kRealData + "ndnpy_example_f64_big_endian_standard.npy");
    CHECK(f.tensors[0].note == "big-endian, converted to native order");
    const ti::Tensor t = f.tensors[0].load();
    CHECK(t.shape() == ti::Shape{2, 3, 4});
    CHECK(t.dtype() == ti::DType::Float64);
    CHECK(doubles(t) == expected);
  }
  SUBCASE("ndarray-npy Fortran <f8 (2, 3, 4): the same values in C order") {
    const ti::LoadedFile f = ti::open_file(kRealData + "ndnpy_example_f64_little_endian_fortran.npy");
    CHECK(f.tensors[0].note == "Fortran order, converted to C order");
    const ti::Tensor t = f.tensors[0].load();
    CHECK(t.shape() == ti::Shape{2, 3, 4});
    CHECK(doubles(t) == expected);
  }
  SUBCASE("npyz structured file: the header parses, then the dtype is refused") {
    const std::string path = kRealData + "npyz_structured.npy";
    CHECK_THROWS_WITH_AS(
        ti::open_file(path),
        (path + ": structured dtype [('a', '<i4'), ('b', '<f4'), ('c', '<i8')] is not supported at byte 20").c_str(),
        ti::Error);
  }
}

TEST_CASE("npy: load is lazy, a DISK buffer over the file's data") {
  const std::string h = npy_header("<i2", "(2, 2)");
  const ti::LoadedFile f = open_bytes(npy(h, std::string("\x01\x00\x02\x00\x03\x00\xff\xff", 8)));
  const ti::Tensor t = f.tensors[0].load();
  REQUIRE(t.node()->op == ti::Op::Buffer);
  const auto& buffer = std::get<std::shared_ptr<ti::Buffer>>(t.node()->arg);
  CHECK(buffer->device() == ti::Device::DISK);
  CHECK(buffer->nbytes() == 8);
  CHECK(buffer->bytes().data() == f.file->bytes().data() + 10 + h.size());
  CHECK(ints(t) == std::vector<std::int64_t>{1, 2, 3, -1});
}

TEST_CASE("npy: big-endian data is byte-swapped lazily") {
  SUBCASE(">f8 from hand-checked bytes (struct.pack('>d', ...))") {
    const ti::LoadedFile f =
        open_bytes(npy(npy_header(">f8", "(2,)"), std::string("\x3f\xf0\0\0\0\0\0\0\xc0\x04\0\0\0\0\0\0", 16)));
    const ti::Tensor t = f.tensors[0].load();
    CHECK(t.node()->op != ti::Op::Buffer);  // a graph, not yet computed
    CHECK(t.shape() == ti::Shape{2});
    CHECK(doubles(t) == std::vector<double>{1.0, -2.5});
  }
  SUBCASE(">u2 0-d") {
    const ti::Tensor t = open_bytes(npy(npy_header(">u2", "()"), "\x01\x02")).tensors[0].load();
    CHECK(t.shape() == ti::Shape{});
    CHECK(ints(t) == std::vector<std::int64_t>{0x0102});
  }
  SUBCASE("an empty big-endian array") {
    const ti::Tensor t = open_bytes(npy(npy_header(">f4", "(0, 3)"), "")).tensors[0].load();
    CHECK(t.shape() == ti::Shape{0, 3});
    CHECK(t.dtype() == ti::DType::Float32);
  }
}
