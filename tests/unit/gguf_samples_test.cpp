// Tests of loaders/gguf.cpp and loaders/gguf_quants.cpp on whole files: the sample written
// by samples/make_gguf_samples.py (with the dequantized values NumPy computed from ggml's
// block formulas in samples/gguf_expected.json), ggml's type table, the real files of
// other projects (../shared/realdata/EXPECTED.md) and split models. Headers built byte by
// byte are in gguf_test.cpp.
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
#include "decode/ggml_types.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "gguf_builder.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::doubles;
using test_util::kRealData;
using test_util::kSamples;

using gguf_builder::at;
using gguf_builder::entry;
using gguf_builder::Gguf;
using gguf_builder::meta;
using gguf_builder::open_gg;

}  // namespace

TEST_CASE("gguf: the sample's quantized tensors dequantize to the values NumPy computed from ggml's formulas") {
  const ti::LoadedFile f = ti::open_file(kSamples + "quants.gguf");
  CHECK(f.format == "gguf");
  std::ifstream in(kSamples + "gguf_expected.json");
  REQUIRE(in.good());
  const nlohmann::json expected = nlohmann::json::parse(in);
  REQUIRE(expected.size() == 14);
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
      if (got[i] != want[i] && mismatches++ < 3)
        CHECK_MESSAGE(false, "element " << i << ": " << got[i] << " != " << want[i]);
    CHECK(mismatches == 0);
  }
  const ti::TensorEntry& q4 = entry(f, "q4_0");
  CHECK(q4.stored_order() == ti::Shape{32, 2});
  CHECK(q4.nbytes == 36);
  CHECK(q4.note == "blocks of 32 elements in 18 bytes, dequantized to float32");
  CHECK(entry(f, "q6_k").nbytes == 210);
}

TEST_CASE("gguf: a listing's rows say of each tensor what its entry says, reusing one entry") {
  // The entries of open_file are checked against NumPy above; the rows of open_listing must
  // list the same, field by field, though one entry is filled over and over (a quantized row
  // after a plain one and back: nothing of the last row may stay).
  const ti::LoadedFile f = ti::open_file(kSamples + "quants.gguf");
  const ti::LoadedFile l = ti::open_listing(kSamples + "quants.gguf");
  REQUIRE(l.rows);
  CHECK(l.tensors.empty());
  CHECK(l.format == "gguf");
  CHECK(l.metadata.size() == f.metadata.size());
  REQUIRE(l.rows->size() == f.tensors.size());
  ti::ListedTensors rows(l);
  std::size_t quantized = 0, plain = 0;
  for (std::size_t pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < f.tensors.size(); ++i) {
      const std::size_t k = pass ? f.tensors.size() - 1 - i : i;  // backwards too: other neighbours
      const ti::TensorEntry& want = f.tensors[k];
      const ti::TensorEntry& got = rows.at(k);
      CAPTURE(want.name);
      CHECK(got.name == want.name);
      CHECK(got.stored_type == want.stored_type);
      CHECK(got.dtype == want.dtype);
      CHECK(got.shape == want.shape);
      CHECK(got.stored_order() == want.stored_order());
      CHECK(got.offset == want.offset);
      CHECK(got.nbytes == want.nbytes);
      CHECK(got.note == want.note);
      CHECK(got.details().ggml_type == want.details().ggml_type);
      CHECK(static_cast<bool>(got.details().blocks_file) == static_cast<bool>(want.details().blocks_file));
      CHECK(static_cast<bool>(got.file) == static_cast<bool>(want.file));
      (want.file ? plain : quantized) += 1;
    }
  CHECK(plain > 0);
  CHECK(quantized > 0);
  CHECK(ti::ListedTensors(f).size() == f.tensors.size());
  CHECK(&ti::ListedTensors(f).at(1) == &f.tensors[1]);  // entries are read in place
}

TEST_CASE("gguf: the sample's plain tensors, unsupported quants and every metadata type") {
  const ti::LoadedFile f = ti::open_file(kSamples + "quants.gguf");
  CHECK(f.tensors.size() == 18);
  CHECK(f.tensors[0].name == "f32");
  CHECK(f.tensors[0].shape == ti::Shape{2, 3});
  CHECK(f.tensors[0].offset % 64 == 0);
  CHECK(doubles(f.tensors[0].load()) == std::vector<double>{-1.0, -0.5, 0.0, 0.5, 1.0, 1.5});
  CHECK(doubles(entry(f, "f16").load()) == std::vector<double>{0.0999755859375, -2.0, 0.5, 1024.0});
  CHECK(doubles(entry(f, "i32").load()) == std::vector<double>{-7, 123456});
  const ti::TensorEntry& iq = entry(f, "q8_1");
  CHECK(iq.stored_type == "Q8_1");
  CHECK_FALSE(iq.dtype.has_value());
  CHECK(iq.nbytes == 36);
  CHECK_THROWS_WITH_AS(iq.load(), (kSamples + "quants.gguf: tensor 'q8_1' is Q8_1, which this tool cannot dequantize: "
                                          "ggml and gguf-py have no dequantization for it").c_str(),
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
  CHECK(meta(f, "test.strings").decoded() == nlohmann::ordered_json{"a", "b\r", "caf\xc3\xa9"});
  CHECK(meta(f, "test.bad_utf8").value == "ok\\xff\r\n");
  CHECK(meta(f, "test.nested").type == "array[array[int32]]");
  CHECK(meta(f, "test.nested").decoded() == nlohmann::ordered_json{{1, 2}, {3}});
  CHECK(meta(f, "test.empty").type == "array[float32]");
  CHECK(meta(f, "test.empty").decoded() == nlohmann::ordered_json::array());
}

TEST_CASE("gguf: ggml's type table has the ids and block sizes of ggml.h and ggml-common.h") {
  struct Row { std::uint32_t id; const char* name; std::uint32_t elems, bytes; };
  for (const Row& r : {Row{0, "F32", 1, 4}, Row{1, "F16", 1, 2}, Row{2, "Q4_0", 32, 18}, Row{3, "Q4_1", 32, 20},
                       Row{6, "Q5_0", 32, 22}, Row{7, "Q5_1", 32, 24}, Row{8, "Q8_0", 32, 34}, Row{10, "Q2_K", 256, 84},
                       Row{11, "Q3_K", 256, 110}, Row{12, "Q4_K", 256, 144}, Row{13, "Q5_K", 256, 176},
                       Row{14, "Q6_K", 256, 210}, Row{15, "Q8_K", 256, 292}, Row{24, "I8", 1, 1}, Row{27, "I64", 1, 8},
                       Row{28, "F64", 1, 8}, Row{30, "BF16", 1, 2}, Row{16, "IQ2_XXS", 256, 66},
                       Row{17, "IQ2_XS", 256, 74}, Row{18, "IQ3_XXS", 256, 98}, Row{19, "IQ1_S", 256, 50},
                       Row{20, "IQ4_NL", 32, 18}, Row{21, "IQ3_S", 256, 110}, Row{22, "IQ2_S", 256, 82},
                       Row{23, "IQ4_XS", 256, 136}, Row{29, "IQ1_M", 256, 56}, Row{34, "TQ1_0", 256, 54},
                       Row{35, "TQ2_0", 256, 66}, Row{39, "MXFP4", 32, 17}, Row{40, "NVFP4", 64, 36},
                       Row{41, "Q1_0", 128, 18}, Row{42, "Q2_0", 64, 18}, Row{9, "Q8_1", 32, 36}}) {
    CAPTURE(r.id);
    const ti::GgmlType* t = ti::ggml_type_from_id(r.id);
    REQUIRE(t != nullptr);
    CHECK(t->name == r.name);
    CHECK(t->block_elems == r.elems);
    CHECK(t->block_bytes == r.bytes);
  }
  for (std::uint32_t removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 43u})
    CHECK(ti::ggml_type_from_id(removed) == nullptr);
  // Every quantized type but Q8_1 (which ggml itself cannot dequantize) has a decoder.
  for (std::uint32_t id = 0; id < 43; ++id)
    if (const ti::GgmlType* t = ti::ggml_type_from_id(id); t && !t->dtype) CHECK(t->dequantizable == (id != 9));
}

TEST_CASE("gguf: ids ggml removed are named as removed, others as undefined") {
  CHECK(ti::ggml_unknown_type_reason(31) == "ggml type 31 (Q4_0_4_4) was removed from GGUF files");
  CHECK(ti::ggml_unknown_type_reason(4) == "ggml type 4 (Q4_2) was removed from GGUF files");
  CHECK(ti::ggml_unknown_type_reason(38) == "ggml type 38 (IQ4_NL_8_8) was removed from GGUF files");
  CHECK(ti::ggml_unknown_type_reason(43) == "ggml type 43 is not defined by ggml");
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
    REQUIRE(tokens.array);
    REQUIRE(tokens.array->size() == 32000);
    const nlohmann::ordered_json token_values = tokens.decoded();
    REQUIRE(token_values.size() == 32000);
    bool carriage_return = false;
    for (const auto& tok : token_values) carriage_return |= tok.get<std::string>().find('\r') != std::string::npos;
    CHECK(carriage_return);
    CHECK_NOTHROW((void)token_values.dump());

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
                              0.0223541259765625, 0.0037899017333984375, -0.007671356201171875,
                              -0.0003211498260498047});
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
    CHECK(meta(f, "tokenizer.ggml.tokens").decoded().size() == 32064);
    for (const auto& m : f.metadata) CHECK_NOTHROW((void)m.decoded().dump());
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
    // A listing of the first part spans the parts: entries, not one part's rows.
    const ti::LoadedFile listed = ti::open_listing(first);
    CHECK(!listed.rows);
    REQUIRE(listed.tensors.size() == 3);
    CHECK(listed.tensors[2].note == "in part 2 of 2");
    const ti::LoadedFile alone = ti::open_listing(second);
    REQUIRE(alone.rows);
    CHECK(alone.rows->size() == 2);
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
