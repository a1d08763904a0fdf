// tests/unit/input_test.cpp — a run's INPUT resolved to its tensors (tensor_inspect/input.hpp):
// literals, files chosen by --name/--all, --raw bytes, and the options that do not fit. The
// values are the samples' (samples/README.md, as NumPy and safetensors wrote them) and
// hand-computed bytes.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/input.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

std::vector<std::string> item_names(const ti::ResolvedInput& in) {
  std::vector<std::string> out;
  for (const ti::SelectedTensor& t : in.items) out.push_back(t.name.value_or("(unnamed)"));
  return out;
}

ti::InputRequest request_for(const std::string& input) {
  ti::InputRequest r;
  r.input = input;
  return r;
}

}  // namespace

TEST_CASE("is_literal_input: Python values are literals, other words are paths") {
  for (const char* s : {"[[1, 2], [3, 4]]", "5", "-5", "'ab'", "True", "None", "nan", "inf", "float('nan')", ""})
    CHECK_MESSAGE(ti::is_literal_input(s), s);
  for (const char* s : {"model.safetensors", "x.npy", "hf://org/m/x.safetensors", "Tensor"})
    CHECK_FALSE_MESSAGE(ti::is_literal_input(s), s);
  CHECK_FALSE(ti::is_literal_input(test_util::kSamples + "int8.npy"));  // an existing file is a path
}

TEST_CASE("resolve_input: a literal is one unnamed tensor, typed by --dtype or the defaults") {
  ti::ResolvedInput in = ti::resolve_input(request_for("[[1, 2], [3, 4]]"), {});
  REQUIRE(in.items.size() == 1);
  CHECK_FALSE(in.file.has_value());
  CHECK_FALSE(in.items[0].file.has_value());
  CHECK(in.items[0].tensor.dtype() == ti::DType::Int32);  // tinygrad's dtypes.default_int
  CHECK(test_util::values(in.items[0].tensor) == std::vector<double>{1, 2, 3, 4});
  ti::InputRequest half = request_for("[0.1, 65520]");
  half.dtype = "float16";
  in = ti::resolve_input(half, {});
  CHECK(in.items[0].tensor.dtype() == ti::DType::Float16);
  // numpy.float16(0.1) == 0.0999755859375; 65520 rounds to inf in float16.
  CHECK(test_util::values(in.items[0].tensor)[0] == 0.0999755859375);
  CHECK(test_util::values(in.items[0].tensor)[1] == std::numeric_limits<double>::infinity());
}

TEST_CASE("resolve_input: a file's tensors by --name, globs and --all, or the file to list") {
  const std::string path = test_util::kSamples + "mixed.safetensors";
  ti::ResolvedInput listed = ti::resolve_input(request_for(path), {});
  REQUIRE(listed.file.has_value());  // several tensors and none chosen: its listing
  CHECK(listed.items.empty());
  CHECK(listed.format == "safetensors");
  ti::InputRequest one = request_for(path);
  one.names = {"weight"};
  ti::ResolvedInput w = ti::resolve_input(one, {});
  CHECK(w.many == std::optional<bool>(false));
  REQUIRE(w.items.size() == 1);
  CHECK(w.items[0].label == path + ": tensor 'weight'");
  CHECK(test_util::values(w.items[0].tensor) == std::vector<double>{1.5, -2, 0.25, 3, 4, -0.125});
  ti::InputRequest glob = request_for(path);
  glob.names = {"*a*"};  // file order (the data's), each once: weight half bf16 mask scalar
  ti::ResolvedInput g = ti::resolve_input(glob, {});
  CHECK(g.many == std::optional<bool>(true));
  CHECK(item_names(g) == std::vector<std::string>{"half", "mask", "scalar"});
  ti::InputRequest all = request_for(path);
  all.all = true;
  CHECK(ti::resolve_input(all, {}).items.size() == 7);
  ti::InputRequest meta = request_for(path);
  meta.names = {"weight"};
  meta.meta = true;  // the file itself is shown, whatever is chosen
  CHECK(ti::resolve_input(meta, {}).file.has_value());
}

TEST_CASE("resolve_input: --raw reads the bytes as numpy.frombuffer") {
  const std::string path = "input_test_raw.bin";
  {
    std::ofstream f(path, std::ios::binary);
    const unsigned char bytes[] = {0xAA, 0x00, 0x01, 0xFF, 0xFE, 0x01, 0x02};  // 1 byte skipped, then 3 int16
    f.write(reinterpret_cast<const char*>(bytes), sizeof bytes);
  }
  ti::InputRequest r = request_for(path);
  r.raw = "int16";
  r.offset = 1;
  r.byte_order = "big";  // np.frombuffer(b, dtype=">i2", offset=1): [1, -2, 258]
  ti::ResolvedInput in = ti::resolve_input(r, {});
  REQUIRE(in.items.size() == 1);
  CHECK(test_util::values(in.items[0].tensor) == std::vector<double>{1, -2, 258});
  r.byte_order = "little";  // np.frombuffer(b, dtype="<i2", offset=1): [256, -257, 513]
  r.shape = "3,1";
  in = ti::resolve_input(r, {});
  CHECK(in.items[0].tensor.shape() == ti::Shape{3, 1});
  CHECK(test_util::values(in.items[0].tensor) == std::vector<double>{256, -257, 513});
  std::remove(path.c_str());
}

TEST_CASE("resolve_input: options that do not fit the input are usage errors naming them") {
  ti::InputRequest shape = request_for("[1]");
  shape.shape = "2";
  CHECK_THROWS_WITH_AS(ti::resolve_input(shape, {}), "--shape, --offset and --byte-order go with --raw", ti::Error);
  ti::InputRequest typed = request_for(test_util::kSamples + "int8.npy");
  typed.dtype = "f16";
  CHECK_THROWS_WITH_AS(ti::resolve_input(typed, {}),
                       "--dtype applies to literals; for a file use -e 'x.cast(dtypes.float16)'", ti::Error);
  ti::InputRequest none;
  none.all = true;
  CHECK_THROWS_WITH_AS(ti::resolve_input(none, {}),
                       "--name, --all, --list, --meta, --list0 and --overview need a file INPUT", ti::Error);
  CHECK(ti::resolve_input(ti::InputRequest{}, {}).items.empty());  // -e alone: nothing to resolve
}

TEST_CASE("many_mode: several tensors are asked for by the command line, not the file") {
  ti::InputRequest r;
  CHECK_FALSE(ti::many_mode(r));
  r.names = {"a.weight"};
  CHECK_FALSE(ti::many_mode(r));
  r.names = {"layers.*"};
  CHECK(ti::many_mode(r));
  r.names = {"a", "b"};
  CHECK(ti::many_mode(r));
  r.names.clear();
  r.jsonl = true;
  CHECK(ti::many_mode(r));
}

TEST_CASE("parse_defaults and cast_view_as, as --default-float/-int and --view-as read them") {
  const ti::Defaults d = ti::parse_defaults(std::string("bf16"), std::nullopt);
  CHECK(d.float_dtype == ti::DType::BFloat16);
  CHECK(d.int_dtype == ti::DType::Int32);
  CHECK_THROWS_WITH_AS(ti::parse_defaults(std::string("int8"), std::nullopt),
                       "--default-float: int8 is not a float dtype", ti::Error);
  const ti::Tensor one = ti::resolve_input(request_for("[1.0]"), {}).items[0].tensor;
  // memoryview.cast('B').cast('i') of float32 1.0: its bits 0x3F800000 == 1065353216.
  const ti::MemoryView mv = ti::cast_view_as(ti::data(one), {"B", "i"});
  CHECK(mv.element(0).as_double() == 1065353216.0);
  const ti::MemoryView shaped = ti::cast_view_as(ti::data(one), {"B:2,2"});
  CHECK(shaped.shape == ti::Shape{2, 2});
  CHECK_THROWS_WITH_AS(ti::cast_view_as(ti::data(one), {"ff"}),
                       "--view-as 'ff': a format is one struct character (B, b, c, i, f, ...)", ti::Error);
}
