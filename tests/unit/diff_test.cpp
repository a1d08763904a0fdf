// tests/unit/diff_test.cpp — tensor_inspect/diff.hpp: pairing by name, renames and --name
// globs, each pair's verdict, the report's figures (worked by hand and with NumPy:
// a = [1, 2.5, 3, 0.5], b = [1, 2, 4, 0.5] give sum(a^2) 16.5, sum((a-b)^2) 1.25, NMSE
// 1.25/16.5 = 0.07575757575757576, SQNR 10 log10(13.2) = 11.205739312058498 dB).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tensor_inspect/diff.hpp"
#include "tensor_inspect/error.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
using ti::DiffStatus;
using ti::DType;

namespace {

// A named entry whose loader hands back `t`, as a file's entry would.
ti::TensorEntry diff_entry(const std::string& name, const ti::Tensor& t) {
  ti::TensorEntry e;
  e.name = name;
  e.dtype = t.dtype();
  e.stored_type = std::string(ti::dtype_info(t.dtype()).name);
  e.shape = t.shape();
  e.nbytes = static_cast<std::uint64_t>(t.numel()) * ti::dtype_info(t.dtype()).itemsize;
  e.details_for_write().loader = [t] { return t; };
  return e;
}

ti::Tensor f64(const std::vector<double>& v) { return test_util::tensor_of<double>(v, DType::Float64); }

ti::DiffInput diff_side(const std::string& label, std::vector<ti::TensorEntry> entries) {
  ti::DiffInput in;
  in.label = label;
  in.format = "test";
  in.entries = std::move(entries);
  return in;
}

std::vector<std::string> pair_names(const std::vector<ti::DiffRow>& rows) {
  std::vector<std::string> out;
  for (const ti::DiffRow& r : rows)
    out.push_back((r.a ? r.a->name : "-") + ":" + (r.b ? r.b->name : "-") + ":" + ti::diff_status_json(r.status));
  return out;
}

}  // namespace

TEST_CASE("pair_tensors pairs by name, A's order first, then B's leftovers") {
  const ti::Tensor t = f64({1.0});
  const ti::DiffInput a = diff_side("a", {diff_entry("w", t), diff_entry("x", t), diff_entry("b", t)});
  const ti::DiffInput b = diff_side("b", {diff_entry("y", t), diff_entry("b", t), diff_entry("w", t)});
  CHECK(pair_names(ti::pair_tensors(a, b, {})) ==
        std::vector<std::string>{"w:w:same", "x:-:only_in_a", "b:b:same", "-:y:only_in_b"});
}

TEST_CASE("pair_tensors pairs two single-tensor inputs by position, whatever their names") {
  const ti::DiffInput a = diff_side("a", {diff_entry("left", f64({1.0}))});
  const ti::DiffInput b = diff_side("b", {diff_entry("right", f64({1.0}))});
  CHECK(pair_names(ti::pair_tensors(a, b, {})) == std::vector<std::string>{"left:right:same"});
}

TEST_CASE("pair_tensors renames A's names: an exact rename first, then each regex in order") {
  const ti::Tensor t = f64({1.0});
  const ti::DiffInput a = diff_side("a", {diff_entry("model.layers.0.w", t), diff_entry("head", t)});
  const ti::DiffInput b = diff_side("b", {diff_entry("blk.0.w", t), diff_entry("output", t)});
  ti::DiffOptions o;
  o.renames = {"head=output"};
  o.rename_regex = {R"(^model\.layers\.(\d+)\.=blk.$1.)"};
  CHECK(pair_names(ti::pair_tensors(a, b, o)) ==
        std::vector<std::string>{"model.layers.0.w:blk.0.w:same", "head:output:same"});
}

TEST_CASE("pair_tensors with names keeps A's matches and their partners in B, and refuses a glob matching nothing") {
  const ti::Tensor t = f64({1.0});
  const ti::DiffInput a = diff_side("a.npz", {diff_entry("l.0.w", t), diff_entry("l.1.w", t), diff_entry("n", t)});
  const ti::DiffInput b = diff_side("b.npz", {diff_entry("l.0.w", t), diff_entry("l.1.w", t), diff_entry("n", t)});
  ti::DiffOptions o;
  o.names = {"l.*"};
  CHECK(pair_names(ti::pair_tensors(a, b, o)) == std::vector<std::string>{"l.0.w:l.0.w:same", "l.1.w:l.1.w:same"});
  o.names = {"q.*"};
  CHECK_THROWS_WITH_AS(ti::pair_tensors(a, b, o), "diff: --name 'q.*' matches no tensor of a.npz or b.npz", ti::Error);
}

TEST_CASE("pair_tensors refuses malformed renames and two of A's tensors renamed onto one of B's") {
  const ti::Tensor t = f64({1.0});
  const ti::DiffInput a = diff_side("a", {diff_entry("p", t), diff_entry("q", t)});
  const ti::DiffInput b = diff_side("b", {diff_entry("r", t), diff_entry("s", t)});
  ti::DiffOptions o;
  o.renames = {"=r"};
  CHECK_THROWS_WITH_AS(ti::pair_tensors(a, b, o), "diff --rename '=r': write FROM=TO", ti::Error);
  o.renames = {};
  o.rename_regex = {"("};
  CHECK(test_util::code_of([&] { ti::pair_tensors(a, b, o); }) == ti::ErrorCode::Usage);
  o.rename_regex = {"^[pq]$=r"};
  CHECK_THROWS_WITH_AS(ti::pair_tensors(a, b, o),
                       "diff: a's tensors 'p' and 'q' both pair with b's 'r' (check --rename and --rename-regex)",
                       ti::Error);
}

TEST_CASE("compare_pair judges values, shapes and dtypes; the row's JSON carries the quantization error") {
  const ti::DiffInput a =
      diff_side("a", {diff_entry("w", f64({1.0, 2.5, 3.0, 0.5})), diff_entry("s", f64({1.0, 2.0}))});
  const ti::DiffInput b = diff_side("b", {diff_entry("w", f64({1.0, 2.0, 4.0, 0.5})), diff_entry("s", f64({1.0}))});
  std::vector<std::string> streamed;
  const std::vector<ti::DiffRow> rows =
      ti::diff_tensors(a, b, {}, [&](const ti::DiffRow& r) { streamed.push_back(ti::diff_status_text(r.status)); });
  CHECK(streamed == std::vector<std::string>{"differs", "shape mismatch"});
  REQUIRE(rows.size() == 2);
  REQUIRE(rows[0].cmp);
  CHECK(rows[0].cmp->mismatched == 2);
  CHECK(rows[0].rtol == 1e-05);
  const std::string json = ti::diff_row_json(rows[0]);
  CHECK(json.find("\"first_mismatch\": [1]") != std::string::npos);
  CHECK(json.find("\"sum_sq_a\": 16.5, \"sum_sq_diff\": 1.25, \"nmse\": 0.07575757575757576, \"sqnr_db\": "
                  "11.205739312058498") != std::string::npos);
  CHECK(json.find("\"rmse\": 0.5590169943749475") != std::string::npos);  // sqrt(1.25 / 4), NumPy's repr
  CHECK(ti::diff_found_difference(rows));
  CHECK(ti::diff_summary_json(rows).find("\"compared\": 2, \"same\": 0, \"differs\": 1, \"shape_mismatch\": 1") !=
        std::string::npos);
}

TEST_CASE(
    "compare_pair: a dtype mismatch within tolerance is same with ignore_dtype; --tolerance torch takes the looser "
    "dtype's") {
  const ti::Tensor h = test_util::tensor_of<std::uint16_t>({0x3c00, 0x4000}, DType::Float16);  // 1.0, 2.0
  const ti::DiffInput a = diff_side("a", {diff_entry("w", h)});
  const ti::DiffInput b = diff_side("b", {diff_entry("w", f64({1.0, 2.0}))});
  ti::DiffOptions o;
  std::vector<ti::DiffRow> rows = ti::diff_tensors(a, b, o, {});
  CHECK(rows[0].status == DiffStatus::DTypeMismatch);
  o.ignore_dtype = true;
  o.tolerance = "torch";  // torch.testing._comparison._DTYPE_PRECISIONS: float16 (1e-3, 1e-5), float64 (1e-7, 1e-7)
  rows = ti::diff_tensors(a, b, o, {});
  CHECK(rows[0].status == DiffStatus::Same);
  CHECK(rows[0].rtol == 0.001);
  CHECK(rows[0].atol == 1e-05);
  const std::string text = test_util::rendered([&](ti::OutBuffer& out) { ti::write_diff_text(rows, a, b, out); });
  CHECK(text.find("same (float16 vs float64)") != std::string::npos);
  CHECK(text.substr(text.rfind('\n', text.size() - 2) + 1, 41) == "0 of 1 compared tensors differ, 0 only in");
}

TEST_CASE("diff status names: one per verdict, in the summary's order") {
  CHECK(ti::kDiffStatusCount == 7);
  CHECK(std::string(ti::diff_status_json(DiffStatus::OnlyInB)) == "only_in_b");
  CHECK(std::string(ti::diff_status_text(DiffStatus::NotComparable)) == "not comparable");
}
