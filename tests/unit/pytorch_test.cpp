// Tests of loaders/pytorch.cpp and loaders/pickle.cpp: the real candle file, the samples
// torch.save wrote (values from torch.load in samples/pt_expected.json), and hostile
// pickles and archives built byte by byte. Pickles follow CPython's pickletools opcode
// table; byte offsets in messages are positions in the pickle we built.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "loaders/formats.hpp"
#include "loaders/pickle.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/render.hpp"
#include "pytorch_builder.hpp"
#include "test_util.hpp"
#include "zip_builder.hpp"

namespace ti = tensor_inspect;

namespace {

using pytorch_test::archive;
using pytorch_test::kF32;
using pytorch_test::kPickleName;
using pytorch_test::open_pickle;
using pytorch_test::Pickle;
using test_util::kRealData;
using test_util::kSamples;
using test_util::tolist;

}  // namespace

TEST_CASE("pytorch: candle_test.pt holds 'test', int64 (2, 4) 1..8") {
  const std::string path = kRealData + "candle_test.pt";
  if (!std::filesystem::exists(path)) {
    MESSAGE("no " << path << ": skipped");
    return;
  }
  const ti::LoadedFile f = ti::open_file(path);
  CHECK(f.format == "pytorch");
  REQUIRE(f.tensors.size() == 1);
  CHECK(f.tensors[0].name == "test");
  CHECK(f.tensors[0].stored_type == "LongStorage");
  const ti::Tensor t = f.tensors[0].load();
  CHECK(t.node()->op == ti::Op::Buffer);  // contiguous: a DISK view of the archive
  const ti::MemoryView mv = ti::data(t);
  CHECK(mv.format == 'q');
  CHECK(mv.shape == ti::Shape{2, 4});
  CHECK(mv.nbytes == 64);
  CHECK(tolist(t) == "[[1, 2, 3, 4], [5, 6, 7, 8]]");
}

TEST_CASE("pytorch: torch.save samples give torch.load's values, strides and shared storages included") {
  std::ifstream in(kSamples + "pt_expected.json");
  const nlohmann::ordered_json expected = nlohmann::ordered_json::parse(in);
  for (const char* sample : {"state_dict.pt", "checkpoint.pt", "protocol4.pt"}) {
    CAPTURE(sample);
    const ti::LoadedFile f = ti::open_file(kSamples + sample);
    CHECK(f.format == "pytorch");
    const nlohmann::ordered_json& want = expected.at(sample);
    REQUIRE(f.tensors.size() == want.size());
    std::size_t i = 0;
    for (const auto& item : want.items()) {
      const std::string& name = item.key();
      const nlohmann::ordered_json& t = item.value();
      const ti::TensorEntry& e = f.tensors[i++];
      CAPTURE(name);
      CHECK(e.name == name);
      CHECK(e.shape == t.at("shape").get<ti::Shape>());
      CHECK(std::string(ti::dtype_info(e.dtype.value()).name) == t.at("dtype").get<std::string>());
      CHECK(tolist(e.load()) == t.at("tolist").get<std::string>());
    }
  }
  const ti::LoadedFile f = ti::open_file(kSamples + "state_dict.pt");
  auto entry = [&](std::string_view name) -> const ti::TensorEntry& {
    for (const auto& e : f.tensors)
      if (e.name == name) return e;
    FAIL("no tensor " << name);
    throw;
  };
  SUBCASE("contiguous tensors are DISK buffers; permuted and broadcast ones movement ops over one") {
    CHECK(entry("w32").load().node()->op == ti::Op::Buffer);
    CHECK(entry("shared_b").load().node()->op == ti::Op::Buffer);
    CHECK(ti::is_movement(entry("transposed").load().node()->op));
    CHECK(entry("transposed").note == "strides (1, 3), a view over the storage");
    CHECK(ti::is_movement(entry("broadcast").load().node()->op));
  }
  SUBCASE("a step slice skips elements: gathered at realize") {
    CHECK(entry("every_other").load().node()->op == ti::Op::Producer);
    CHECK(entry("every_other").note == "strides (3, 2), gathered into C order");
  }
  SUBCASE("two tensors over one storage sit 5 - 2 = 3 int32 elements apart") {
    CHECK(entry("shared_b").offset - entry("shared_a").offset == 12);
  }
}

TEST_CASE("pytorch: a nested checkpoint lists tensors by dotted name and other values as metadata") {
  const ti::LoadedFile f = ti::open_file(kSamples + "checkpoint.pt");
  const std::vector<std::string> names = test_util::names_of(f);
  CHECK(names == std::vector<std::string>{"model.layer.weight", "model.layer.bias", "layers.0", "layers.1"});
  REQUIRE(f.metadata.size() == 4);
  CHECK(f.metadata[0].key == "epoch");
  CHECK(f.metadata[0].type == "int");
  CHECK(f.metadata[0].value == 3);
  CHECK(f.metadata[1].key == "args");
  CHECK(f.metadata[1].type == "argparse.Namespace");
  CHECK(f.metadata[1].value == "<argparse.Namespace object>");
  CHECK(f.metadata[2].key == "history.0");
  CHECK(f.metadata[2].value == 1.0);
  CHECK(f.metadata[3].value == 2.5);
}

TEST_CASE("pytorch: os.system and builtins.eval become named placeholders and are never called") {
  Pickle p;
  p.op("}").str("cmd").global("os", "system").op("(").str("touch /tmp/ti-pwned").op("tR");
  p.op("}b");  // BUILD on the placeholder: the state is dropped
  p.op("s").str("ev").global("builtins", "eval").op("(").str("1+1").op("t\x81").op("s.");  // NEWOBJ
  const ti::LoadedFile f = open_pickle(p);
  CHECK(f.tensors.empty());
  REQUIRE(f.metadata.size() == 2);
  CHECK(f.metadata[0].key == "cmd");
  CHECK(f.metadata[0].type == "os.system");
  CHECK(f.metadata[0].value == "<os.system object>");
  CHECK(f.metadata[1].type == "builtins.eval");
  CHECK_FALSE(std::filesystem::exists("/tmp/ti-pwned"));
}

TEST_CASE("pytorch: hand-built archives: offsets, big-endian storages, deflated storages, nn.Parameter") {
  SUBCASE("a storage offset and a step stride") {
    Pickle p;
    p.op("}").str("a");
    p.tensor("FloatStorage", "0", 4, 1, {2}, {2});
    p.op("s.");
    const ti::LoadedFile f = open_pickle(p, {{"0", kF32}});
    CHECK(tolist(f.tensors[0].load()) == "[-2.5, 0.5]");
  }
  SUBCASE("a permuted layout with a broadcast axis in the middle: element [i][j][k] = storage[i + 2k]") {
    Pickle p;
    p.op("}").str("v");
    p.tensor("FloatStorage", "0", 4, 0, {2, 3, 2}, {1, 0, 2});
    p.op("s.");
    const ti::LoadedFile f = open_pickle(p, {{"0", kF32}});
    CHECK(ti::is_movement(f.tensors[0].load().node()->op));
    CHECK(tolist(f.tensors[0].load()) ==
          "[[[1.0, 3.25], [1.0, 3.25], [1.0, 3.25]], [[-2.5, 0.5], [-2.5, 0.5], [-2.5, 0.5]]]");
  }
  SUBCASE("byteorder 'big' swaps each element: struct.pack('>2f', 1.0, -2.5)") {
    Pickle p;
    p.op("}").str("b");
    p.tensor("FloatStorage", "0", 2, 0, {2}, {1});
    p.op("s.");
    const ti::LoadedFile f = ti::open_pytorch(archive(p.s, {{"0", std::string("\x3f\x80\0\0\xc0\x20\0\0", 8)}}, "big"));
    CHECK(f.tensors[0].note == "big-endian, converted to native order");
    CHECK(tolist(f.tensors[0].load()) == "[1.0, -2.5]");
  }
  SUBCASE("a deflated storage is inflated at realize") {
    Pickle p;
    p.op("}").str("c");
    p.tensor("FloatStorage", "0", 4, 0, {2, 2}, {1, 2});
    p.op("s.");
    const ti::LoadedFile f = ti::open_pytorch(archive(p.s, {{"0", kF32}}, "little", true));
    CHECK(tolist(f.tensors[0].load()) == "[[1.0, 3.25], [-2.5, 0.5]]");
  }
  SUBCASE("torch._utils._rebuild_parameter wraps the tensor of an nn.Parameter") {
    Pickle p;
    p.op("}").str("w").global("torch._utils", "_rebuild_parameter").op("(");
    p.tensor("FloatStorage", "0", 4, 0, {4}, {1});
    p.op("\x89}tR").op("s.");
    const ti::LoadedFile f = open_pickle(p, {{"0", kF32}});
    REQUIRE(f.tensors.size() == 1);
    CHECK(f.tensors[0].name == "w");
    CHECK(tolist(f.tensors[0].load()) == "[1.0, -2.5, 3.25, 0.5]");
  }
  SUBCASE("a huge LONG_BINPUT index allocates nothing") {
    Pickle p;
    p.op("}r\xff\xff\xff\xff.");
    const ti::LoadedFile f = open_pickle(p);
    CHECK(f.tensors.empty());
    CHECK(f.metadata.empty());
  }
}

TEST_CASE("pytorch: malformed pickles give an Error naming the file, member and pickle byte") {
  SUBCASE("unknown opcode") {
    Pickle p;
    p.op("\xff.");
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": unsupported opcode 0xff at byte 2").c_str(), ti::Error);
  }
  SUBCASE("a protocol-0 text opcode") {
    Pickle p;
    p.op("I1\n.");
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": unsupported opcode 0x49 at byte 2").c_str(), ti::Error);
  }
  SUBCASE("stack underflow") {
    Pickle p;
    p.op("N").op("R.");
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": stack underflow at byte 3").c_str(), ti::Error);
  }
  SUBCASE("a stack underflow below a MARK") {
    Pickle p;
    p.op("N(").op("0").op("0").op("0.");  // POP of the mark, then of N, then nothing
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": stack underflow at byte 6").c_str(), ti::Error);
  }
  SUBCASE("TUPLE without a MARK") {
    Pickle p;
    p.op("t.");
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": no MARK to pop to at byte 2").c_str(), ti::Error);
  }
  SUBCASE("memo index never stored") {
    Pickle p;
    p.op("h\x05.");
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": memo index 5 was never stored at byte 2").c_str(),
                         ti::Error);
  }
  SUBCASE("a huge LONG_BINGET index") {
    Pickle p;
    p.op("}r\xff\xff\xff\xff").op("j\xfe\xff\xff\xff.");
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": memo index 4294967294 was never stored at byte 8").c_str(),
                         ti::Error);
  }
  SUBCASE("no STOP") {
    Pickle p;
    p.op("}");
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": truncated: the pickle ends without STOP at byte 3").c_str(),
                         ti::Error);
  }
  SUBCASE("a string running past the end") {
    Pickle p;
    p.op(std::string("X\x64\0\0\0ab", 7));
    CHECK_THROWS_WITH_AS(
        open_pickle(p), (kPickleName + ": truncated BINUNICODE: needs 100 bytes, 2 left at byte 7").c_str(), ti::Error);
  }
  SUBCASE("calling a dict") {
    Pickle p;
    p.op("}}R.");
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": cannot call a dict at byte 4").c_str(), ti::Error);
  }
  SUBCASE("SETITEMS with an odd number of values") {
    Pickle p;
    p.op("}(N").op("u.");
    CHECK_THROWS_WITH_AS(open_pickle(p), (kPickleName + ": SETITEMS with an odd number of values at byte 5").c_str(),
                         ti::Error);
  }
  SUBCASE("a list that contains itself is entered once: its second visit is a reference") {
    Pickle p;
    p.op(std::string("]q\0h\0", 5)).op("a.");
    const ti::LoadedFile f = open_pickle(p);
    REQUIRE(f.metadata.size() == 1);
    CHECK(f.metadata[0].key == "0");
    CHECK(f.metadata[0].type == "reference");
    CHECK(f.metadata[0].value == "<same object as '<root>'>");
  }
  SUBCASE("70 nested lists stop at the depth limit") {
    Pickle p;
    p.op(std::string(70, ']')).op(std::string(69, 'a')).op(".");
    std::string name = "0";  // the 65th level: 0.0. ... .0
    for (int i = 0; i < 64; ++i) name += ".0";
    CHECK_THROWS_WITH_AS(open_pickle(p),
                         ("x.pt: archive/data.pkl: nesting deeper than 64 levels at '" + name + "'" +
                          " (limit pickle_depth; raise it with --limit pickle_depth=N) at byte 67")
                             .c_str(),
                         ti::Error);
  }
  SUBCASE("the value limit") {
    const std::string bytes = "\x80\x02NNNN.";
    const ti::PickleLimits limits{3, 3, 100, 64};
    CHECK_THROWS_WITH_AS(
        ti::read_pickle(std::as_bytes(std::span(bytes.data(), bytes.size())), "p", limits),
        "p: pickle: more than 3 values (limit pickle_values; raise it with --limit pickle_values=N) at byte 5",
        ti::Error);
  }
  SUBCASE("the reference limit: DUP and BINGET make no values but hold references") {
    const std::string bytes = "\x80\x02N" + std::string(20, '2') + ".";
    const ti::PickleLimits limits{100, 100, 10, 64};
    // N is reference 1, the DUPs at bytes 3.. are 2, 3, ...: the 10th DUP (byte 12) is the 11th.
    CHECK_THROWS_WITH_AS(ti::read_pickle(std::as_bytes(std::span(bytes.data(), bytes.size())), "p", limits),
                         "p: pickle: more than 10 stack and container references (limit pickle_refs; raise it with "
                         "--limit pickle_refs=N) at byte 12",
                         ti::Error);
  }
}

TEST_CASE("pytorch: tensors that do not fit their storage or archive are refused with the pickle byte") {
  SUBCASE("storage key missing from the archive") {
    Pickle p;
    p.op("}").str("w");
    p.tensor("FloatStorage", "7", 4, 0, {4}, {1});
    p.op("s.");
    // The key string 'storage' starts after "}", "X\x01..w", the GLOBAL line and two MARKs.
    const std::size_t key_at = 2 + 1 + 6 + 33 + 2 + 12 + 20;
    CHECK_THROWS_WITH_AS(open_pickle(p, {{"0", kF32}}),
                         (kPickleName.substr(0, kPickleName.size() - 8) +
                          ": tensor 'w': storage '7' has no member 'archive/data/7' in the archive at byte " +
                          std::to_string(key_at))
                             .c_str(),
                         ti::Error);
  }
  SUBCASE("offset, size and stride reaching past the storage") {
    Pickle p;
    p.op("}").str("w");
    const std::size_t call_at = p.tensor("FloatStorage", "0", 4, 2, {3}, {1});
    p.op("s.");
    CHECK_THROWS_WITH_AS(open_pickle(p, {{"0", kF32}}),
                         ("x.pt: archive/data.pkl: tensor 'w': offset 2, size (3,) and stride (1,) reach element 4 of "
                          "a storage of 4 at byte " + std::to_string(call_at))
                             .c_str(),
                         ti::Error);
  }
  SUBCASE("a storage member smaller than numel * itemsize") {
    Pickle p;
    p.op("}").str("w");
    p.tensor("FloatStorage", "0", 4, 0, {4}, {1});
    p.op("s.");
    CHECK_THROWS_WITH_AS(open_pickle(p, {{"0", kF32.substr(0, 8)}}),
                         "x.pt: archive/data.pkl: tensor 'w': storage '0' of 4 float32 needs 16 bytes, member "
                         "'archive/data/0' holds 8 at byte 76",
                         ti::Error);
  }
  SUBCASE("a negative stride") {
    Pickle p;
    p.op("}").str("w");
    p.tensor("FloatStorage", "0", 4, 3, {2}, {-1});
    p.op("s.");
    CHECK_THROWS_AS(open_pickle(p, {{"0", kF32}}), ti::Error);
  }
  SUBCASE("a size that overflows") {
    Pickle p;
    p.op("}").str("w");
    p.tensor("FloatStorage", "0", 4, 0, {1 << 30, 1 << 30, 1 << 30}, {0, 0, 0});
    p.op("s.");
    CHECK_THROWS_AS(open_pickle(p, {{"0", kF32}}), ti::Error);
  }
  SUBCASE("no data.pkl member") {
    const auto file = zip_test::file_of(zip_test::build({zip_test::stored("weights.bin", "abc")}), "x.pt");
    CHECK_THROWS_WITH_AS(ti::open_pytorch(file), "x.pt: no '<archive>/data.pkl' member: not a torch.save archive",
                         ti::Error);
  }
  SUBCASE("the legacy format is detected, and a magic number alone is cut short where its protocol version should be") {
    const std::string legacy("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15);
    const auto file = zip_test::file_of(legacy, "old.pt");
    CHECK(ti::sniff_pytorch(file->bytes()));
    CHECK_THROWS_WITH_AS(ti::open_pytorch(file),
                         "old.pt: protocol version: pickle: truncated: the pickle ends without STOP at byte 15",
                         ti::Error);
  }
}

TEST_CASE(
    "pytorch: the legacy sample (torch.save(_use_new_zipfile_serialization=False)) holds what protocol4.pt holds") {
  // make_pt_samples.py saves one OrderedDict both ways; pt_expected.json pins protocol4.pt's values to torch.load's.
  const ti::LoadedFile legacy = ti::open_file(kSamples + "legacy.pt");
  const ti::LoadedFile zip = ti::open_file(kSamples + "protocol4.pt");
  CHECK(legacy.format == "pytorch");
  REQUIRE(legacy.tensors.size() == zip.tensors.size());
  for (std::size_t i = 0; i < zip.tensors.size(); ++i) {
    CAPTURE(zip.tensors[i].name);
    CHECK(legacy.tensors[i].name == zip.tensors[i].name);
    CHECK(legacy.tensors[i].dtype == zip.tensors[i].dtype);
    CHECK(legacy.tensors[i].shape == zip.tensors[i].shape);
    CHECK(tolist(legacy.tensors[i].load()) == tolist(zip.tensors[i].load()));
  }
}
