// Tests of loaders/gguf.cpp and loaders/gguf_quants.cpp: hostile headers built byte by
// byte, the sample written by samples/make_gguf_samples.py (with the dequantized values
// NumPy computed from ggml's block formulas in samples/gguf_expected.json), and the real
// files of other projects (../shared/realdata/EXPECTED.md).
//
// Byte offsets in expected messages are the builder's length when the field was written.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>

#include <unistd.h>

#include "loaders/formats.hpp"
#include "loaders/gguf_quants.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::doubles;
using test_util::kRealData;
using test_util::kSamples;

// Little-endian GGUF bytes, written field by field.
struct Gguf {
  std::string b;
  Gguf& raw(std::string_view s) { b += s; return *this; }
  Gguf& u32(std::uint32_t v) { for (int i = 0; i < 4; ++i) b += static_cast<char>((v >> (8 * i)) & 0xff); return *this; }
  Gguf& u64(std::uint64_t v) { for (int i = 0; i < 8; ++i) b += static_cast<char>((v >> (8 * i)) & 0xff); return *this; }
  Gguf& str(std::string_view s) { u64(s.size()); return raw(s); }
  Gguf& header(std::uint64_t tensors, std::uint64_t kvs, std::uint32_t version = 3) {
    return raw("GGUF").u32(version).u64(tensors).u64(kvs);
  }
  Gguf& kv_u32(std::string_view key, std::uint32_t v) { return str(key).u32(4).u32(v); }
  Gguf& info(std::string_view name, std::vector<std::uint64_t> dims, std::uint32_t type, std::uint64_t offset) {
    str(name).u32(static_cast<std::uint32_t>(dims.size()));
    for (std::uint64_t d : dims) u64(d);
    return u32(type).u64(offset);
  }
  Gguf& pad(std::size_t alignment = 32) {
    while (b.size() % alignment != 0) b += '\0';
    return *this;
  }
  std::uint64_t at() const { return b.size(); }
};

ti::LoadedFile open_gg(const std::string& bytes) {
  return ti::open_gguf(ti::MappedFile::from_bytes(test_util::bytes_of(bytes), "x.gguf"));
}

#define CHECK_GG_ERROR(bytes, code, message)                    \
  do {                                                          \
    const std::string bytes_ = (bytes);                         \
    const std::string message_ = (message);                    \
    CHECK_THROWS_WITH_AS(open_gg(bytes_), message_.c_str(), ti::Error); \
    CHECK(test_util::code_of([&] { open_gg(bytes_); }) == (code)); \
  } while (0)

std::string at(std::uint64_t n) { return " at byte " + std::to_string(n); }

const ti::TensorEntry& entry(const ti::LoadedFile& f, const std::string& name) {
  for (const auto& e : f.tensors)
    if (e.name == name) return e;
  FAIL("no tensor " << name);
  throw 0;
}

const ti::MetaEntry& meta(const ti::LoadedFile& f, const std::string& key) {
  for (const auto& m : f.metadata)
    if (m.key == key) return m;
  FAIL("no metadata " << key);
  throw 0;
}

}  // namespace

TEST_CASE("gguf: a v3 header gives metadata and tensors, shapes row-major, data aligned") {
  Gguf g;
  g.header(2, 2).str("general.name").u32(8).str("tiny").kv_u32("n", 7);
  g.info("w", {2, 3}, 0, 0).info("h", {2}, 1, 32).pad();
  const std::uint64_t data = g.at();
  g.raw(std::string("\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\xa0\x40\x00\x00\xc0\x40", 24));
  g.pad().raw(std::string("\x00\x3c\x00\xc0", 4));  // float16 1.0, -2.0
  const ti::LoadedFile f = open_gg(g.b);
  REQUIRE(f.metadata.size() == 2);
  CHECK(f.metadata[0].key == "general.name");
  CHECK(f.metadata[0].type == "string");
  CHECK(f.metadata[0].value == "tiny");
  CHECK(f.metadata[1].type == "uint32");
  CHECK(f.metadata[1].value == 7);
  REQUIRE(f.tensors.size() == 2);
  CHECK(f.tensors[0].stored_type == "F32");
  CHECK(f.tensors[0].stored_shape == ti::Shape{2, 3});
  CHECK(f.tensors[0].shape == ti::Shape{3, 2});
  CHECK(f.tensors[0].offset == data);
  CHECK(f.tensors[0].nbytes == 24);
  CHECK(f.tensors[1].offset == data + 32);
  CHECK(doubles(f.tensors[0].load()) == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(doubles(f.tensors[1].load()) == std::vector<double>{1.0, -2.0});
  const ti::Tensor t = f.tensors[0].load();
  REQUIRE(t.node()->op == ti::Op::Buffer);
  CHECK(std::get<std::shared_ptr<ti::Buffer>>(t.node()->arg)->device() == ti::Device::DISK);
}

TEST_CASE("gguf: version 2 reads like version 3; version 1, 4 and big-endian files are refused") {
  Gguf v2;
  v2.header(0, 1, 2).kv_u32("n", 1);
  CHECK(open_gg(v2.b).metadata.size() == 1);
  CHECK_GG_ERROR(Gguf().header(0, 0, 1).b, ti::ErrorCode::Unsupported,
                 "x.gguf: GGUF version 1 is not supported (it used 32-bit counts; convert the file with a newer "
                 "llama.cpp) at byte 4");
  CHECK_GG_ERROR(Gguf().header(0, 0, 4).b, ti::ErrorCode::Unsupported,
                 "x.gguf: GGUF version 4 is not supported (only 2 and 3) at byte 4");
  CHECK_GG_ERROR(Gguf().header(0, 0, 0x03000000).b, ti::ErrorCode::Unsupported,
                 "x.gguf: big-endian GGUF is not supported at byte 4");
}

TEST_CASE("gguf: hostile headers are refused naming the field and the byte") {
  using ti::ErrorCode;
  SUBCASE("magic") {
    CHECK_GG_ERROR("GGU", ErrorCode::BadFile, "x.gguf: truncated magic: needs 4 bytes, 3 left at byte 0");
    CHECK_GG_ERROR(Gguf().raw("GGUX").u32(3).u64(0).u64(0).b, ErrorCode::BadFile,
                   "x.gguf: bad magic (expected \"GGUF\") at byte 0");
  }
  SUBCASE("counts that cannot fit in the file") {
    CHECK_GG_ERROR(Gguf().header(std::uint64_t{1} << 60, 0).b, ErrorCode::BadFile,
                   "x.gguf: tensor count 1152921504606846976 cannot fit in the file at byte 8");
    CHECK_GG_ERROR(Gguf().header(0, 2).kv_u32("n", 1).b, ErrorCode::BadFile,
                   "x.gguf: metadata count 2 cannot fit in the file at byte 16");
  }
  SUBCASE("key length past the end of the file and over the cap") {
    CHECK_GG_ERROR(Gguf().header(0, 1).u64(1000).raw("abcde").b, ErrorCode::BadFile,
                   "x.gguf: truncated metadata key: needs 1000 bytes, 5 left" + at(32));
    CHECK_GG_ERROR(Gguf().header(0, 1).u64(std::uint64_t{1} << 40).raw("abcde").b, ErrorCode::BadFile,
                   "x.gguf: metadata key length 1099511627776 exceeds the limit of 65536 (limit gguf_key_bytes; raise it with --limit gguf_key_bytes=N)" + at(32));
  }
  SUBCASE("string value past the end of the file") {
    Gguf g;
    g.header(0, 1).str("k").u32(8).u64(100);
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: truncated string value: needs 100 bytes, 0 left" + at(g.at()));
  }
  SUBCASE("array counts that overflow or exceed the bytes left") {
    Gguf g;
    g.header(0, 1).str("k").u32(9);
    const std::uint64_t array_at = g.at();
    g.u32(4).u64(std::uint64_t{1} << 62);
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile,
                   "x.gguf: metadata 'k': array of 4611686018427387904 uint32 elements does not fit in the 0 bytes left" +
                       at(array_at));
    Gguf s;
    s.header(0, 1).str("k").u32(9);
    const std::uint64_t strings_at = s.at();
    s.u32(8).u64(3).str("a").str("b");  // 3 strings need at least 24 bytes; 18 follow
    CHECK_GG_ERROR(s.b, ErrorCode::BadFile,
                   "x.gguf: metadata 'k': array of 3 string elements does not fit in the 18 bytes left" + at(strings_at));
  }
  SUBCASE("more array elements in all metadata than the limit of 2**24") {
    Gguf g;
    g.header(0, 2).str("a").u32(9).u32(0).u64(1).raw(std::string(1, '\0')).str("b").u32(9);
    const std::uint64_t array_at = g.at();
    g.u32(0).u64(std::uint64_t{1} << 24).raw(std::string(std::size_t{1} << 24, '\0'));  // 1 + 2**24 uint8 in all
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile,
                   "x.gguf: metadata 'b': array of 16777216 elements goes over the limit of 16777216 array elements "
                   "in all metadata (limit gguf_array_elements; raise it with --limit gguf_array_elements=N)" + at(array_at));
  }
  SUBCASE("unknown value types and arrays nested too deep") {
    Gguf g;
    g.header(0, 1).str("k");
    const std::uint64_t type_at = g.at();
    g.u32(13).u64(0);
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: metadata 'k': unknown value type 13" + at(type_at));
    Gguf e;
    e.header(0, 1).str("k").u32(9);
    const std::uint64_t elem_at = e.at();
    e.u32(99).u64(0);
    CHECK_GG_ERROR(e.b, ErrorCode::BadFile, "x.gguf: metadata 'k': unknown array element type 99" + at(elem_at));
    Gguf n;
    n.header(0, 1).str("k").u32(9);
    for (int i = 0; i < 4; ++i) n.u32(9).u64(1);  // arrays 1-4, each holding one array
    const std::uint64_t fifth = n.at();
    n.u32(4).u64(0);
    CHECK_GG_ERROR(n.b, ErrorCode::BadFile, "x.gguf: metadata 'k': arrays nested deeper than 4" + at(fifth));
  }
  SUBCASE("duplicate keys") {
    Gguf g;
    g.header(0, 2).kv_u32("k", 1);
    const std::uint64_t second = g.at();
    g.kv_u32("k", 2);
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: duplicate metadata key 'k'" + at(second));
  }
  SUBCASE("general.alignment must be a uint32 power of two") {
    Gguf g;
    g.header(0, 1).str("general.alignment").u32(4);
    const std::uint64_t value_at = g.at();
    g.u32(48);
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: general.alignment 48 is not a power of two" + at(value_at));
    Gguf z;
    z.header(0, 1).kv_u32("general.alignment", 0);
    CHECK_GG_ERROR(z.b, ErrorCode::BadFile, "x.gguf: general.alignment 0 is not a power of two" + at(z.at() - 4));
    Gguf t;
    t.header(0, 1).str("general.alignment");
    const std::uint64_t type_at = t.at();
    t.u32(10).u64(64);
    CHECK_GG_ERROR(t.b, ErrorCode::BadFile, "x.gguf: general.alignment is uint64, not uint32" + at(type_at));
  }
  SUBCASE("absurd n_dims and dimensions") {
    Gguf g;
    g.header(1, 0).str("t");
    const std::uint64_t ndims_at = g.at();
    g.u32(5).u64(1).u64(1).u64(1).u64(1).u64(1).u32(0).u64(0);
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: tensor 't': n_dims 5 exceeds GGML_MAX_DIMS (4)" + at(ndims_at));
    Gguf o;
    o.header(1, 0).str("t").u32(2).u64(std::uint64_t{1} << 32);
    const std::uint64_t dim_at = o.at();
    o.u64(std::uint64_t{1} << 32).u32(0).u64(0);
    CHECK_GG_ERROR(o.b, ErrorCode::BadFile, "x.gguf: tensor 't': element count overflows" + at(dim_at));
    Gguf b;
    b.header(1, 0).str("t").u32(1);
    const std::uint64_t big_at = b.at();
    b.u64(~std::uint64_t{0}).u32(0).u64(0);
    CHECK_GG_ERROR(b.b, ErrorCode::BadFile, "x.gguf: tensor 't': dimension 18446744073709551615 is too large" + at(big_at));
  }
  SUBCASE("unknown and removed ggml type ids, rows that split a block") {
    Gguf g;
    g.header(1, 0).str("t").u32(1).u64(4);
    const std::uint64_t type_at = g.at();
    g.u32(99).u64(0);
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: tensor 't': unknown ggml type id 99" + at(type_at));
    Gguf r;
    r.header(1, 0).str("t").u32(1).u64(4).u32(31).u64(0);  // Q4_0_4_4, removed from GGUF
    CHECK_GG_ERROR(r.b, ErrorCode::BadFile, "x.gguf: tensor 't': unknown ggml type id 31" + at(type_at));
    Gguf q;
    q.header(1, 0).str("t").u32(1).u64(16).u32(2).u64(0);
    CHECK_GG_ERROR(q.b, ErrorCode::BadFile,
                   "x.gguf: tensor 't': row of 16 elements is not a multiple of the Q4_0 block size 32" + at(type_at));
  }
  SUBCASE("tensor data past the end of the file, misaligned or overlapping") {
    Gguf g;
    g.header(1, 0).info("t", {4}, 0, 0).pad().raw("12345678");
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile,
                   "x.gguf: tensor 't': data offset 0 + 16 bytes is past the end of the file (" + std::to_string(g.at()) +
                       " bytes)" + at(24));
    Gguf m;
    m.header(1, 0).info("t", {1}, 0, 4).pad().raw(std::string(8, '\0'));
    CHECK_GG_ERROR(m.b, ErrorCode::BadFile, "x.gguf: tensor 't': data offset 4 is not a multiple of the alignment 32" + at(24));
    Gguf o;
    o.header(2, 0).info("a", {2}, 0, 0);
    const std::uint64_t b_at = o.at();
    o.info("b", {1}, 0, 0).pad().raw(std::string(8, '\0'));
    CHECK_GG_ERROR(o.b, ErrorCode::BadFile, "x.gguf: tensor 'b': data at offset 0 overlaps tensor 'a' (0 + 8 bytes)" + at(b_at));
  }
  SUBCASE("duplicate tensor names") {
    Gguf g;
    g.header(2, 0).info("a", {1}, 0, 0);
    const std::uint64_t second = g.at();
    g.info("a", {1}, 0, 32).pad().raw(std::string(36, '\0'));
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: duplicate tensor name 'a'" + at(second));
  }
}

TEST_CASE("gguf: a file with no tensors may end before the aligned data section") {
  Gguf g;
  g.header(0, 1).kv_u32("n", 1);  // 41 bytes; the data section would start at 64
  const ti::LoadedFile f = open_gg(g.b);
  CHECK(f.tensors.empty());
  CHECK(f.metadata.size() == 1);
}

TEST_CASE("gguf: strings keep \\r and escape invalid UTF-8 as Python's backslashreplace does") {
  Gguf g;
  g.header(0, 1).str("s").u32(8).str("a\r\xff\xc3\xa9\xed\xa0\x80");
  const ti::LoadedFile f = open_gg(g.b);
  // é (c3 a9) is valid; ff and the surrogate ed a0 80 are not.
  CHECK(f.metadata[0].value == "a\r\\xff\xc3\xa9\\xed\\xa0\\x80");
  CHECK_NOTHROW((void)f.metadata[0].value.dump());
}

TEST_CASE("gguf: sniff matches the magic") {
  const std::string yes = Gguf().header(0, 0).b;
  std::vector<std::byte> v(yes.size());
  std::memcpy(v.data(), yes.data(), yes.size());
  CHECK(ti::sniff_gguf(v));
  CHECK_FALSE(ti::sniff_gguf(std::span(v).first(3)));
  v[3] = std::byte{'X'};
  CHECK_FALSE(ti::sniff_gguf(v));
}

TEST_CASE("gguf: the sample's quantized tensors dequantize to the values NumPy computed from ggml's formulas") {
  const ti::LoadedFile f = ti::open_file(kSamples + "quants.gguf");
  CHECK(f.format == "gguf");
  std::ifstream in(kSamples + "gguf_expected.json");
  REQUIRE(in.good());
  const nlohmann::json expected = nlohmann::json::parse(in);
  REQUIRE(expected.size() == 11);
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    CAPTURE(it.key());
    const ti::TensorEntry& e = entry(f, it.key());
    CHECK(e.stored_type == (*it)["type"].get<std::string>());
    CHECK(e.dtype == ti::DType::Float32);
    CHECK(e.shape == (*it)["shape"].get<ti::Shape>());
    const ti::Tensor t = e.load();
    CHECK(t.dtype() == ti::DType::Float32);
    CHECK(t.shape() == e.shape);
    const std::vector<double> got = doubles(t);
    const auto want = (*it)["values"].get<std::vector<double>>();
    REQUIRE(got.size() == want.size());
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i] && mismatches++ < 3) CHECK_MESSAGE(false, "element " << i << ": " << got[i] << " != " << want[i]);
    CHECK(mismatches == 0);
  }
  const ti::TensorEntry& q4 = entry(f, "q4_0");
  CHECK(q4.stored_shape == ti::Shape{32, 2});
  CHECK(q4.nbytes == 36);
  CHECK(q4.note == "blocks of 32 elements in 18 bytes, dequantized to float32");
  CHECK(entry(f, "q6_k").nbytes == 210);
}

TEST_CASE("gguf: the sample's plain tensors, unsupported quants and every metadata type") {
  const ti::LoadedFile f = ti::open_file(kSamples + "quants.gguf");
  CHECK(f.tensors.size() == 15);
  CHECK(f.tensors[0].name == "f32");
  CHECK(f.tensors[0].shape == ti::Shape{2, 3});
  CHECK(f.tensors[0].offset % 64 == 0);
  CHECK(doubles(f.tensors[0].load()) == std::vector<double>{-1.0, -0.5, 0.0, 0.5, 1.0, 1.5});
  CHECK(doubles(entry(f, "f16").load()) == std::vector<double>{0.0999755859375, -2.0, 0.5, 1024.0});
  CHECK(doubles(entry(f, "i32").load()) == std::vector<double>{-7, 123456});
  const ti::TensorEntry& iq = entry(f, "iq4_nl");
  CHECK(iq.stored_type == "IQ4_NL");
  CHECK_FALSE(iq.dtype.has_value());
  CHECK(iq.nbytes == 18);
  CHECK_THROWS_WITH_AS(iq.load(), (kSamples + "quants.gguf: tensor 'iq4_nl' is IQ4_NL, which this tool cannot dequantize").c_str(),
                       ti::Error);

  CHECK(f.metadata.size() == 16);
  CHECK(meta(f, "general.alignment").value == 64);
  CHECK(meta(f, "test.u8").value == 200);
  CHECK(meta(f, "test.i8").value == -5);
  CHECK(meta(f, "test.u16").value == 65535);
  CHECK(meta(f, "test.i16").value == -300);
  CHECK(meta(f, "test.i32").value == -70000);
  CHECK(meta(f, "test.u64").value.get<std::uint64_t>() == 9223372036854775813ull);
  CHECK(meta(f, "test.i64").value == -1099511627776);
  CHECK(meta(f, "test.f32").type == "float32");
  CHECK(meta(f, "test.f32").value.get<double>() == 0.10000000149011612);
  CHECK(meta(f, "test.f64").value.get<double>() == 0.1);
  CHECK(meta(f, "test.bool").value == true);
  CHECK(meta(f, "test.strings").type == "array[string]");
  CHECK(meta(f, "test.strings").value == nlohmann::ordered_json{"a", "b\r", "caf\xc3\xa9"});
  CHECK(meta(f, "test.bad_utf8").value == "ok\\xff\r\n");
  CHECK(meta(f, "test.nested").type == "array[array[int32]]");
  CHECK(meta(f, "test.nested").value == nlohmann::ordered_json{{1, 2}, {3}});
  CHECK(meta(f, "test.empty").type == "array[float32]");
  CHECK(meta(f, "test.empty").value == nlohmann::ordered_json::array());
}

TEST_CASE("gguf: ggml's type table has the ids and block sizes of ggml.h and ggml-common.h") {
  struct Row { std::uint32_t id; const char* name; std::uint32_t elems, bytes; };
  for (const Row& r : {Row{0, "F32", 1, 4}, Row{1, "F16", 1, 2}, Row{2, "Q4_0", 32, 18}, Row{3, "Q4_1", 32, 20},
                       Row{6, "Q5_0", 32, 22}, Row{7, "Q5_1", 32, 24}, Row{8, "Q8_0", 32, 34}, Row{10, "Q2_K", 256, 84},
                       Row{11, "Q3_K", 256, 110}, Row{12, "Q4_K", 256, 144}, Row{13, "Q5_K", 256, 176},
                       Row{14, "Q6_K", 256, 210}, Row{15, "Q8_K", 256, 292}, Row{24, "I8", 1, 1}, Row{27, "I64", 1, 8},
                       Row{28, "F64", 1, 8}, Row{30, "BF16", 1, 2}}) {
    CAPTURE(r.id);
    const ti::GgmlType* t = ti::ggml_type_from_id(r.id);
    REQUIRE(t != nullptr);
    CHECK(t->name == r.name);
    CHECK(t->block_elems == r.elems);
    CHECK(t->block_bytes == r.bytes);
  }
  for (std::uint32_t removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 43u}) CHECK(ti::ggml_type_from_id(removed) == nullptr);
}

TEST_CASE("gguf: the real files of other projects behave as EXPECTED.md says") {
  if (!std::filesystem::exists(kRealData + "ollama_llama-2-tiny-random.gguf")) {
    MESSAGE("no " << kRealData << ": skipped");
    return;
  }
  SUBCASE("ollama's tiny random llama: 18 metadata entries, 12 F16/F32 tensors") {
    const ti::LoadedFile f = ti::open_file(kRealData + "ollama_llama-2-tiny-random.gguf");
    CHECK(f.metadata.size() == 18);
    CHECK(meta(f, "general.architecture").value == "llama");
    CHECK(meta(f, "llama.embedding_length").value == 8);
    CHECK(meta(f, "llama.attention.layer_norm_rms_epsilon").value.get<double>() == 9.999999747378752e-06);
    const ti::MetaEntry& tokens = meta(f, "tokenizer.ggml.tokens");
    CHECK(tokens.type == "array[string]");
    REQUIRE(tokens.value.size() == 32000);
    bool carriage_return = false;
    for (const auto& tok : tokens.value) carriage_return |= tok.get<std::string>().find('\r') != std::string::npos;
    CHECK(carriage_return);
    CHECK_NOTHROW((void)tokens.value.dump());

    REQUIRE(f.tensors.size() == 12);
    const std::vector<std::pair<std::string, ti::Shape>> shapes = {
        {"token_embd.weight", {32000, 8}},    {"blk.0.attn_q.weight", {8, 8}},  {"blk.0.attn_k.weight", {8, 8}},
        {"blk.0.attn_v.weight", {8, 8}},      {"blk.0.attn_output.weight", {8, 8}},
        {"blk.0.ffn_gate.weight", {32, 8}},   {"blk.0.ffn_up.weight", {32, 8}}, {"blk.0.ffn_down.weight", {8, 32}},
        {"blk.0.attn_norm.weight", {8}},      {"blk.0.ffn_norm.weight", {8}},   {"output_norm.weight", {8}},
        {"output.weight", {32000, 8}}};
    for (const auto& item : shapes) {
      const std::string& name = item.first;
      const ti::Shape& shape = item.second;
      CAPTURE(name);
      const ti::TensorEntry& e = entry(f, name);
      CHECK(e.shape == shape);
      CHECK(e.stored_type == (shape.size() == 1 ? "F32" : "F16"));
      CHECK(e.dtype == (shape.size() == 1 ? ti::DType::Float32 : ti::DType::Float16));
    }
    const std::vector<double> embd = doubles(entry(f, "token_embd.weight").load().shrink({{0, 2}, {0, 8}}));
    CHECK(std::vector<double>(embd.begin(), embd.begin() + 8) == std::vector<double>(8, 0.0));
    CHECK(std::vector<double>(embd.begin() + 8, embd.end()) ==
          std::vector<double>{0.034088134765625, 0.0158843994140625, 0.01776123046875, -0.02484130859375,
                              -0.0306854248046875, 0.01349639892578125, 0.018768310546875, -0.0203704833984375});
    const std::vector<double> q = doubles(entry(f, "blk.0.attn_q.weight").load());
    CHECK(std::vector<double>(q.begin(), q.begin() + 8) ==
          std::vector<double>{0.024261474609375, 0.0196990966796875, -0.0509033203125, -0.041351318359375,
                              0.0223541259765625, 0.0037899017333984375, -0.007671356201171875, -0.0003211498260498047});
    for (const char* norm : {"blk.0.attn_norm.weight", "blk.0.ffn_norm.weight", "output_norm.weight"})
      CHECK(doubles(entry(f, norm).load()) == std::vector<double>(8, 1.0));
  }
  SUBCASE("llama.cpp's phi-3 vocabulary: 26 metadata entries, no tensors, ends before the data section") {
    const ti::LoadedFile f = ti::open_file(kRealData + "llamacpp_ggml-vocab-phi-3.gguf");
    CHECK(f.format == "gguf");
    CHECK(f.metadata.size() == 26);
    CHECK(f.tensors.empty());
    const std::string tmpl = meta(f, "tokenizer.chat_template").value.get<std::string>();
    CHECK(tmpl.size() == 269);
    CHECK(tmpl.find('\n') != std::string::npos);
    CHECK(meta(f, "tokenizer.ggml.tokens").value.size() == 32064);
    for (const auto& m : f.metadata) CHECK_NOTHROW((void)m.value.dump());
  }
}

TEST_CASE("gguf: the first part of a split model lists the tensors of every part") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ti_gguf_split_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // llama.cpp's gguf-split keys: split.no and split.count are uint16, split.tensors.count int32.
  auto part = [&](unsigned no, std::uint32_t tensors_total, const std::vector<std::string>& names) {
    Gguf g;
    g.header(names.size(), 3).str("split.no").u32(2).raw(std::string{static_cast<char>(no), '\0'});
    g.str("split.count").u32(2).raw(std::string("\x02\x00", 2)).str("split.tensors.count").u32(5).u32(tensors_total);
    std::uint64_t offset = 0;
    for (const std::string& n : names) g.info(n, {1}, 0, offset), offset += 32;
    g.pad();
    for (std::size_t i = 0; i < names.size(); ++i) g.raw(std::string("\x00\x00\x80\x3f", 4)).pad();  // 1.0f
    const std::string path = (dir / ("m-0000" + std::to_string(no + 1) + "-of-00002.gguf")).string();
    std::ofstream(path, std::ios::binary) << g.b;
    return path;
  };
  const std::string first = part(0, 3, {"a"});
  SUBCASE("two parts, three tensors") {
    const std::string second = part(1, 3, {"b", "c"});
    const ti::LoadedFile f = ti::open_file(first);
    REQUIRE(f.tensors.size() == 3);
    CHECK(f.tensors[0].name == "a");
    CHECK(f.tensors[0].note == "in part 1 of 2");
    CHECK(f.tensors[2].name == "c");
    CHECK(f.tensors[2].note == "in part 2 of 2");
    CHECK(doubles(f.tensors[2].load()) == std::vector<double>{1.0});
    CHECK(ti::open_file(second).tensors.size() == 2);  // a later part opens alone
  }
  SUBCASE("a tensor in two parts") {
    const std::string second = part(1, 3, {"b", "a"});
    CHECK_THROWS_WITH_AS(ti::open_file(first), (second + ": tensor 'a' is also in an earlier part").c_str(), ti::Error);
  }
  SUBCASE("a tensor count that does not match split.tensors.count") {
    part(1, 3, {"b"});
    CHECK_THROWS_WITH_AS(ti::open_file(first),
                         (first + ": split.tensors.count is 3, but the 2 parts hold 2 tensors").c_str(), ti::Error);
  }
  SUBCASE("a missing part is an I/O error") {
    try {
      ti::open_file(first);
      FAIL("no error");
    } catch (const ti::Error& e) {
      CHECK(e.code() == ti::ErrorCode::Io);
    }
  }
  std::filesystem::remove_all(dir);
}
