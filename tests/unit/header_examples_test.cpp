// The usage examples at the top of the public headers (lib/include/tensor_inspect/), compiled
// and run as written (issue 21: they were never compiled, and one called a function that does
// not exist). Each case copies its header's example lines with the context they assume (a
// tensor, a file); the values the comments state are checked, as NumPy and tinygrad give them.
// Headers whose examples need a network, a terminal or a model folder (remote.hpp,
// schemes.hpp, plot.hpp, safe_write.hpp) are not here.
#include <doctest/doctest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/graph.hpp"
#include "tensor_inspect/input.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/ops.hpp"
#include "tensor_inspect/render.hpp"
#include "tensor_inspect/show_selected.hpp"
#include "tensor_inspect/stored_elements.hpp"
#include "tensor_inspect/summary.hpp"
#include "tensor_inspect/tensor.hpp"
#include "tensor_inspect/validate.hpp"
#include "tensor_inspect/view.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
using ti::DType;
using ti::NodePtr;
using ti::Op;
using ti::Scalar;
using ti::Tensor;
using ti::View;

TEST_CASE("header example: dtype.hpp") {
  DType d = ti::dtype_from_name("half").value();  // DType::Float16
  CHECK(d == DType::Float16);
  CHECK(ti::dtype_info(d).fmt == 'e');
  CHECK(ti::least_upper_dtype(DType::Int8, DType::UInt8) == DType::Int16);
  Scalar v = ti::cast_scalar(Scalar::from_float(0.1), DType::Float16);
  CHECK(v.as_double() == 0.0999755859375);  // numpy.float16(0.1) as a double
}

TEST_CASE("header example: error.hpp") {
  int status = 0;
  std::string said;
  try {
    auto t = ti::tensor_from_literal("[1, 2", std::nullopt);
  } catch (const ti::Error& e) {
    said = e.what();
    status = ti::exit_status(e.code());
  }
  CHECK(status == 2);
  CHECK_FALSE(said.empty());
}

TEST_CASE("header example: expr.hpp") {
  ti::Tensor x = ti::tensor_from_literal("[[1, 2], [3, 4]]", std::nullopt);
  ti::Tensor r = ti::evaluate_expression("x.T.reshape(4).cast(dtypes.float16) * 2", x, {});
  ti::Tensor a = ti::evaluate_expression("Tensor.arange(6).reshape(2, 3)", std::nullopt, {});
  CHECK(r.dtype() == DType::Float16);
  CHECK(r.shape() == ti::Shape{4});
  CHECK(ti::data(r).element(1).as_double() == 6.0);  // x.T is [[1, 3], [2, 4]]
  CHECK(a.shape() == ti::Shape{2, 3});
  CHECK(ti::expression_tree("-2**2") == "(neg (** 2 2))");
}

TEST_CASE("header example: graph.hpp") {
  NodePtr a = ti::make_node(Op::Const, DType::Int32, {2, 2}, {}, Scalar::from_int(1));
  NodePtr b = ti::make_node(Op::Const, DType::Int32, {2, 2}, {}, Scalar::from_int(1));
  CHECK(a == b);  // interned
  std::string dump = ti::graph_to_string(a);
  CHECK_FALSE(dump.empty());
}

TEST_CASE("header example: literal.hpp") {
  Tensor a = ti::tensor_from_literal("[[1, 2], [3, 4]]", std::nullopt);
  Tensor b = ti::tensor_from_literal("2.5", std::nullopt);
  Tensor c = ti::tensor_from_literal("[300, -1]", DType::UInt8);
  CHECK(a.dtype() == DType::Int32);
  CHECK(a.shape() == ti::Shape{2, 2});
  CHECK(b.shape().empty());
  const ti::MemoryView mc = ti::data(c);
  CHECK(mc.element(0).as_double() == 44);  // 300 mod 256
  CHECK(mc.element(1).as_double() == 255);
}

TEST_CASE("header example: tensor.hpp, memoryview.hpp, render.hpp, summary.hpp") {
  std::shared_ptr<ti::Buffer> buf = ti::Buffer::cpu(24);
  Tensor t = Tensor::from_buffer(buf, DType::Float32, {2, 3});
  Tensor u = t.permute({1, 0}).cast(DType::Float16);  // nothing computed yet
  Tensor r = u.realize();
  CHECK(r.shape() == ti::Shape{3, 2});
  ti::MemoryView mv = ti::data(t);
  CHECK(mv.format == std::optional<char>('f'));
  CHECK(mv.shape == ti::Shape{2, 3});
  CHECK(mv.nbytes == 24);
  CHECK(mv.element(5).as_double() == 0.0);
  ti::MemoryView bytes = ti::cast_view(mv, 'B');
  CHECK(bytes.nbytes == 24);
  CHECK(ti::data_header(t).nbytes == 24);
  char text[32];
  text[ti::float_repr(0.1f, text)] = 0;
  CHECK(std::string(text) == "0.10000000149011612");  // repr(float(numpy.float32(0.1)))
  ti::PrintOptions po;
  auto s = ti::summarize({2000, 10}, po);
  REQUIRE(s.has_value());
  CHECK(s->shown_shape() == ti::Shape{6, 6});
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    ti::OutBuffer out(f);
    ti::render_text(mv, out);
  }
  std::rewind(f);
  char head[32] = {};
  CHECK(std::fread(head, 1, 25, f) == 25);
  CHECK(std::string(head) == "dtype: float32\nformat: f\n");  // as the CLI prints [0.5, 1.0]
  std::fclose(f);
}

TEST_CASE("header example: view.hpp and ops.hpp") {
  View v = View::make({2, 3});
  CHECK(v.strides == std::vector<std::int64_t>{3, 1});
  View t = v.permute({1, 0});
  CHECK(t.strides == std::vector<std::int64_t>{1, 3});
  std::optional<View> r = t.reshape({6});
  CHECK_FALSE(r.has_value());
  CHECK(t.index_of({2, 1}) == 5);
  CHECK(ti::is_movement(ti::Op::Permute));
  CHECK(ti::op_name(ti::Op::Add) == "ADD");
}

TEST_CASE("header example: limits.hpp") {
  const ti::Limits saved = ti::limits();
  ti::Limits l = ti::limits();
  l.stream_bytes = std::uint64_t{8} << 30;
  ti::set_limits(l);
  ti::set_limit("stream_bytes=8589934592");
  CHECK(ti::limits().stream_bytes == std::uint64_t{8} << 30);
  ti::set_limits(saved);
}

TEST_CASE("header example: loader.hpp, validate.hpp, compare.hpp") {
  const std::string path = test_util::kSamples + "sharded/model-00001-of-00002.safetensors";
  ti::LoadedFile f = ti::open_file(path);
  REQUIRE_FALSE(f.tensors.empty());
  ti::Tensor t = f.tensors[0].load();
  ti::ValidationReport r = ti::validate_file(path);
  bool clean = r.findings.empty();
  CHECK(clean);
  ti::CompareOptions opt;
  opt.rtol = 1e-3;
  opt.atol = 1e-5;
  ti::Comparison c = ti::compare_tensors(t, t, opt);
  CHECK(c.mismatched == 0);
  CHECK_FALSE(c.first_mismatch.has_value());
  CHECK(c.max_abs == 0.0);
}

TEST_CASE("header example: input.hpp, show_selected.hpp, stored_elements.hpp") {
  ti::InputRequest req;
  req.input = test_util::kSamples + "mixed.safetensors";
  req.names = {"*a*"};  // a glob: several tensors, each under its name
  ti::ResolvedInput in = ti::resolve_input(req, {});
  std::vector<std::string> names;
  for (const ti::SelectedTensor& t : in.items) names.push_back(*t.name);
  CHECK(names == std::vector<std::string>{"half", "mask", "scalar"});
  const std::string printed =
      test_util::rendered([&](ti::OutBuffer& out) { ti::print_selected(in.items[2], {}, {}, false, {}, out); });
  CHECK(printed == "dtype: float32\nformat: f\nshape: ()\nstrides: ()\nitemsize: 4\nnbytes: 4\nreadonly: False\n"
                   "tolist: 7.0\n");  // scalar: F32 () 7.0 (samples/README.md)
  ti::Tensor t = ti::open_file(test_util::kSamples + "big_endian_i2.npy").tensors[0].load();
  std::optional<ti::StoredElements> s = ti::stored_elements(t);
  REQUIRE(s.has_value());
  CHECK(s->numel == 5);
  CHECK(s->swap_bytes);
  CHECK(ti::dtype_info(s->stored).name == std::string("int16"));
}
