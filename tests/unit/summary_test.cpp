// Summarized printing: NumPy's choice of elements (numpy/core/arrayprint.py, _formatArray),
// the lazy tensor of those elements, and the summarized and header-only renderers.
#include <doctest/doctest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "tensor_inspect/frontend.hpp"
#include "tensor_inspect/summary.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
namespace tg = tensor_inspect::tg;
using ti::DType;
using ti::Scalar;
using ti::Shape;
using ti::Tensor;
using test_util::rendered;

namespace {

// A float64 tensor whose element i is i, computed on demand by a formula that records
// every index it is asked for.
Tensor counting_iota(const Shape& shape, std::shared_ptr<std::set<std::int64_t>> asked) {
  auto p = std::make_shared<ti::Producer>();
  p->label = "counting iota";
  p->fill = [](std::span<std::byte>) { FAIL("the whole tensor was produced"); };
  p->element = [asked](std::int64_t i) {
    asked->insert(i);
    return Scalar::from_float(static_cast<double>(i));
  };
  return Tensor::from_producer(p, DType::Float64, shape);
}


ti::PrintOptions options(std::int64_t threshold, std::int64_t edgeitems) {
  ti::PrintOptions po;
  po.threshold = threshold;
  po.edgeitems = edgeitems;
  return po;
}

}  // namespace

TEST_CASE("summarize: NumPy summarizes when size > threshold, eliding axes longer than 2 * edgeitems") {
  CHECK_FALSE(ti::summarize({1000}, {}));          // size == threshold: printed in full
  auto s = ti::summarize({1001}, {});
  REQUIRE(s);
  CHECK(s->elided == std::vector<bool>{true});
  CHECK(s->shown_shape() == Shape{6});
  s = ti::summarize({2, 6, 7}, options(10, 3));    // 2 <= 6 and 6 <= 6 stay whole, 7 > 6 is elided
  REQUIRE(s);
  CHECK(s->elided == std::vector<bool>{false, false, true});
  CHECK(s->shown_shape() == Shape{2, 6, 6});
  CHECK(s->shown() == 72);
  CHECK(s->size() == 84);
}

TEST_CASE("summarize: 0-d and empty arrays are never summarized") {
  CHECK_FALSE(ti::summarize({}, options(0, 3)));
  CHECK_FALSE(ti::summarize({3, 0, 4}, options(0, 0)));
}

TEST_CASE("summarize: edgeitems 0 still shows each axis's last item, as NumPy prints [..., 1999]") {
  auto s = ti::summarize({2000}, options(10, 0));
  REQUIRE(s);
  CHECK(s->trailing() == 1);
  CHECK(s->shown_shape() == Shape{1});
  s = ti::summarize({1, 5}, options(1, 0));       // a length-1 axis is "elided" too: [[..., 4]]
  REQUIRE(s);
  CHECK(s->elided == std::vector<bool>{true, true});
}

TEST_CASE("summarize: no axis longer than 2 * edgeitems prints everything, whatever the size") {
  CHECK_FALSE(ti::summarize({5000}, options(0, std::numeric_limits<std::int64_t>::max())));  // no overflow either
  CHECK_FALSE(ti::summarize({3, 4, 5, 6}, options(10, 3)));
  auto s = ti::summarize({3, 4, 5, 7}, options(10, 3));
  REQUIRE(s);
  CHECK(s->elided == std::vector<bool>{false, false, false, true});
}

TEST_CASE("edge_elements: the leading and trailing items of each elided axis, in C order") {
  // 7x9 with edgeitems 2: rows 0, 1, 5, 6 and columns 0, 1, 7, 8 of r * 9 + c.
  auto s = ti::summarize({7, 9}, options(10, 2));
  REQUIRE(s);
  Tensor t =
      tg::reshape(tg::arange(Scalar::from_int(0), Scalar::from_int(63), Scalar::from_int(1), DType::Int32), {7, 9});
  Tensor e = ti::edge_elements(t, *s);
  CHECK(e.shape() == Shape{4, 4});
  CHECK(test_util::ints(e) == std::vector<std::int64_t>{0, 1, 7, 8, 9, 10, 16, 17, 45, 46, 52, 53, 54, 55, 61, 62});
}

TEST_CASE("edge_elements: a non-contiguous view (transposed, flipped) and edgeitems 0") {
  // t[i][j] = (5 - j) * 4 + i for i < 4, j < 6: arange(24).reshape(6, 4) flipped on axis 0, transposed.
  Tensor base =
      tg::reshape(tg::arange(Scalar::from_int(0), Scalar::from_int(24), Scalar::from_int(1), DType::Int64), {6, 4});
  Tensor t = tg::transpose(tg::flip(base, {0}), 0, 1);
  auto s = ti::summarize({4, 6}, options(1, 1));   // 4 > 2 and 6 > 2: rows 0, 3 and columns 0, 5
  REQUIRE(s);
  CHECK(test_util::ints(ti::edge_elements(t, *s)) == std::vector<std::int64_t>{20, 0, 23, 3});
  s = ti::summarize({4, 6}, options(1, 0));        // only the last row's last column: t[3][5] = 3
  REQUIRE(s);
  CHECK(test_util::ints(ti::edge_elements(t, *s)) == std::vector<std::int64_t>{3});
}

TEST_CASE("edge_elements computes only the shown elements") {
  auto asked = std::make_shared<std::set<std::int64_t>>();
  Tensor t = tg::mul(counting_iota({100, 1000, 10}, asked), Scalar::from_int(2));
  auto s = ti::summarize(t.shape(), options(1000, 1));
  REQUIRE(s);
  ti::MemoryView edges = ti::data(ti::edge_elements(t, *s));
  // Rows 0 and 99, middle 0 and 999, columns 0 and 9 of i = (a * 1000 + b) * 10 + c.
  std::set<std::int64_t> want;
  for (std::int64_t a : {0, 99})
    for (std::int64_t b : {0, 999})
      for (std::int64_t c : {0, 9}) want.insert((a * 1000 + b) * 10 + c);
  CHECK(*asked == want);
  std::vector<double> got;
  for (std::int64_t i = 0; i < edges.numel(); ++i) got.push_back(edges.element(i).f);
  std::vector<double> doubled;
  for (std::int64_t i : want) doubled.push_back(2.0 * static_cast<double>(i));
  CHECK(got == doubled);
}

TEST_CASE("edge_elements refuses a summary of another shape") {
  Tensor t = tg::zeros({3, 4}, DType::Int8);
  CHECK(test_util::code_of([&] {
          ti::edge_elements(t, *ti::summarize({40, 4}, options(1, 1)));
        }) == ti::ErrorCode::Internal);
}

TEST_CASE("write_tolist_summary lays out '...' as numpy.array2string, strict JSON with the string \"...\"") {
  Tensor t =
      tg::reshape(tg::arange(Scalar::from_int(0), Scalar::from_int(63), Scalar::from_int(1), DType::Int32), {7, 9});
  auto s = ti::summarize({7, 9}, options(10, 1));
  REQUIRE(s);
  ti::MemoryView edges = ti::data(ti::edge_elements(t, *s));
  // np.array2string(np.arange(63).reshape(7, 9), threshold=10, edgeitems=1, separator=', '),
  // whitespace folded: [[ 0, ...,  8], ..., [54, ..., 62]]
  CHECK(rendered([&](ti::OutBuffer& o) { ti::write_tolist_summary(edges, *s, false, ti::NonFinite::Python, o); }) ==
        "[[0, ..., 8], ..., [54, ..., 62]]");
  CHECK(rendered([&](ti::OutBuffer& o) { ti::write_tolist_summary(edges, *s, true, ti::NonFinite::String, o); }) ==
        "[[0, \"...\", 8], \"...\", [54, \"...\", 62]]");
  s = ti::summarize({7, 9}, options(10, 0));
  edges = ti::data(ti::edge_elements(t, *s));
  CHECK(rendered([&](ti::OutBuffer& o) { ti::write_tolist_summary(edges, *s, false, ti::NonFinite::Python, o); }) ==
        "[..., [..., 62]]");
}

TEST_CASE("render_text_summary: the whole tensor's fields, the summarized tolist and a count") {
  Tensor t = tg::arange(Scalar::from_int(0), Scalar::from_int(2000), Scalar::from_int(1), DType::Float32);
  auto s = ti::summarize(t.shape(), {});
  REQUIRE(s);
  ti::MemoryView head = ti::data_header(t);
  ti::MemoryView edges = ti::data(ti::edge_elements(t, *s));
  CHECK(rendered([&](ti::OutBuffer& o) { ti::render_text_summary(head, edges, *s, o); }) ==
        "dtype: float32\nformat: f\nshape: (2000,)\nstrides: (4,)\nitemsize: 4\nnbytes: 8000\nreadonly: False\n"
        "tolist: [0.0, 1.0, 2.0, ..., 1997.0, 1998.0, 1999.0]\n"
        "summary: 6 of 2000 elements shown (--full prints all)\n");
}

TEST_CASE("data_header gives data()'s fields without realizing") {
  for (const char* lit : {"[[1, 2, 3], [4, 5, 6]]", "5", "[[], []]", "[1.5, -0.0]"}) {
    CAPTURE(lit);
    Tensor t = ti::tensor_from_literal(lit, std::nullopt);
    ti::MemoryView full = ti::data(t), head = ti::data_header(t);
    CHECK(head.buffer == nullptr);
    CHECK(head.format == full.format);
    CHECK(head.dtype == full.dtype);
    CHECK(head.shape == full.shape);
    CHECK(head.strides == full.strides);
    CHECK(head.nbytes == full.nbytes);
    CHECK(head.tensor_shape == full.tensor_shape);
  }
  // A producer that fails if run: the header never runs it.
  auto p = std::make_shared<ti::Producer>();
  p->fill = [](std::span<std::byte>) { FAIL("the tensor was realized"); };
  ti::MemoryView h = ti::data_header(Tensor::from_producer(p, DType::BFloat16, {3, 4}));
  CHECK_FALSE(h.format);
  CHECK(h.nbytes == 24);
  ti::DataOptions strict;
  strict.strict = true;
  CHECK(test_util::code_of([&] { ti::data_header(Tensor::from_producer(p, DType::BFloat16, {3, 4}), strict); }) ==
        ti::ErrorCode::NoFormat);
}

TEST_CASE("the header renderers write the full renderers' fields, minus tolist, in their order") {
  for (const char* lit : {"[[1, 2, 3], [4, 5, 6]]", "5", "[[], []]", "[True]"}) {
    CAPTURE(lit);
    ti::MemoryView m = ti::data(ti::tensor_from_literal(lit, std::nullopt));
    std::string full = rendered([&](ti::OutBuffer& o) { ti::render_text(m, o); });
    std::string head = rendered([&](ti::OutBuffer& o) { ti::render_text_header(m, o); });
    CHECK(full.substr(0, full.find("tolist: ")) == head);
    auto json_full = nlohmann::ordered_json::parse(rendered([&](ti::OutBuffer& o) { ti::render_json(m, {}, o); }));
    auto json_head = nlohmann::ordered_json::parse(rendered([&](ti::OutBuffer& o) { ti::render_json_header(m, o); }));
    json_full.erase("tolist");
    CHECK(json_full.dump() == json_head.dump());
  }
}
