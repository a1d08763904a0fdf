// GGUF's one header parser under its two policies (loaders/gguf_header.cpp): loading stops
// at the first fault, validate collects them, and both name the same file byte; metadata
// arrays are left in the file and decoded on request (MetaArray). Files are written field
// by field (gguf_builder.hpp); expected bytes and values are counted from what was written.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gguf_builder.hpp"
#include "validate/findings.hpp"

namespace ti = tensor_inspect;

namespace {

using gguf_builder::at;
using gguf_builder::Gguf;
using gguf_builder::meta;
using gguf_builder::open_gg;

std::vector<ti::Finding> validate_gg(const std::string& bytes) {
  std::vector<ti::Finding> out;
  ti::validate::Findings f(out, "gguf");
  const std::vector<std::byte> b = test_util::bytes_of(bytes);
  ti::validate::check_gguf(b, f);
  return out;
}

std::string load_error(const std::string& bytes) {
  try {
    (void)open_gg(bytes);
  } catch (const ti::Error& e) {
    return e.what();
  }
  return "no error";
}

struct Case {
  const char* rule;
  std::string bytes;
  std::uint64_t at;  // the file byte both must name
};

}  // namespace

TEST_CASE("gguf: loading and validate name the same byte, with the same words, for the same fault") {
  std::vector<Case> cases;
  {
    Gguf g;
    g.header(0, 2).kv_u32("k", 1);
    const std::uint64_t second = g.at();
    g.kv_u32("k", 2);
    cases.push_back({"duplicate_key", g.b, second});
  }
  {
    Gguf g;
    g.header(0, 1).str("general.alignment").u32(4);
    const std::uint64_t value_at = g.at();
    g.u32(48);
    cases.push_back({"alignment", g.b, value_at});
  }
  {
    Gguf g;
    g.header(0, 1).str("k");
    const std::uint64_t type_at = g.at();
    g.u32(13).u64(0);
    cases.push_back({"value_type", g.b, type_at});
  }
  {
    Gguf g;
    g.header(0, 1);
    const std::uint64_t key_at = g.at();
    g.kv_u32("k\xc3", 1);
    cases.push_back({"utf8", g.b, key_at + 8 + 1});
  }
  {
    Gguf g;
    g.header(1, 0).str("t");
    const std::uint64_t ndims_at = g.at();
    g.u32(5).u64(1).u64(1).u64(1).u64(1).u64(1).u32(0).u64(0);
    cases.push_back({"n_dims", g.b, ndims_at});
  }
  {
    Gguf g;
    g.header(1, 0).str("t").u32(1).u64(4);
    const std::uint64_t type_at = g.at();
    g.u32(99).u64(0).pad();
    cases.push_back({"tensor_type", g.b, type_at});
    Gguf q;
    q.header(1, 0).str("t").u32(1).u64(16).u32(2).u64(0).pad().raw(std::string(32, '\0'));
    cases.push_back({"blocks", q.b, type_at});
  }
  {
    Gguf m;
    m.header(1, 0).info("t", {1}, 0, 4).pad().raw(std::string(40, '\0'));
    cases.push_back({"offset_alignment", m.b, 24});
    Gguf g;
    g.header(1, 0).info("t", {4}, 0, 0).pad().raw("12345678");
    cases.push_back({"bounds", g.b, 24});
    Gguf o;
    o.header(2, 0).info("a", {2}, 0, 0);
    const std::uint64_t b_at = o.at();
    o.info("b", {1}, 0, 0).pad().raw(std::string(8, '\0'));
    cases.push_back({"overlap", o.b, b_at});
    Gguf d;
    d.header(2, 0).info("a", {1}, 0, 0);
    const std::uint64_t second = d.at();
    d.info("a", {1}, 0, 32).pad().raw(std::string(36, '\0'));
    cases.push_back({"duplicate_tensor", d.b, second});
  }
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    const std::string loaded = load_error(c.bytes);
    const std::vector<ti::Finding> found = validate_gg(c.bytes);
    bool matched = false;
    for (const ti::Finding& f : found) {
      if (f.rule != std::string("gguf.") + c.rule) continue;
      matched = true;
      CHECK(f.severity == ti::Severity::Error);
      CHECK(f.offset == c.at);
      // Loading names the subject first ("tensor 't': "), validate has it as the place.
      const std::string tail = f.message + at(c.at);
      CHECK(loaded.rfind("x.gguf: ", 0) == 0);
      CHECK(loaded.size() >= tail.size());
      CHECK(loaded.compare(loaded.size() - std::min(loaded.size(), tail.size()), tail.size(), tail) == 0);
    }
    CHECK(matched);
  }
}

TEST_CASE("gguf: a hostile element count cannot wrap a tensor's byte size to nothing") {
  // F64 (ggml type 28, 8 bytes) of 2**62 elements: 2**65 bytes, which wrapped to 0 in
  // validate's unchecked numel * 8 (so the tensor 'fit' in any file). 2**62 elements pass
  // the element count check (below 2**63), the byte size does not.
  Gguf g;
  g.header(1, 0).str("t").u32(1);
  const std::uint64_t dim_at = g.at();
  g.u64(std::uint64_t{1} << 62).u32(28).u64(0).pad().raw(std::string(32, '\0'));
  CHECK(load_error(g.b) == "x.gguf: tensor 't': byte size overflows" + at(dim_at));
  const std::vector<ti::Finding> found = validate_gg(g.b);
  REQUIRE(found.size() == 1);
  CHECK(found[0].rule == "gguf.dims");
  CHECK(found[0].offset == dim_at);
  // 2**61 elements of 4 bytes: 2**63, one past the largest int64; 2**61 - 32 is fine as a
  // size and runs past the file's end instead.
  Gguf b;
  b.header(1, 0).str("t").u32(1).u64(std::uint64_t{1} << 61).u32(0).u64(0).pad();
  CHECK(load_error(b.b) == "x.gguf: tensor 't': byte size overflows" + at(24 + 8 + 1 + 4));
  Gguf s;
  s.header(1, 0).info("t", {(std::uint64_t{1} << 61) - 32}, 0, 0).pad();
  CHECK(load_error(s.b) == "x.gguf: tensor 't': data [64, +" + std::to_string((std::uint64_t{1} << 63) - 128) +
                               ") runs past the end of the file (64 bytes)" + at(24));
}

TEST_CASE("gguf: metadata arrays stay in the file and decode the items asked for") {
  Gguf g;
  g.header(0, 5);
  g.str("tok").u32(9).u32(8).u64(4).str("a").str("bc").str("").str("d\xff");
  g.str("ids").u32(9).u32(2).u64(3).raw(std::string("\x01\x00\xff\xff\x07\x00", 6));
  g.str("nested").u32(9).u32(9).u64(2);
  g.u32(5).u64(2).u32(1).u32(static_cast<std::uint32_t>(-2));
  g.u32(5).u64(1).u32(3);
  g.str("flags").u32(9).u32(7).u64(2).raw(std::string("\x01\x00", 2));
  g.str("n").u32(4).u32(7);
  const ti::LoadedFile f = open_gg(g.b);
  REQUIRE(f.metadata.size() == 5);
  const ti::MetaEntry& tok = meta(f, "tok");
  CHECK(tok.type == "array[string]");
  CHECK(tok.value.is_null());
  REQUIRE(tok.array);
  CHECK(tok.array->size() == 4);
  CHECK(tok.array->items(1, 2) == nlohmann::ordered_json{"bc", ""});
  CHECK(tok.array->items(3, 10) == nlohmann::ordered_json{"d\\xff"});  // clamped; bytes not UTF-8 escaped
  CHECK(tok.array->items(9, 1) == nlohmann::ordered_json::array());
  CHECK(tok.decoded() == nlohmann::ordered_json{"a", "bc", "", "d\\xff"});
  const ti::MetaEntry& ids = meta(f, "ids");
  CHECK(ids.type == "array[uint16]");
  CHECK(ids.array->items(1, 2) == nlohmann::ordered_json{65535, 7});
  const ti::MetaEntry& nested = meta(f, "nested");
  CHECK(nested.type == "array[array[int32]]");
  CHECK(nested.array->items(1, 1) == nlohmann::ordered_json{{3}});
  CHECK(nested.decoded() == nlohmann::ordered_json{{1, -2}, {3}});
  CHECK(meta(f, "flags").decoded() == nlohmann::ordered_json{true, false});
  CHECK(meta(f, "n").value == 7);
  CHECK_FALSE(meta(f, "n").array);
}

TEST_CASE("gguf: validate reads bools through the header model, in arrays too") {
  Gguf g;
  g.header(0, 2).str("b").u32(7);
  const std::uint64_t scalar_at = g.at();
  g.raw(std::string("\x02", 1)).str("bs").u32(9).u32(7).u64(3);
  const std::uint64_t items_at = g.at();
  g.raw(std::string("\x00\x01\x05", 3));
  const std::vector<ti::Finding> found = validate_gg(g.b);
  REQUIRE(found.size() == 2);
  CHECK(found[0].rule == "gguf.bool");
  CHECK(found[0].offset == scalar_at);
  CHECK(found[1].rule == "gguf.bool");
  CHECK(found[1].offset == items_at + 2);
  CHECK(found[1].message == "bool value 5 is neither 0 nor 1");
}
