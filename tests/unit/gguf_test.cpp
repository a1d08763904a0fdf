// Tests of loaders/gguf.cpp on headers built byte by byte (gguf_builder.hpp): what a good
// header gives, and hostile ones refused naming the field and the byte. Whole files (the
// sample, real files of other projects, split models) are in gguf_samples_test.cpp.
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

TEST_CASE("gguf: a v3 header gives metadata and tensors, shapes row-major, data aligned") {
  Gguf g;
  g.header(2, 2).str("general.name").u32(8).str("tiny").kv_u32("n", 7);
  g.info("w", {2, 3}, 0, 0).info("h", {2}, 1, 32).pad();
  const std::uint64_t data = g.at();
  g.raw(std::string("\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\xa0\x40\x00\x00\xc0\x40",
                    24));
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
  CHECK(f.tensors[0].stored_order() == ti::Shape{2, 3});
  CHECK(!f.tensors[0].details().stored_shape);  // a flag, not a second shape: GGUF entries keep no details
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
    CHECK_GG_ERROR(Gguf().header(0, 1).u64(std::uint64_t{1} << 40).raw("abcde").b, ErrorCode::LimitExceeded,
                   "x.gguf: metadata key length 1099511627776 exceeds the limit of 65536 (limit gguf_key_bytes; raise "
                   "it with --limit gguf_key_bytes=N)" +
                       at(32));
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
    CHECK_GG_ERROR(
        g.b, ErrorCode::BadFile,
        "x.gguf: metadata 'k': array of 4611686018427387904 uint32 elements does not fit in the 0 bytes left" +
            at(array_at));
    Gguf s;
    s.header(0, 1).str("k").u32(9);
    const std::uint64_t strings_at = s.at();
    s.u32(8).u64(3).str("a").str("b");  // 3 strings need at least 24 bytes; 18 follow
    CHECK_GG_ERROR(
        s.b, ErrorCode::BadFile,
        "x.gguf: metadata 'k': array of 3 string elements does not fit in the 18 bytes left" + at(strings_at));
  }
  SUBCASE("more array elements in all metadata than the limit of 2**24") {
    Gguf g;
    g.header(0, 2).str("a").u32(9).u32(0).u64(1).raw(std::string(1, '\0')).str("b").u32(9);
    const std::uint64_t array_at = g.at();
    g.u32(0).u64(std::uint64_t{1} << 24).raw(std::string(std::size_t{1} << 24, '\0'));  // 1 + 2**24 uint8 in all
    CHECK_GG_ERROR(g.b, ErrorCode::LimitExceeded,
                   "x.gguf: metadata 'b': array of 16777216 elements goes over the limit of 16777216 array elements "
                   "in all metadata (limit gguf_array_elements; raise it with --limit gguf_array_elements=N)" +
                       at(array_at));
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
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: duplicate metadata key 'k' (first at byte 24)" + at(second));
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
    CHECK_GG_ERROR(b.b, ErrorCode::BadFile,
                   "x.gguf: tensor 't': dimension 18446744073709551615 is too large" + at(big_at));
  }
  SUBCASE("unknown and removed ggml type ids, rows that split a block") {
    Gguf g;
    g.header(1, 0).str("t").u32(1).u64(4);
    const std::uint64_t type_at = g.at();
    g.u32(99).u64(0);
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: tensor 't': ggml type 99 is not defined by ggml" + at(type_at));
    Gguf r;
    r.header(1, 0).str("t").u32(1).u64(4).u32(31).u64(0);  // Q4_0_4_4, removed from GGUF
    CHECK_GG_ERROR(r.b, ErrorCode::BadFile,
                   "x.gguf: tensor 't': ggml type 31 (Q4_0_4_4) was removed from GGUF files" + at(type_at));
    Gguf q;
    q.header(1, 0).str("t").u32(1).u64(16).u32(2).u64(0);
    CHECK_GG_ERROR(q.b, ErrorCode::BadFile,
                   "x.gguf: tensor 't': row of 16 elements is not a multiple of the Q4_0 block size 32" + at(type_at));
  }
  SUBCASE("tensor data past the end of the file, misaligned or overlapping") {
    Gguf g;
    g.header(1, 0).info("t", {4}, 0, 0).pad().raw("12345678");
    // File offsets only: the data at byte 64 (offset 0 in the data section), 16 bytes long.
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile,
                   "x.gguf: tensor 't': data [64, +16) runs past the end of the file (" + std::to_string(g.at()) +
                       " bytes)" + at(24));
    Gguf m;
    m.header(1, 0).info("t", {1}, 0, 4).pad().raw(std::string(8, '\0'));
    CHECK_GG_ERROR(m.b, ErrorCode::BadFile,
                   "x.gguf: tensor 't': data offset 4 is not a multiple of the alignment 32" + at(24));
    Gguf o;
    o.header(2, 0).info("a", {2}, 0, 0);
    const std::uint64_t b_at = o.at();
    o.info("b", {1}, 0, 0).pad().raw(std::string(8, '\0'));
    CHECK_GG_ERROR(o.b, ErrorCode::BadFile,
                   "x.gguf: tensor 'b': data at offset 0 overlaps tensor 'a' (0 + 8 bytes)" + at(b_at));
  }
  SUBCASE("duplicate tensor names") {
    Gguf g;
    g.header(2, 0).info("a", {1}, 0, 0);
    const std::uint64_t second = g.at();
    g.info("a", {1}, 0, 32).pad().raw(std::string(36, '\0'));
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile, "x.gguf: duplicate tensor name 'a' (first at byte 24)" + at(second));
  }
  SUBCASE("a tensor name that is not UTF-8 is refused at its bad byte, not confused with its escape") {
    // gguf.md: names are UTF-8 strings. 'w' 0xff once read as the text "w\\xff" and then
    // collided with a tensor really named so (finding 15).
    Gguf g;
    g.header(2, 0);
    const std::uint64_t first = g.at();
    g.info("w\xff", {1}, 0, 0).info("w\\xff", {1}, 0, 32).pad().raw(std::string(36, '\0'));
    CHECK_GG_ERROR(g.b, ErrorCode::BadFile,
                   "x.gguf: tensor name 'w\\xff' is not UTF-8 as GGUF requires (byte 0xff)" + at(first + 8 + 1));
    Gguf k;
    k.header(0, 1);
    const std::uint64_t key_at = k.at();
    k.kv_u32("k\xc3", 1);  // a cut two-byte sequence
    CHECK_GG_ERROR(k.b, ErrorCode::BadFile,
                   "x.gguf: metadata key 'k\\xc3' is not UTF-8 as GGUF requires (byte 0xc3)" + at(key_at + 8 + 1));
  }
}

TEST_CASE("gguf: a file with no tensors may end before the aligned data section") {
  Gguf g;
  g.header(0, 1).kv_u32("n", 1);  // 41 bytes; the data section would start at 64
  const ti::LoadedFile f = open_gg(g.b);
  CHECK(f.tensors.empty());
  CHECK(f.metadata.size() == 1);
}

TEST_CASE("gguf: a name that is literally backslash-x text is kept as its bytes and is distinct from others") {
  Gguf g;
  g.header(2, 0).info("w\\xff", {1}, 0, 0).info("w", {1}, 0, 32).pad().raw(std::string(36, '\0'));
  const ti::LoadedFile f = open_gg(g.b);
  REQUIRE(f.tensors.size() == 2);
  CHECK(f.tensors[0].name == std::string("w\\xff"));
  CHECK(f.tensors[0].name.size() == 5);
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
