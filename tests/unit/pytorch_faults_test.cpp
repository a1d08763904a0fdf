// Regression tests of issue 9's PyTorch faults (loaders/pytorch_flatten.cpp,
// pytorch_allowlist.cpp): DAG pickles (4), colliding dotted names (8), whole nn.Module
// checkpoints (18) and globals outside torch's weights_only allow-list (22). Values come
// from torch.load (samples/pt_fault_expected.json, made by make_pt_fault_samples.py) or
// from pickles built here opcode by opcode (CPython's pickletools table).
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "test_util.hpp"
#include "zip_builder.hpp"

namespace ti = tensor_inspect;

namespace {

using test_util::kSamples;
using test_util::names_of;
using test_util::tolist;

ti::LoadedFile open_data_pkl(const std::string& pickle) {
  const std::vector<zip_test::Member> members{zip_test::stored("archive/data.pkl", pickle),
                                              zip_test::stored("archive/version", "3\n")};
  return ti::open_pytorch(zip_test::file_of(zip_test::build(members), "x.pt"));
}


/// The samples' tensors against torch.load's values, in the expected file's order.
void check_sample(const char* sample) {
  std::ifstream in(kSamples + "pt_fault_expected.json");
  const nlohmann::ordered_json expected = nlohmann::ordered_json::parse(in);
  const ti::LoadedFile f = ti::open_file(kSamples + sample);
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

}  // namespace

TEST_CASE("fault 4: a pickle whose objects reference each other as a DAG is flattened in linear time") {
  // t0 = (); t_i = (t_{i-1}, t_{i-1}): 2**60 paths through 60 tuples, each entered once.
  std::string p = std::string("\x80\x02)q\x00", 5);
  for (int i = 1; i <= 60; ++i) {
    p += "h";
    p += static_cast<char>(i - 1);
    p += "h";
    p += static_cast<char>(i - 1);
    p += "\x86q";
    p += static_cast<char>(i);
  }
  p += "0h";
  p += static_cast<char>(60);
  p += ".";
  const ti::LoadedFile f = open_data_pkl(p);
  CHECK(f.tensors.empty());
  // Each of t1..t60 reaches its child a second time through slot 1: 60 reference leaves,
  // the deepest first.
  auto zeros = [](int n) {
    std::string s = "0";
    for (int i = 1; i < n; ++i) s += ".0";
    return s;
  };
  REQUIRE(f.metadata.size() == 60);
  CHECK(f.metadata[0].type == "reference");
  CHECK(f.metadata[0].key == zeros(59) + ".1");
  CHECK(f.metadata[0].value == "<same object as '" + zeros(60) + "'>");
  CHECK(f.metadata[59].key == "1");
  CHECK(f.metadata[59].value == "<same object as '0'>");
}

TEST_CASE("fault 8: torch.save({'a.b': t1, 'a': {'b': t2}}) lists both tensors under unique, reversible names") {
  check_sample("dotted_names.pt");
  const ti::LoadedFile f = ti::open_file(kSamples + "dotted_names.pt");
  CHECK(names_of(f) == std::vector<std::string>{"['a.b']", "['a']['b']"});
}

TEST_CASE("fault 18: torch.save(model) of a whole nn.Module lists its state_dict through _parameters and _buffers") {
  check_sample("whole_model.pt");
  const ti::LoadedFile f = ti::open_file(kSamples + "whole_model.pt");
  // The module classes are outside the weights_only allow-list: torch.load would import them.
  REQUIRE(f.warnings.size() >= 1);
  CHECK(f.warnings[0].find("global 'torch.nn.modules.container.Sequential'") != std::string::npos);
}

TEST_CASE("fault 22: globals outside torch's weights_only allow-list are warnings, each named once with its byte") {
  // {'x': os.system('echo hi'), 'y': builtins.eval('1'), 'z': os.system('true')}
  const std::string p = std::string("\x80\x02}(X\x01\x00\x00\x00xcos\nsystem\nX\x07\x00\x00\x00" "echo hi\x85R", 35) +
                        std::string("X\x01\x00\x00\x00ycbuiltins\neval\nX\x01\x00\x00\x00" "1\x85R", 29) +
                        std::string("X\x01\x00\x00\x00zcos\nsystem\nX\x04\x00\x00\x00true\x85Ru.", 30);
  const ti::LoadedFile f = open_data_pkl(p);
  REQUIRE(f.warnings.size() == 2);
  CHECK(f.warnings[0] ==
        "x.pt: archive/data.pkl: global 'os.system' at byte 10 is outside torch.load(weights_only=True)'s "
        "allow-list: torch.load without it would import and may call it");
  CHECK(f.warnings[1].rfind("x.pt: archive/data.pkl: global 'builtins.eval' at byte 41 ", 0) == 0);
  REQUIRE(f.metadata.size() == 3);
  CHECK(f.metadata[0].key == "x");
  CHECK(f.metadata[0].value == "<os.system object>");
  // The samples torch.save wrote name only allowed globals.
  CHECK(ti::open_file(kSamples + "state_dict.pt").warnings.empty());
  CHECK(ti::open_file(kSamples + "protocol4.pt").warnings.empty());
}
