// Tests of loaders/npz.cpp and loaders/zip_archive.cpp: the real candle file, the samples
// NumPy wrote (values from NumPy in samples/npz_expected.json), and hostile archives
// built byte by byte (zip_builder.hpp). Byte offsets in messages were worked out by hand
// from the layout: local header 30 bytes + name + extra, central entry 46 + name.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "loaders/formats.hpp"
#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/render.hpp"
#include "test_util.hpp"
#include "zip_builder.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::code_of;
using test_util::kRealData;
using test_util::kSamples;
using test_util::tolist;

// A .npy as NumPy writes it: version 1.0, the header padded so the data starts at a multiple of 64.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data) {
  return test_util::npy(test_util::npy_header(descr, shape, false, true), data);
}

ti::LoadedFile open_zip(const std::vector<zip_test::Member>& members) {
  return ti::open_npz(zip_test::file_of(zip_test::build(members), "x.npz"));
}

// struct.pack('<3h', 1, -2, 3)
const std::string kI2Data("\x01\x00\xfe\xff\x03\x00", 6);

}  // namespace

TEST_CASE("npz: candle_test.npz lists x and x_plus_one, data after the LOCAL extra field") {
  const std::string path = kRealData + "candle_test.npz";
  if (!std::filesystem::exists(path)) {
    MESSAGE("no " << path << ": skipped");
    return;
  }
  const ti::LoadedFile f = ti::open_file(path);
  CHECK(f.format == "npz");
  REQUIRE(f.tensors.size() == 2);
  CHECK(f.tensors[0].name == "x");
  CHECK(f.tensors[1].name == "x_plus_one");
  // x.npy: local header at 0, 30 + 5 (name) + 20 (local zip64 extra) + 128 (npy header).
  CHECK(f.tensors[0].offset == 183);
  // x_plus_one.npy: local header at 263 (hexdump), 263 + 30 + 14 + 20 + 128.
  CHECK(f.tensors[1].offset == 455);
  const ti::Tensor x = f.tensors[0].load();
  CHECK(x.node()->op == ti::Op::Buffer);  // zero copy: a DISK view of the .npz itself
  CHECK(ti::data(x).format == 'q');
  CHECK(ti::data(x).nbytes == 80);
  CHECK(tolist(x) == "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]");
  CHECK(tolist(f.tensors[1].load()) == "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]");
}

TEST_CASE("npz: np.savez and np.savez_compressed samples give NumPy's values") {
  std::ifstream in(kSamples + "npz_expected.json");
  const nlohmann::json expected = nlohmann::json::parse(in);
  for (const char* sample : {"arrays.npz", "arrays_compressed.npz"}) {
    CAPTURE(sample);
    const ti::LoadedFile f = ti::open_file(kSamples + sample);
    CHECK(f.format == "npz");
    const std::vector<std::string> names = test_util::names_of(f);
    CHECK(names == std::vector<std::string>{"weights", "ids", "mask", "big", "fortran"});
    for (const ti::TensorEntry& e : f.tensors) {
      CAPTURE(e.name);
      const nlohmann::json& want = expected.at(e.name);
      CHECK(e.stored_type == want.at("descr").get<std::string>());
      CHECK(e.shape == want.at("shape").get<ti::Shape>());
      CHECK(tolist(e.load()) == want.at("tolist").get<std::string>());
    }
  }
  SUBCASE("a compressed member is a producer: nothing inflated until realize") {
    const ti::LoadedFile f = ti::open_file(kSamples + "arrays_compressed.npz");
    CHECK(f.tensors[1].load().node()->op == ti::Op::Producer);
    CHECK(f.tensors[1].note == "deflated, inflated at realize");
  }
}

TEST_CASE("npz: hand-built archives: stored and deflated members, skipped non-.npy members") {
  const ti::LoadedFile f =
      open_zip({zip_test::stored("a.npy", npy("<i2", "(3,)", kI2Data)), zip_test::stored("notes.txt", "hello"),
                zip_test::deflated("b.npy", npy("<i2", "(3,)", kI2Data))});
  REQUIRE(f.tensors.size() == 2);
  CHECK(f.tensors[0].name == "a");
  CHECK(f.tensors[0].offset == 30 + 5 + 128);
  CHECK(f.tensors[1].name == "b");
  CHECK(tolist(f.tensors[0].load()) == "[1, -2, 3]");
  CHECK(tolist(f.tensors[1].load()) == "[1, -2, 3]");
  REQUIRE(f.metadata.size() == 1);
  CHECK(f.metadata[0].key == "notes.txt");
  CHECK(f.metadata[0].type == "skipped");
  // np.load lists every member (numpy/lib/npyio.py NpzFile.files): the skip is said once.
  REQUIRE(f.warnings.size() == 1);
  CHECK(f.warnings[0].find("member 'notes.txt' is not named <key>.npy: skipped (np.load lists it as 'notes.txt')") !=
        std::string::npos);
}

// np.load(path)['a'] of an archive holding members 'a' and 'a.npy' reads member 'a' (an exact
// name wins in NpzFile.__getitem__); the .npy member is np.load(path)['a.npy'] (checked with NumPy 1.24).
TEST_CASE("npz: beside a member named 'a', member 'a.npy' is listed as 'a.npy', not as the 'a' np.load gives") {
  const ti::LoadedFile f =
      open_zip({zip_test::stored("a.npy", npy("<i2", "(3,)", kI2Data)), zip_test::stored("a", "hello"),
                zip_test::stored("b.npy", npy("<i2", "(3,)", kI2Data))});
  REQUIRE(f.tensors.size() == 2);
  CHECK(f.tensors[0].name == "a.npy");
  CHECK(f.tensors[1].name == "b");
  CHECK(tolist(f.tensors[0].load()) == "[1, -2, 3]");
  REQUIRE(f.warnings.size() == 1);
  CHECK(f.warnings[0].find("member 'a' is not named <key>.npy: skipped (np.load lists it as 'a')") !=
        std::string::npos);
}

TEST_CASE("npz: zip64 members: sizes from the central zip64 extra field, data after the local one") {
  zip_test::Member a = zip_test::stored("a.npy", npy("<i2", "(3,)", kI2Data));
  zip_test::Member b = zip_test::deflated("b.npy", npy("<i2", "(3,)", kI2Data));
  a.zip64 = b.zip64 = true;
  const ti::LoadedFile f = open_zip({a, b});
  REQUIRE(f.tensors.size() == 2);
  CHECK(f.tensors[0].offset == 30 + 5 + 20 + 128);  // local header, name, zip64 extra, npy header
  CHECK(tolist(f.tensors[0].load()) == "[1, -2, 3]");
  CHECK(tolist(f.tensors[1].load()) == "[1, -2, 3]");
  SUBCASE("0xFFFFFFFF sizes without the zip64 extra field") {
    std::string bytes = zip_test::build({a});
    const std::size_t cd = bytes.size() - 22 - (46 + 5 + 20);
    bytes[cd + 30] = 0;  // central extra length 20 -> 0: the name is followed by 20 stray bytes
    CHECK_THROWS_WITH_AS(ti::open_npz(zip_test::file_of(bytes, "x.npz")),
                         ("x.npz: member 'a.npy': 0xFFFFFFFF size or offset without a zip64 extra field at byte " +
                          std::to_string(cd + 46 + 5))
                             .c_str(),
                         ti::Error);
  }
}

TEST_CASE("npz: detection by magic tells .npz from torch.save archives") {
  const std::string npz = zip_test::build({zip_test::stored("a.npy", npy("<i2", "(3,)", kI2Data))});
  const std::string pt = zip_test::build({zip_test::stored("archive/data.pkl", "\x80\x02}.")});
  auto head = [](const std::string& s) { return std::span(reinterpret_cast<const std::byte*>(s.data()), s.size()); };
  CHECK(ti::sniff_npz(head(npz)));
  CHECK_FALSE(ti::sniff_pytorch(head(npz)));
  CHECK(ti::sniff_pytorch(head(pt)));
  CHECK_FALSE(ti::sniff_npz(head(pt)));
  CHECK_FALSE(ti::sniff_npz(head(std::string("\x93NUMPY", 6))));
  SUBCASE("a first name cut off by the 64 sniffed bytes is left to the extension") {
    const std::string long_pt =
        zip_test::build({zip_test::stored("a_checkpoint_with_a_long_archive_name/data.pkl", "\x80\x02}.")});
    const auto first64 = head(long_pt).first(64);
    CHECK_FALSE(ti::sniff_npz(first64));
    CHECK_FALSE(ti::sniff_pytorch(first64));
    const std::string path =
        (std::filesystem::temp_directory_path() / ("ti_npz_test_long_name_" + std::to_string(::getpid()) + ".pt"))
            .string();
    std::ofstream(path, std::ios::binary) << long_pt;
    CHECK(ti::open_file(path).format == "pytorch");
    std::filesystem::remove(path);
  }
}

TEST_CASE("npz: corrupt and hostile archives give an Error naming the file, member and byte") {
  const std::string a = npy("<i2", "(3,)", kI2Data);  // 134 bytes: 128 header + 6 data
  const std::string good = zip_test::build({zip_test::stored("a.npy", a)});
  // Layout of `good`: local header 0..35, data 35..169, central entry 169..220, end record 220..242.
  REQUIRE(good.size() == 242);

  SUBCASE("truncated: the end record is gone") {
    CHECK_THROWS_WITH_AS(ti::open_npz(zip_test::file_of(good.substr(0, 120), "x.npz")),
                         "x.npz: not a valid zip archive (no end of central directory record in the last 120 bytes)",
                         ti::Error);
  }
  SUBCASE("shorter than an end record") {
    CHECK_THROWS_WITH_AS(ti::open_npz(zip_test::file_of("PK\x03\x04", "x.npz")),
                         "x.npz: not a valid zip archive (4 bytes is shorter than the 22-byte end record)", ti::Error);
  }
  SUBCASE("bad central directory signature") {
    std::string bad = good;
    bad[169] = 'X';
    CHECK_THROWS_WITH_AS(ti::open_npz(zip_test::file_of(bad, "x.npz")),
                         "x.npz: bad central directory entry signature (entry 0) at byte 169", ti::Error);
  }
  SUBCASE("central directory past the end of the file") {
    std::string bad = good;
    bad[220 + 16] = '\xc0';  // central directory offset 169 -> 192
    CHECK_THROWS_WITH_AS(ti::open_npz(zip_test::file_of(bad, "x.npz")),
                         "x.npz: central directory [192, +51) runs past the end of the file (242 bytes) at byte 220",
                         ti::Error);
  }
  SUBCASE("an entry count the central directory cannot hold") {
    std::string bad = good;
    bad[220 + 10] = '\x09';
    CHECK_THROWS_WITH_AS(ti::open_npz(zip_test::file_of(bad, "x.npz")),
                         "x.npz: 9 central directory entries cannot fit in 51 bytes at byte 220", ti::Error);
  }
  SUBCASE("member data past the end of the file") {
    zip_test::Member m = zip_test::stored("a.npy", a);
    m.size = m.comp_size = 5000;
    CHECK_THROWS_WITH_AS(open_zip({m}),
                         "x.npz: member 'a.npy': data [35, +5000) runs past the end of the file (242 bytes) at byte 0",
                         ti::Error);
  }
  SUBCASE("local header offset past the end of the file") {
    std::string bad = good;
    bad[169 + 42 + 1] = '\x10';  // local header offset 0 -> 4096
    CHECK_THROWS_WITH_AS(
        ti::open_npz(zip_test::file_of(bad, "x.npz")),
        "x.npz: member 'a.npy': local header offset 4096 is past the end of the file (242 bytes) at byte 169",
        ti::Error);
  }
  SUBCASE("bad local header signature") {
    std::string bad = good;
    bad[0] = 'X';
    CHECK_THROWS_WITH_AS(ti::open_npz(zip_test::file_of(bad, "x.npz")),
                         "x.npz: member 'a.npy': bad local header signature at byte 0", ti::Error);
  }
  SUBCASE("a stored member whose sizes disagree") {
    zip_test::Member m = zip_test::stored("a.npy", a);
    m.size = 60;
    CHECK_THROWS_WITH_AS(
        open_zip({m}),
        "x.npz: member 'a.npy': stored member declares 60 bytes uncompressed but 134 compressed at byte 0", ti::Error);
  }
  SUBCASE("a stored member whose shape needs more data than it holds") {
    CHECK_THROWS_WITH_AS(open_zip({zip_test::stored("a.npy", npy("<i2", "(1000000000,)", kI2Data))}),
                         "x.npz:a.npy: data at byte 128 is 6 bytes, shape (1000000000,) of <i2 needs 2000000000",
                         ti::Error);
  }
  SUBCASE("deflate bomb: a tiny shape, a member declaring far more bytes than header and shape") {
    const std::string padded = a + std::string(100000, '\0');
    CHECK_THROWS_WITH_AS(open_zip({zip_test::deflated("a.npy", padded)}),
                         "x.npz: member 'a.npy' (data at byte 35) declares 100134 bytes, but its header (128 bytes) "
                         "and shape (3,) (6 bytes) make 134",
                         ti::Error);
  }
  SUBCASE("deflate bomb: a declared size of 4 GB is refused before anything is inflated") {
    zip_test::Member m = zip_test::deflated("a.npy", a);
    m.size = 0xF0000000u;
    CHECK_THROWS_WITH_AS(open_zip({m}),
                         "x.npz: member 'a.npy': declares 4026531840 bytes uncompressed from 139 compressed, more "
                         "than the ratio 1032:1 deflate can reach (limit zip_ratio; raise it with --limit "
                         "zip_ratio=N) at byte 0",
                         ti::Error);
  }
  SUBCASE("a shape claiming far more data than a compressed member declares") {
    CHECK_THROWS_WITH_AS(open_zip({zip_test::deflated("a.npy", npy("<i2", "(1000000000,)", kI2Data))}),
                         "x.npz:a.npy: data at byte 128 is 6 bytes, shape (1000000000,) of <i2 needs 2000000000",
                         ti::Error);
  }
  SUBCASE("a deflate stream holding more than the member declares") {
    // 134 bytes declared, 234 in the stream: reading stops at the declared size.
    zip_test::Member m = zip_test::deflated("a.npy", a);
    m.raw = zip_test::deflate_stored(a + std::string(100, 'z'));
    CHECK(code_of([&] { (void)ti::data(open_zip({m}).tensors[0].load()); }) == ti::ErrorCode::BadFile);
  }
  SUBCASE("a deflate stream that ends inside the header") {
    zip_test::Member m = zip_test::deflated("a.npy", a);
    m.raw = zip_test::deflate_stored(a.substr(0, 40));
    CHECK_THROWS_WITH_AS(open_zip({m}),
                         "x.npz: member 'a.npy' (data at byte 35): corrupt data (CRC error)", ti::Error);
  }
  SUBCASE("a deflate stream that ends inside the data: listed, refused at realize") {
    zip_test::Member m = zip_test::deflated("a.npy", a);
    m.raw = zip_test::deflate_stored(a.substr(0, 130));
    const ti::LoadedFile f = open_zip({m});
    CHECK_THROWS_WITH_AS(ti::data(f.tensors[0].load()),
                         "x.npz: member 'a.npy' (data at byte 35): corrupt data (CRC error)", ti::Error);
  }
  SUBCASE("corrupt deflate data") {
    zip_test::Member m = zip_test::deflated("a.npy", a);
    m.raw = std::string("\x07\xff\xff\xff", 4);
    CHECK_THROWS_WITH_AS(open_zip({m}),
                         "x.npz: member 'a.npy' (data at byte 35): corrupt data (Zlib error: data error)", ti::Error);
  }
  SUBCASE("a CRC that does not match the inflated bytes") {
    zip_test::Member m = zip_test::deflated("a.npy", a);
    m.crc = 1234;
    const ti::LoadedFile f = open_zip({m});  // listing reads the header only: the CRC is checked at realize
    // both CRCs, the actual one from the test's own bitwise CRC-32 (zip_builder.hpp)
    char want[160];
    std::snprintf(
        want, sizeof want,
        "x.npz: member 'a.npy' (data at byte 35): CRC-32 of the data is 0x%08x, the archive declares 0x000004d2",
        zip_test::crc32(a));
    CHECK_THROWS_WITH_AS(ti::data(f.tensors[0].load()), want, ti::Error);
  }
  SUBCASE("a STORED member whose CRC does not match: check_whole says so, the lazy tensor reads in place") {
    zip_test::Member m = zip_test::stored("a.npy", a);
    m.crc = 1234;
    const ti::LoadedFile f = open_zip({m});
    (void)ti::data(f.tensors[0].load());  // a read in place meets no CRC
    REQUIRE(f.tensors[0].details().check_whole);
    char want[160];
    std::snprintf(
        want, sizeof want,
        "x.npz: member 'a.npy' (data at byte 35): CRC-32 of the data is 0x%08x, the archive declares 0x000004d2",
        zip_test::crc32(a));
    CHECK_THROWS_WITH_AS(f.tensors[0].details().check_whole(), want, ti::Error);
    zip_test::Member intact = zip_test::stored("a.npy", a);
    CHECK_NOTHROW(open_zip({intact}).tensors[0].details().check_whole());
  }
  SUBCASE("a member name appearing twice") {
    CHECK_THROWS_WITH_AS(open_zip({zip_test::stored("a.npy", a), zip_test::stored("a.npy", a)}),
                         "x.npz: member 'a.npy' appears twice (second at byte 204)", ti::Error);
  }
}

TEST_CASE("npz: every truncation and every single-byte corruption gives a result or an Error") {
  // Whatever the damage, opening and realizing never crashes, reads out of bounds, or throws
  // anything but ti::Error (run under the asan preset to check the memory side).
  for (const char* sample : {"arrays.npz", "arrays_compressed.npz"}) {
    CAPTURE(sample);
    const auto original = ti::MappedFile::open(kSamples + sample);
    const std::string bytes(reinterpret_cast<const char*>(original->bytes().data()), original->size());
    auto survive = [](const std::string& damaged) {
      try {
        const ti::LoadedFile f = ti::open_npz(zip_test::file_of(damaged, "x.npz"));
        for (const ti::TensorEntry& e : f.tensors) (void)ti::data(e.load());
      } catch (const ti::Error&) {
      }
    };
    for (std::size_t n = 0; n < bytes.size(); n += 7) CHECK_NOTHROW(survive(bytes.substr(0, n)));
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
      CHECK_NOTHROW(survive(damaged));
    }
  }
}

TEST_CASE("fault 3: an npz member declaring a huge size that its shape matches is refused before any allocation") {
  // The header says 1e9 int16 (2e9 bytes) and the member declares exactly header + data,
  // but its 139 compressed bytes cannot inflate to more than 1032 times that.
  zip_test::Member m = zip_test::deflated("a.npy", npy("<i2", "(1000000000,)", kI2Data));
  m.size = 128u + 2000000000u;
  const std::uint64_t before = ti::Buffer::cpu_allocations();
  CHECK_THROWS_WITH_AS(
      open_zip({m}),
      "x.npz: member 'a.npy': declares 2000000128 bytes uncompressed from 139 compressed, more than "
      "the ratio 1032:1 deflate can reach (limit zip_ratio; raise it with --limit zip_ratio=N) at byte 0",
      ti::Error);
  CHECK(ti::Buffer::cpu_allocations() == before);
}

TEST_CASE("zip_crc32 over several 1 MiB chunks is the bitwise CRC-32 of the whole (stored .npz members' check)") {
  std::string data(3 * (1 << 20) + 12345, '\0');
  std::uint32_t x = 12345;
  for (char& c : data) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
  const auto bytes = std::span<const std::byte>(reinterpret_cast<const std::byte*>(data.data()), data.size());
  CHECK(ti::zip_crc32(bytes) == zip_test::crc32(data));
  CHECK(ti::zip_crc32(bytes.first(0)) == 0);
  CHECK(ti::zip_crc32(bytes.first(1 << 20)) == zip_test::crc32(data.substr(0, 1 << 20)));
}
