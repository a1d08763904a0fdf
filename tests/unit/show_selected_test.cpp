// tests/unit/show_selected_test.cpp — selected tensors printed as the inspect mode prints them
// (tensor_inspect/show_selected.hpp): blocks under their names, one "tensors" JSON object, JSON
// Lines. Values are the sample's (samples/README.md: mixed.safetensors' `weight` is F32 (2, 3)
// 1.5 -2 0.25 / 3 4 -0.125, `scalar` F32 () 7.0) as Python's repr writes them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tensor_inspect/input.hpp"
#include "tensor_inspect/show_selected.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

std::vector<ti::SelectedTensor> weight_and_scalar() {
  ti::InputRequest r;
  r.input = test_util::kSamples + "mixed.safetensors";
  r.names = {"weight", "scalar"};
  return ti::resolve_input(r, {}).items;
}

std::string printed_many(const std::vector<ti::SelectedTensor>& items, ti::TensorsOutput output,
                         const ti::ShowOptions& show = {}) {
  char* text = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&text, &len);
  ti::print_selected_many(items, std::string("in"), show, {}, output, {}, f);
  std::fclose(f);
  std::string s(text, len);
  std::free(text);
  return s;
}

}  // namespace

TEST_CASE("print_selected_many: text blocks under their names, each as alone") {
  const std::string out = printed_many(weight_and_scalar(), ti::TensorsOutput::Text);
  CHECK(out.starts_with("== weight ==\ndtype: float32\n"));
  CHECK(out.find("tolist: [[1.5, -2.0, 0.25], [3.0, 4.0, -0.125]]\n\n== scalar ==\n") != std::string::npos);
  CHECK(out.ends_with("shape: ()\nstrides: ()\nitemsize: 4\nnbytes: 4\nreadonly: False\ntolist: 7.0\n"));
}

TEST_CASE("print_selected_many: one tensors object, or one tensor object per line") {
  const auto items = weight_and_scalar();
  const nlohmann::json doc = nlohmann::json::parse(printed_many(items, ti::TensorsOutput::Json));
  CHECK(doc["kind"] == "tensors");
  CHECK(doc["file"] == items[0].file.value());  // the tensors' file, not the `file` given for none
  REQUIRE(doc["tensors"].size() == 2);
  CHECK(doc["tensors"][0]["name"] == "weight");
  CHECK(doc["tensors"][0]["tolist"] == nlohmann::json::parse("[[1.5, -2.0, 0.25], [3.0, 4.0, -0.125]]"));
  CHECK(doc["tensors"][1]["tolist"] == 7.0);
  const nlohmann::json none = nlohmann::json::parse(printed_many({}, ti::TensorsOutput::Json));
  CHECK(none["file"] == "in");
  CHECK(none["tensors"].empty());
  const std::string lines = printed_many(items, ti::TensorsOutput::Jsonl);
  const std::size_t nl = lines.find('\n');
  REQUIRE(nl != std::string::npos);
  CHECK(nlohmann::json::parse(lines.substr(0, nl))["name"] == "weight");
  CHECK(nlohmann::json::parse(lines.substr(nl + 1))["shape"] == nlohmann::json::array());
}

TEST_CASE("selected_memoryview and --view-as: headers refused before any tensor is written") {
  const auto items = weight_and_scalar();
  ti::ShowOptions show;
  show.view_as = {"B"};  // memoryview.cast('B'): 24 bytes of float32 (2, 3)
  const ti::MemoryView bytes = ti::selected_memoryview(items[0], show, false);
  CHECK(bytes.shape == ti::Shape{24});
  CHECK(bytes.format == std::optional<char>('B'));
  // 1.5f is 0x3FC00000: little-endian bytes 00 00 C0 3F.
  const ti::MemoryView data = ti::selected_memoryview(items[0], show, true);
  CHECK(data.element(2).as_double() == 0xC0);
  CHECK(data.element(3).as_double() == 0x3F);
  show.view_as = {"i:5"};  // 24 bytes are not 5 int32: the first tensor already refuses
  char* text = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&text, &len);
  CHECK_THROWS_AS(ti::print_selected_many(items, std::nullopt, show, {}, ti::TensorsOutput::Text, {}, f), ti::Error);
  std::fclose(f);
  CHECK(len == 0);  // nothing written
  std::free(text);
}
