// Tests of loaders/safetensors.cpp and loaders/safetensors_index.cpp: header validation
// on files built byte by byte, the samples written by samples/make_safetensors_samples.py
// and the real files of other projects (../shared/realdata/EXPECTED.md).
//
// Expected values come from the sample writer's NumPy arrays or from hand-checked bytes;
// byte offsets in messages are 8 + the header length + the offset in the data buffer.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
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
using test_util::names_of;

std::string le64(std::uint64_t n) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

// A safetensors file: 8-byte little-endian header length, the header, the data buffer.
std::string st(std::string_view header, std::string_view data = {}) {
  return le64(header.size()) + std::string(header) + std::string(data);
}

ti::LoadedFile open_st(const std::string& file) {
  return ti::open_safetensors(ti::MappedFile::from_bytes(bytes_of(file), "x.safetensors"));
}

#define CHECK_ST_ERROR(file, message)                                   \
  do {                                                                  \
    const std::string file_ = (file);                                   \
    const std::string message_ = (message);                             \
    CHECK_THROWS_WITH_AS(open_st(file_), message_.c_str(), ti::Error);  \
    CHECK(test_util::code_of([&] { open_st(file_); }) == ti::ErrorCode::BadFile); \
  } while (0)

const std::string kA4 = R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]})";

}  // namespace

TEST_CASE("safetensors: a header lists tensors in data order with dtype, shape, offsets and metadata") {
  const std::string h =
      R"({"b":{"dtype":"I16","shape":[2],"data_offsets":[4,8]},"__metadata__":{"format":"pt"},)"
      R"("a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}   )";
  const ti::LoadedFile f = open_st(st(h, std::string("\x00\x00\xc0\x3f\x01\x00\xfe\xff", 8)));
  REQUIRE(f.tensors.size() == 2);
  CHECK(names_of(f) == std::vector<std::string>{"a", "b"});
  CHECK(f.tensors[0].stored_type == "F32");
  CHECK(f.tensors[0].dtype == ti::DType::Float32);
  CHECK(f.tensors[0].shape == ti::Shape{});
  CHECK(f.tensors[0].offset == 8 + h.size());
  CHECK(f.tensors[0].nbytes == 4);
  CHECK(f.tensors[1].dtype == ti::DType::Int16);
  CHECK(f.tensors[1].stored_order() == ti::Shape{2});
  CHECK(f.tensors[1].offset == 8 + h.size() + 4);
  REQUIRE(f.metadata.size() == 1);
  CHECK(f.metadata[0].key == "format");
  CHECK(f.metadata[0].type == "string");
  CHECK(f.metadata[0].value == "pt");
  CHECK(doubles(f.tensors[0].load()) == std::vector<double>{1.5});
  CHECK(ints(f.tensors[1].load()) == std::vector<std::int64_t>{1, -2});
}

TEST_CASE("safetensors: escaped names and tags are decoded, and their entries outlive the header parse") {
  // "a\u00e9\"" is a, U+00E9 (UTF-8 c3 a9), a quote; "F\u00332" is the tag F32; the
  // second name is a plain view of the header. Values: 1.5f is 00 00 c0 3f, 2 as u8.
  const std::string h = R"({"a\u00e9\"":{"dtype":"F\u00332","shape":[1],"data_offsets":[0,4]},)"
                        R"("plain":{"dtype":"U8","shape":[1,1],"data_offsets":[4,5]}})";
  const ti::LoadedFile f = open_st(st(h, std::string("\x00\x00\xc0\x3f\x02", 5)));
  CHECK(names_of(f) == std::vector<std::string>{"a\xc3\xa9\"", "plain"});
  CHECK(f.tensors[0].stored_type == "F32");
  CHECK(f.tensors[0].dtype == ti::DType::Float32);
  CHECK(f.tensors[1].shape == ti::Shape{1, 1});
  CHECK(f.tensors[1].stored_order() == ti::Shape{1, 1});
  CHECK(doubles(f.tensors[0].load()) == std::vector<double>{1.5});
  CHECK(ints(f.tensors[1].load()) == std::vector<std::int64_t>{2});
}

TEST_CASE("safetensors: load is lazy, a DISK buffer over the tensor's bytes") {
  const std::string h = "{" + kA4 + "}";
  const ti::LoadedFile f = open_st(st(h, std::string("\x00\x00\x80\xbf", 4)));
  const ti::Tensor t = f.tensors[0].load();
  REQUIRE(t.node()->op == ti::Op::Buffer);
  const auto& buffer = std::get<std::shared_ptr<ti::Buffer>>(t.node()->arg);
  CHECK(buffer->device() == ti::Device::DISK);
  CHECK(buffer->bytes().data() == f.file->bytes().data() + 8 + h.size());
  CHECK(doubles(t) == std::vector<double>{-1.0});
}

TEST_CASE("safetensors: dtype tags map to tinygrad dtypes; tags without one are listed, then refused") {
  SUBCASE("fp8 tags are tinygrad's fp8 dtypes") {
    const ti::LoadedFile f = open_st(st(R"({"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]},)"
                                        R"("b":{"dtype":"F8_E5M2","shape":[1],"data_offsets":[2,3]}})",
                                        std::string("\x38\x40\x3c", 3)));
    CHECK(f.tensors[0].dtype == ti::DType::FP8E4M3);
    CHECK(f.tensors[1].dtype == ti::DType::FP8E5M2);
  }
  SUBCASE("every tinygrad tag") {
    const std::vector<std::pair<std::string, ti::DType>> tags = {
        {"BOOL", ti::DType::Bool},     {"U8", ti::DType::UInt8},     {"I8", ti::DType::Int8},
        {"U16", ti::DType::UInt16},    {"I16", ti::DType::Int16},    {"U32", ti::DType::UInt32},
        {"I32", ti::DType::Int32},     {"U64", ti::DType::UInt64},   {"I64", ti::DType::Int64},
        {"F16", ti::DType::Float16},   {"BF16", ti::DType::BFloat16}, {"F32", ti::DType::Float32},
        {"F64", ti::DType::Float64}};
    for (const auto& item : tags) {
      const std::string& tag = item.first;
      const ti::DType dtype = item.second;
      CAPTURE(tag);
      const ti::LoadedFile f = open_st(st(R"({"a":{"dtype":")" + tag + R"(","shape":[0],"data_offsets":[0,0]}})"));
      CHECK(f.tensors[0].dtype == dtype);
    }
  }
  SUBCASE(
      "F8_E8M0, F4, F6 and C64 are listed with their size; F8_E8M0 and F4 decode to float32, the others name the tag") {
    const ti::LoadedFile f = open_st(st(R"({"e":{"dtype":"F8_E8M0","shape":[2],"data_offsets":[0,2]},)"
                                        R"("f":{"dtype":"F4","shape":[4],"data_offsets":[2,4]},)"
                                        R"("g":{"dtype":"F6_E2M3","shape":[4],"data_offsets":[4,7]},)"
                                        R"("c":{"dtype":"C64","shape":[1],"data_offsets":[7,15]}})",
                                        std::string(15, '\0')));
    CHECK(names_of(f) == std::vector<std::string>{"e", "f", "g", "c"});
    CHECK(f.tensors[0].dtype == ti::DType::Float32);
    CHECK(f.tensors[1].dtype == ti::DType::Float32);
    CHECK_FALSE(f.tensors[2].dtype.has_value());
    CHECK_FALSE(f.tensors[3].dtype.has_value());
    CHECK(f.tensors[1].stored_type == "F4");
    CHECK(f.tensors[1].shape == ti::Shape{4});
    CHECK(f.tensors[2].nbytes == 3);
    CHECK(f.tensors[0].load().dtype() == ti::DType::Float32);
    CHECK_THROWS_WITH_AS(
        f.tensors[2].load(),
        "x.safetensors: tensor 'g' has dtype F6_E2M3, a packed 6-bit float whose bit order safetensors "
        "does not define",
        ti::Error);
    try {
      f.tensors[3].load();
    } catch (const ti::Error& e) {
      CHECK(e.code() == ti::ErrorCode::Unsupported);
    }
  }
}

TEST_CASE("safetensors: header length, first byte and JSON errors name the byte") {
  CHECK_ST_ERROR(std::string("\x10\x00\x00", 3),
                 "x.safetensors: truncated header length: needs 8 bytes, 3 left at byte 0");
  // A hit cap: the message names it, and the code is limit_exceeded (not bad_file) wherever a cap is hit.
  CHECK_THROWS_WITH_AS(open_st(le64(100'000'001) + "{}"),
                       "x.safetensors: header length 100000001 exceeds the limit of 100000000 (limit "
                       "safetensors_header_bytes; raise it with --limit safetensors_header_bytes=N) at byte 0",
                       ti::Error);
  CHECK(test_util::code_of([&] { open_st(le64(100'000'001) + "{}"); }) == ti::ErrorCode::LimitExceeded);
  CHECK_ST_ERROR(le64(1000) + "{\"a\":1}" + std::string(13, ' '),
                 "x.safetensors: header length 1000 runs past the end of the file (28 bytes) at byte 0");
  CHECK_ST_ERROR(st("  [1]"), "x.safetensors: header does not start with '{' at byte 10");
  CHECK_ST_ERROR(st("[1]"), "x.safetensors: header does not start with '{' at byte 8");
  CHECK_ST_ERROR(st(R"({"a":})"), "x.safetensors: tensor 'a': header entry is not an object");
  // ',' is header byte 4, file byte 12.
  CHECK_ST_ERROR(st(R"({"a",})"), "x.safetensors: header is not valid JSON (expected ':', found ',') at byte 12");
}

TEST_CASE("safetensors: hostile offsets, sizes and names are refused naming the tensor") {
  SUBCASE("offsets past the end of the data") {
    const std::string h = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    CHECK_ST_ERROR(st(h, "1234"),
                   "x.safetensors: tensor 'a': data_offsets [0, 8) run past the end of the data (4 bytes) at byte " +
                       std::to_string(8 + h.size()));
  }
  SUBCASE("overlapping tensors") {
    const std::string h = "{" + kA4 + R"(,"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})";
    CHECK_ST_ERROR(st(h, "123456"), "x.safetensors: tensor 'b': data_offsets [2, 6) overlap tensor 'a' at byte " +
                                        std::to_string(8 + h.size() + 2));
  }
  SUBCASE("negative and fractional offsets") {
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}})", "1"),
                   "x.safetensors: tensor 'a': data_offsets begin must be a non-negative integer, not -1");
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1.0]}})", "1"),
                   "x.safetensors: tensor 'a': data_offsets end must be a non-negative integer, not 1.0");
  }
  SUBCASE("end before begin") {
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[4,0]}})", "1234"),
                   "x.safetensors: tensor 'a': data_offsets [4, 0) end before they begin");
  }
  SUBCASE("a hole between tensors") {
    const std::string h = "{" + kA4 + R"(,"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})";
    CHECK_ST_ERROR(st(h, std::string(12, 'x')),
                   "x.safetensors: tensor 'b': data_offsets [8, 12) leave a hole of 4 bytes before it at byte " +
                       std::to_string(8 + h.size() + 4));
  }
  SUBCASE("a hole before the first tensor") {
    const std::string h = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})";
    CHECK_ST_ERROR(st(h, "12"),
                   "x.safetensors: tensor 'a': data_offsets [1, 2) leave a hole of 1 bytes before it at byte " +
                       std::to_string(8 + h.size()));
  }
  SUBCASE("bytes after the last tensor") {
    const std::string h = "{" + kA4 + "}";
    CHECK_ST_ERROR(st(h, "12345678"), "x.safetensors: 4 bytes after the last tensor belong to no tensor at byte " +
                                          std::to_string(8 + h.size() + 4));
  }
  SUBCASE("a size that does not match the shape") {
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", "12345678"),
                   "x.safetensors: tensor 'a': shape (3,) of F32 needs 12 bytes, but data_offsets [0, 8) hold 8");
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", "12"),
                   "x.safetensors: tensor 'a': 3 elements of F4 do not fill whole bytes");
  }
  SUBCASE("a shape whose element count overflows") {
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,0]}})"),
                   "x.safetensors: tensor 'a': element count of shape (4294967296, 4294967296) overflows");
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}})"),
                   "x.safetensors: tensor 'a': byte size of shape (2305843009213693952,) overflows");
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,0]}})"),
                   "x.safetensors: tensor 'a': shape dimension must be a non-negative integer, not -2");
  }
  SUBCASE("duplicate tensor names and duplicate fields (JSON parsers keep the last)") {
    CHECK_ST_ERROR(st("{" + kA4 + "," + kA4 + "}", "1234"), "x.safetensors: tensor 'a' appears twice in the header");
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"F32","dtype":"U8","shape":[1],"data_offsets":[0,4]}})", "1234"),
                   "x.safetensors: key 'dtype' appears twice in header object 'a'");
    CHECK_ST_ERROR(st(R"({"__metadata__":{"k":"1","k":"2"}})"),
                   "x.safetensors: key 'k' appears twice in header object '__metadata__'");
    // The same name spelled with and without an escape is one name held twice.
    CHECK_ST_ERROR(
        st(R"({"ab":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
           R"("a\u0062":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
           "12"),
        "x.safetensors: tensor 'ab' appears twice in the header");
  }
  SUBCASE("among many names, the duplicate that sorts first is named, wherever the two are") {
    // 3000 distinct names t0..t2999 (one byte each), then "t2999" and "t1000" again: the
    // hash table of names must find them, and the message names "t1000" ("t1000" < "t2999").
    std::string header = "{", data;
    auto add = [&](const std::string& name) {
      if (header.size() > 1) header += ",";
      header += "\"" + name + "\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[" + std::to_string(data.size()) +
                "," + std::to_string(data.size() + 1) + "]}";
      data += 'x';
    };
    for (int i = 0; i < 3000; ++i) add("t" + std::to_string(i));
    const std::string distinct = header + "}";
    CHECK(open_st(st(distinct, data)).tensors.size() == 3000);
    add("t2999");
    add("t1000");
    CHECK_ST_ERROR(st(header + "}", data), "x.safetensors: tensor 't1000' appears twice in the header");
  }
  SUBCASE("an unknown dtype tag") {
    CHECK_ST_ERROR(st(R"({"w":{"dtype":"F12","shape":[1],"data_offsets":[0,4]}})", "1234"),
                   "x.safetensors: tensor 'w': unknown dtype 'F12'");
  }
  SUBCASE("missing fields and non-string metadata") {
    CHECK_ST_ERROR(st(R"({"a":{"dtype":"F32","data_offsets":[0,4]}})", "1234"),
                   "x.safetensors: tensor 'a': header entry has no \"shape\"");
    CHECK_ST_ERROR(st(R"({"a":[1,2]})"), "x.safetensors: tensor 'a': header entry is not an object");
    CHECK_ST_ERROR(st(R"({"__metadata__":{"n":1}})"), "x.safetensors: __metadata__ value of 'n' is not a string");
  }
}

TEST_CASE("safetensors: sniff wants a plausible length and '{' at byte 8") {
  const auto yes = bytes_of(st(R"({"a":1})"));
  CHECK(ti::sniff_safetensors(yes));
  CHECK_FALSE(ti::sniff_safetensors(bytes_of(le64(200'000'000) + "{")));
  CHECK_FALSE(ti::sniff_safetensors(bytes_of(le64(7) + "[")));
  CHECK_FALSE(ti::sniff_safetensors(bytes_of("GGUF\x03\0\0\0{")));
  CHECK_FALSE(ti::sniff_safetensors(bytes_of("{\"weight_map\": {}}")));
}

TEST_CASE("safetensors: the sample written by make_safetensors_samples.py lists in data order with NumPy's values") {
  const ti::LoadedFile f = ti::open_file(kSamples + "mixed.safetensors");
  CHECK(f.format == "safetensors");
  CHECK(names_of(f) == std::vector<std::string>{"weight", "half", "bf16", "ids", "mask", "scalar", "empty"});
  // Header length 488 (0x1e8, bytes 0-7 of the file), so the data starts at byte 496.
  CHECK(f.tensors[0].offset == 496);
  CHECK(f.tensors[3].offset == 496 + 36);
  REQUIRE(f.metadata.size() == 2);
  CHECK(f.metadata[1].key == "source");
  CHECK(f.metadata[1].value == "tensor-inspect samples");
  CHECK(f.tensors[0].shape == ti::Shape{2, 3});
  CHECK(doubles(f.tensors[0].load()) == std::vector<double>{1.5, -2.0, 0.25, 3.0, 4.0, -0.125});
  CHECK(doubles(f.tensors[1].load()) == std::vector<double>{0.0999755859375, -1.0, 65504.0, 0.5});
  CHECK(f.tensors[2].dtype == ti::DType::BFloat16);
  CHECK(doubles(f.tensors[2].load()) == std::vector<double>{1.0, -3.5});
  CHECK(ints(f.tensors[3].load()) == std::vector<std::int64_t>{-1, 0, 9007199254740993});
  CHECK(ints(f.tensors[4].load()) == std::vector<std::int64_t>{1, 0, 0, 1});
  CHECK(f.tensors[5].shape == ti::Shape{});
  CHECK(doubles(f.tensors[5].load()) == std::vector<double>{7.0});
  CHECK(f.tensors[6].shape == ti::Shape{0, 3});
  CHECK(f.tensors[6].nbytes == 0);
}

TEST_CASE("safetensors: the real files of other projects behave as EXPECTED.md says") {
  if (!std::filesystem::exists(kRealData + "candle_jfk-codes.safetensors")) {
    MESSAGE("no " << kRealData << ": skipped");
    return;
  }
  SUBCASE("candle's jfk codes: one I64 tensor (1, 2, 828), header padded with spaces") {
    const ti::LoadedFile f = ti::open_file(kRealData + "candle_jfk-codes.safetensors");
    REQUIRE(f.tensors.size() == 1);
    CHECK(f.tensors[0].name == "codes");
    CHECK(f.tensors[0].shape == ti::Shape{1, 2, 828});
    CHECK(f.tensors[0].nbytes == 13248);
    const std::vector<std::int64_t> v = ints(f.tensors[0].load());
    REQUIRE(v.size() == 1656);
    CHECK(std::vector<std::int64_t>(v.begin(), v.begin() + 5) == std::vector<std::int64_t>{865, 62, 408, 408, 475});
    CHECK(std::vector<std::int64_t>(v.begin() + 828, v.begin() + 833) ==
          std::vector<std::int64_t>{200, 518, 518, 518, 937});
    CHECK(std::vector<std::int64_t>(v.end() - 3, v.end()) == std::vector<std::int64_t>{873, 796, 889});
    CHECK(*std::min_element(v.begin(), v.end()) == 0);
    CHECK(*std::max_element(v.begin(), v.end()) == 1023);
  }
  SUBCASE("safetensors-cpp abuse attempt: a header length of 1000 in an 88-byte file") {
    const std::string path = kRealData + "stcpp_safetensors_abuse_attempt_1.safetensors";
    CHECK_THROWS_WITH_AS(ti::open_file(path),
                         (path + ": header length 1000 runs past the end of the file (88 bytes) at byte 0").c_str(),
                         ti::Error);
  }
}
