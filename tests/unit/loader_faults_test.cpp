// Regression tests of issue 9's loader faults: safetensors headers nested without bound
// (5) and padded or trailed like the reference implementation allows and refuses (20),
// .npy descrs that are dtype names (19), GGUF types 40-42 (21) and a sharded index naming
// a missing shard (9). Expected values are worked out by hand from the formats' specs
// (byte offsets) and ggml's reference dequantization (values), or come from NumPy.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::tolist;

std::string le64(std::uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}
std::string le32(std::uint32_t v) { return le64(v).substr(0, 4); }

ti::LoadedFile open_st(const std::string& header, const std::string& data = "") {
  const std::string s = le64(header.size()) + header + data;
  return ti::open_safetensors(ti::MappedFile::from_bytes(test_util::bytes_of(s), "x.safetensors"));
}

const std::string kU8 = R"("a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]})";

/// A GGUF v3 file of one tensor `t` of `n` elements of type `type`, its data `block`.
ti::LoadedFile open_gguf_block(std::uint32_t type, std::uint64_t n, const std::string& block) {
  std::string s = "GGUF" + le32(3) + le64(1) + le64(0);
  s += le64(1) + "t" + le32(1) + le64(n) + le32(type) + le64(0);
  s += std::string((32 - s.size() % 32) % 32, '\0') + block;
  return ti::open_gguf(ti::MappedFile::from_bytes(test_util::bytes_of(s), "x.gguf"));
}

std::string repeat(const std::string& item, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? ", " : "") + item;
  return out;
}

}  // namespace

TEST_CASE("fault 5: safetensors JSON nesting is bounded before anything is built") {
  // An unknown field nesting 100,000 lists: refused at the first list past 64 levels.
  const std::string prefix = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":)";
  const std::string deep = prefix + std::string(100000, '[') + std::string(100000, ']') + "}}";
  CHECK_THROWS_WITH_AS(open_st(deep, "1"),
                       ("x.safetensors: values nest deeper than 64 levels (limit json_depth; raise it with --limit "
                        "json_depth=N) at byte " +
                        std::to_string(8 + prefix.size() + 62))
                           .c_str(),
                       ti::Error);
  // A 60,000-character key followed by 60,000 '[': the entry is not an object, said at once.
  const std::string key(60000, 'k');
  CHECK_THROWS_WITH_AS(open_st("{\"" + key + "\":" + std::string(60000, '[')),
                       ("x.safetensors: tensor '" + key + "': header entry is not an object").c_str(), ti::Error);
  // Unknown fields of moderate depth are skipped, as serde ignores them.
  const ti::LoadedFile f =
      open_st(R"({"a":{"x":[[1,{"y":null}],"s"],"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", "7");
  CHECK(tolist(f.tensors.at(0).load()) == "[55]");
}

TEST_CASE("fault 20: safetensors headers may be padded with JSON whitespace before '{', never trailed by NUL bytes") {
  const ti::LoadedFile f = open_st(" \t\n\r{" + kU8 + "}\r\n\t ", "\x05");
  CHECK(tolist(f.tensors.at(0).load()) == "[5]");
  const std::string h = "{" + kU8 + "}";
  CHECK_THROWS_WITH_AS(open_st(h + std::string(4, '\0'), "\x05"),
                       ("x.safetensors: header is not valid JSON (NUL bytes after the closing '}') at byte " +
                        std::to_string(8 + h.size()))
                           .c_str(),
                       ti::Error);
  CHECK_THROWS_WITH_AS(open_st(h + " x", "\x05"),
                       ("x.safetensors: header is not valid JSON (trailing characters after the closing '}') at byte " +
                        std::to_string(8 + h.size() + 1))
                           .c_str(),
                       ti::Error);
  // Detection sees the '{' after the padding, as the reference reads it.
  const std::string padded = le64(8) + "    {}  ";
  CHECK(ti::sniff_safetensors(std::as_bytes(std::span(padded.data(), padded.size()))));
}

TEST_CASE("fault 19: .npy descrs that are dtype names, as numpy.dtype() reads them on Linux") {
  const std::pair<const char*, const char*> cases[] = {
      {"float32", "float32"}, {"int", "int64"},     {"float", "float64"}, {"bool", "bool"},  {"uint8", "uint8"},
      {"half", "float16"},    {"intc", "int32"},    {"l", "int64"},       {">l", "int64"}, {"ulonglong", "uint64"},
      {"double", "float64"},  {"short", "int16"},   {"ubyte", "uint8"},   {"P", "uint64"},
  };
  for (const auto& item : cases) {
    const char* descr = item.first;
    const char* dtype = item.second;
    CAPTURE(descr);
    const std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (0,), }";
    const ti::LoadedFile f =
        ti::open_npy(ti::MappedFile::from_bytes(test_util::bytes_of(test_util::npy(header)), "x.npy"));
    CHECK(std::string(ti::dtype_info(f.tensors.at(0).dtype.value()).name) == dtype);
  }
  // numpy.dtype('<float32') is not understood, and long double has no counterpart here.
  const std::string bad = "{'descr': '<float32', 'fortran_order': False, 'shape': (0,), }";
  CHECK(test_util::code_of([&] {
          ti::open_npy(ti::MappedFile::from_bytes(test_util::bytes_of(test_util::npy(bad)), "x.npy"));
        }) == ti::ErrorCode::BadFile);
  const std::string ld = "{'descr': 'longdouble', 'fortran_order': False, 'shape': (0,), }";
  CHECK(test_util::code_of([&] {
          ti::open_npy(ti::MappedFile::from_bytes(test_util::bytes_of(test_util::npy(ld)), "x.npy"));
        }) == ti::ErrorCode::Unsupported);
}

TEST_CASE("fault 21: GGUF NVFP4, Q1_0 and Q2_0 are listed by name and size and dequantized as ggml does") {
  SUBCASE("Q2_0: 64 elements in 18 bytes, (q - 1) * d") {
    // d = 1.0 (half 0x3c00); qs[0] = 0b11'10'01'00: q = 0, 1, 2, 3; the rest q = 0.
    const ti::LoadedFile f = open_gguf_block(42, 64, std::string("\x00\x3c\xe4", 3) + std::string(15, '\0'));
    const ti::TensorEntry& e = f.tensors.at(0);
    CHECK(e.stored_type == "Q2_0");
    CHECK(e.nbytes == 18);
    CHECK(tolist(e.load()) == "[-1.0, 0.0, 1.0, 2.0, " + repeat("-1.0", 60) + "]");
  }
  SUBCASE("Q1_0: 128 elements in 18 bytes, +d for a set bit, -d for a clear one") {
    // d = 0.5 (half 0x3800); only bit 0 set.
    const ti::LoadedFile f = open_gguf_block(41, 128, std::string("\x00\x38\x01", 3) + std::string(15, '\0'));
    CHECK(f.tensors.at(0).stored_type == "Q1_0");
    CHECK(tolist(f.tensors.at(0).load()) == "[0.5, " + repeat("-0.5", 127) + "]");
  }
  SUBCASE("NVFP4: 64 elements in 36 bytes, E2M1 nibbles times a UE4M3 scale per 16") {
    // d[0] = 0x38: exponent 7, mantissa 0 -> 1.0, halved -> 0.5; qs[0] = 0x21: E2M1 codes
    // 1 (doubled value 1) for element 0 and 2 (doubled 2) for element 8.
    const ti::LoadedFile f = open_gguf_block(40, 64, std::string("\x38\x00\x00\x00\x21", 5) + std::string(31, '\0'));
    CHECK(f.tensors.at(0).stored_type == "NVFP4");
    CHECK(f.tensors.at(0).nbytes == 36);
    CHECK(tolist(f.tensors.at(0).load()) == "[0.5, " + repeat("0.0", 7) + ", 1.0, " + repeat("0.0", 55) + "]");
  }
}

TEST_CASE("fault 9: a sharded index naming a missing shard lists every tensor and loads the present ones") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ti_fault9_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "s1.safetensors", std::ios::binary) << le64(kU8.size() + 2) << "{" << kU8 << "}" << '\x09';
    std::ofstream(dir / "model.safetensors.index.json")
        << R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})";
  }
  const std::string index = (dir / "model.safetensors.index.json").string();
  const ti::LoadedFile f = ti::open_file(index);
  REQUIRE(f.tensors.size() == 2);
  CHECK(tolist(f.tensors[0].load()) == "[9]");
  CHECK(f.tensors[1].name == "b");
  CHECK(f.tensors[1].note == "in missing shard s2.safetensors");
  REQUIRE(f.warnings.size() == 1);
  const std::string why = (dir / "s2.safetensors").string() + ": cannot open: No such file or directory";
  CHECK(f.warnings[0] ==
        index + ": shard 's2.safetensors' of 1 tensor cannot be read (" + why + "); it should hold 'b'");
  CHECK_THROWS_WITH_AS(
      f.tensors[1].load(),
      (index + ": tensor 'b' is in shard 's2.safetensors', which cannot be read (" + why + ")").c_str(), ti::Error);
  std::filesystem::remove_all(dir);
}
