// tests/unit/export_choice_test.cpp — what `export` is asked to write
// (tensor_inspect/export_plan.hpp): the format from --format or the output's extension, and
// the tensors chosen (samples/mixed.safetensors holds 7: weight half bf16 ids mask scalar empty).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/export_plan.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

TEST_CASE("export_format: the extension, or --format where both agree") {
  CHECK(ti::export_format("out.npz", std::nullopt) == "npz");
  CHECK(ti::export_format("dir.v2/w.safetensors", std::nullopt) == "safetensors");
  CHECK(ti::export_format("-", std::string("npy")) == "npy");
  CHECK(ti::export_format("w.bin", std::string("safetensors")) == "safetensors");  // no known extension
  CHECK_THROWS_WITH_AS(ti::export_format("w.npy", std::string("npz")),
                       "export: --format npz contradicts the extension of w.npy: drop one, or make them agree",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::export_format("w.npy", std::string("pt")), "export: --format pt: npy, npz or safetensors",
                       ti::Error);
  CHECK_THROWS_AS(ti::export_format("-", std::nullopt), ti::Error);
  CHECK_THROWS_AS(ti::export_format("w.pt", std::nullopt), ti::Error);
}

TEST_CASE("export_choice: --name/--all, a lone tensor, and .npy's one") {
  const ti::LoadedFile f = ti::open_file(test_util::kSamples + "mixed.safetensors");
  const std::vector<std::size_t> two = ti::export_choice(f, "m", {"weight", "scalar"}, false, "npz");
  REQUIRE(two.size() == 2);
  CHECK(f.tensors[two[0]].name == "weight");
  CHECK(f.tensors[two[1]].name == "scalar");
  CHECK(ti::export_choice(f, "m", {}, true, "safetensors").size() == 7);
  CHECK_THROWS_WITH_AS(ti::export_choice(f, "m", {}, false, "npz"),
                       "export: m holds 7 tensors: choose them with --name or --all", ti::Error);
  CHECK_THROWS_WITH_AS(ti::export_choice(f, "m", {"weight", "scalar"}, false, "npy"),
                       "export: a .npy holds one tensor, and 2 are chosen: write a .safetensors, or choose one with "
                       "--name",
                       ti::Error);
  const ti::LoadedFile one = ti::open_file(test_util::kSamples + "int8.npy");
  CHECK(ti::export_choice(one, "x", {}, false, "npy") == std::vector<std::size_t>{0});
}
