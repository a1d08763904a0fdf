#include <doctest/doctest.h>

#include <malloc.h>

#include <cstdint>
#include <vector>

#include "tensor_inspect/graph.hpp"

namespace ti = tensor_inspect;
using ti::DType;
using ti::Op;
using ti::Scalar;

TEST_CASE("the intern table lets go of dropped nodes (issue 9 fault 6: the intern table never lets go)") {
  const std::size_t before = ti::intern_table_size();
  const std::size_t heap_before = mallinfo2().uordblks;
  ti::NodePtr kept = ti::make_node(Op::Const, DType::Int32, {}, {}, Scalar::from_int(-1));
  // 50,000 literals (400,000 took 73 s under ASan, the assertion in the loop most of it).
  std::int64_t grew_at = -1;
  for (std::int64_t i = 0; i < 50000 && grew_at < 0; ++i) {
    ti::NodePtr c = ti::make_node(Op::Const, DType::Int32, {}, {}, Scalar::from_int(i));
    ti::NodePtr e = ti::make_node(Op::Expand, DType::Int32, {3},
                                  {ti::make_node(Op::Reshape, DType::Int32, {1}, {c}, ti::Shape{1})}, ti::Shape{3});
    if (ti::intern_table_size() > before + 4) grew_at = i;
  }
  CHECK_MESSAGE(grew_at == -1, "the table grew at literal ", grew_at);
  CHECK(ti::intern_table_size() == before + 1);
  // 50,000 literals used to keep ~350 bytes each (17 MB); now nothing stays but `kept`.
  const std::size_t heap_after = mallinfo2().uordblks;
  CHECK(heap_after < heap_before + (std::size_t{4} << 20));
  kept.reset();
  CHECK(ti::intern_table_size() == before);
}

TEST_CASE("interning still finds a live node with the same fields, and a dropped one is made anew") {
  ti::NodePtr a = ti::make_node(Op::Const, DType::Float32, {2}, {}, Scalar::from_float(-0.0));
  ti::NodePtr b = ti::make_node(Op::Const, DType::Float32, {2}, {}, Scalar::from_float(-0.0));
  ti::NodePtr c = ti::make_node(Op::Const, DType::Float32, {2}, {}, Scalar::from_float(0.0));
  CHECK(a == b);
  CHECK(a != c);
  const std::size_t live = ti::intern_table_size();
  a.reset();
  CHECK(ti::intern_table_size() == live);  // b still holds the node
  b.reset();
  CHECK(ti::intern_table_size() == live - 1);
  ti::NodePtr d = ti::make_node(Op::Const, DType::Float32, {2}, {}, Scalar::from_float(-0.0));
  CHECK(ti::intern_table_size() == live);
  CHECK(d != c);
}
