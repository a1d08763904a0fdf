// Tests of loaders/onnx*.cpp over models whose protobuf bytes are written here by hand, as
// protobuf's encoding guide spells them (a tag is field << 3 | wire type, then a varint, 4 or 8
// little-endian bytes, or a varint length and the payload), with onnx.proto's field numbers.
// Models written by onnx itself are tests/onnx_vs_numpy_helper.py's.
#include <doctest/doctest.h>

#include <string>

#include "loaders/formats.hpp"
#include "loaders/onnx_model.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

std::string onnx_varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return out + static_cast<char>(v);
}
std::string onnx_tag(unsigned field, unsigned wire) {
  return onnx_varint(field << 3 | wire);
}
std::string onnx_bytes_field(unsigned field, const std::string& payload) {
  return onnx_tag(field, 2) + onnx_varint(payload.size()) + payload;
}
std::string onnx_varint_field(unsigned field, std::uint64_t v) {
  return onnx_tag(field, 0) + onnx_varint(v);
}

/// A ModelProto of ir_version 8 whose graph holds `initializers` (TensorProto payloads).
std::string onnx_model_of(const std::vector<std::string>& initializers) {
  std::string graph;
  for (const std::string& t : initializers) graph += onnx_bytes_field(5, t);
  return onnx_varint_field(1, 8) + onnx_bytes_field(2, "hand") + onnx_bytes_field(7, graph);
}

ti::LoadedFile onnx_open_model(const std::string& bytes) {
  return ti::open_onnx(ti::MappedFile::from_bytes(test_util::bytes_of(bytes), "m.onnx"));
}

// 1.5f and -2.0f, little-endian
const std::string kTwoFloats("\x00\x00\xc0\x3f\x00\x00\x00\xc0", 8);

}  // namespace

TEST_CASE("onnx: sniff takes ir_version then a ModelProto field, nothing else") {
  CHECK(ti::sniff_onnx(test_util::bytes_of(onnx_model_of({}))));
  CHECK_FALSE(ti::sniff_onnx(test_util::bytes_of(std::string("\x08\x00\x12", 3))));  // ir_version 0
  CHECK_FALSE(ti::sniff_onnx(test_util::bytes_of("\x93NUMPY")));
  CHECK_FALSE(ti::sniff_onnx(test_util::bytes_of(std::string("\x08\x07\x08", 3))));  // field 1 again
}

TEST_CASE("onnx: raw_data is a slice of the model, read in place") {
  const std::string t =
      onnx_varint_field(1, 2) + onnx_varint_field(2, 1) + onnx_bytes_field(8, "w") + onnx_bytes_field(9, kTwoFloats);
  const ti::LoadedFile f = onnx_open_model(onnx_model_of({t}));
  REQUIRE(f.tensors.size() == 1);
  CHECK(f.tensors[0].name == "w");
  CHECK(f.tensors[0].stored_type == "FLOAT");
  CHECK(f.tensors[0].shape == ti::Shape{2});
  CHECK(f.tensors[0].file != nullptr);  // no loader: a plain DISK slice
  CHECK(test_util::doubles(f.tensors[0].load()) == std::vector<double>{1.5, -2.0});
  CHECK(f.metadata[0].key == "ir_version");
  CHECK(f.metadata[1].value == "hand");
}

TEST_CASE("onnx: int32_data holds INT8 as sign-extended varints, packed and unpacked alike") {
  // -1 as an int32 varint is ten bytes (the int64 sign extension); 127 one; -128 unpacked.
  const std::string packed = onnx_varint(static_cast<std::uint64_t>(-1)) + onnx_varint(127);
  const std::string t = onnx_varint_field(1, 3) + onnx_varint_field(2, 3) + onnx_bytes_field(5, packed) +
                        onnx_varint_field(5, static_cast<std::uint64_t>(-128)) + onnx_bytes_field(8, "i8");
  const ti::LoadedFile f = onnx_open_model(onnx_model_of({t}));
  REQUIRE(f.tensors.size() == 1);
  CHECK(f.tensors[0].dtype == ti::DType::Int8);
  CHECK(f.tensors[0].note == "in int32_data");
  CHECK(test_util::ints(f.tensors[0].load()) == std::vector<std::int64_t>{-1, 127, -128});
}

TEST_CASE("onnx: float_data stored unpacked, one fixed32 record per element") {
  const std::string t = onnx_varint_field(1, 2) + onnx_varint_field(2, 1) + onnx_tag(4, 5) + kTwoFloats.substr(0, 4) +
                        onnx_tag(4, 5) + kTwoFloats.substr(4) + onnx_bytes_field(8, "f");
  CHECK(test_util::doubles(onnx_open_model(onnx_model_of({t})).tensors[0].load()) == std::vector<double>{1.5, -2.0});
}

TEST_CASE("onnx: raw_data of the wrong size names the initializer and the byte") {
  const std::string t =
      onnx_varint_field(1, 3) + onnx_varint_field(2, 1) + onnx_bytes_field(8, "w") + onnx_bytes_field(9, kTwoFloats);
  const std::string model = onnx_model_of({t});
  const std::size_t raw = model.find(kTwoFloats);
  CHECK_THROWS_WITH_AS(
      onnx_open_model(model),
      ("m.onnx: initializer 'w': raw_data holds 8 bytes, but dims (3,) of FLOAT need 12 at byte " + std::to_string(raw))
          .c_str(),
      ti::Error);
}

TEST_CASE("onnx: a length past its message's end is a structure fault at its tag") {
  std::string model = onnx_model_of({onnx_varint_field(2, 1) + onnx_bytes_field(8, "w")});
  model.resize(model.size() - 2);  // the graph's length now runs past the file
  const std::size_t graph_tag = model.find('\x3a');
  CHECK_THROWS_WITH_AS(onnx_open_model(model),
                       ("m.onnx: model: field 7: length 7 runs past the end of its message (5 bytes left) at byte " +
                        std::to_string(graph_tag))
                           .c_str(),
                       ti::Error);
}

TEST_CASE("onnx: validate's policy collects every fault and reads on past a broken initializer") {
  const std::string bad_type = onnx_varint_field(2, 99) + onnx_bytes_field(8, "a");
  const std::string no_name = onnx_varint_field(2, 1);
  const std::string good =
      onnx_varint_field(1, 2) + onnx_varint_field(2, 1) + onnx_bytes_field(8, "b") + onnx_bytes_field(9, kTwoFloats);
  const std::string model = onnx_model_of({bad_type, no_name, good, good});
  std::vector<std::string> rules;
  const ti::OnnxFaults collect("m.onnx", [&rules](const ti::OnnxFault& f) { rules.push_back(f.rule); });
  const ti::OnnxModel m = ti::parse_onnx(test_util::bytes_of(model), collect);
  CHECK(rules == std::vector<std::string>{"data_type", "name", "data_size", "duplicate_name"});
  REQUIRE(m.initializers.size() == 4);
  CHECK(m.initializers[2].usable);
  CHECK_FALSE(m.initializers[3].usable);
}

TEST_CASE("onnx: external data outside the model's folder is refused when listed") {
  const std::string t = onnx_varint_field(1, 2) + onnx_varint_field(2, 1) + onnx_bytes_field(8, "e") +
                        onnx_bytes_field(13, onnx_bytes_field(1, "location") + onnx_bytes_field(2, "../w.bin")) +
                        onnx_varint_field(14, 1);
  CHECK_THROWS_WITH_AS(
      onnx_open_model(onnx_model_of({t})),
      doctest::Contains("initializer 'e': external data location '../w.bin' leaves the model's folder"), ti::Error);
}
