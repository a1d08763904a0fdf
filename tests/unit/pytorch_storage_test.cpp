// Tests of the storage types of loaders/pytorch.cpp: a storage type tinygrad has no dtype
// for (complex) is listed and refused at load. Archives are built by hand
// (pytorch_builder.hpp).
#include <doctest/doctest.h>

#include <string>

#include "pytorch_builder.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace ti = tensor_inspect;

using pytorch_test::kF32;
using pytorch_test::open_pickle;
using pytorch_test::Pickle;

TEST_CASE("pytorch: a storage type with no dtype (complex) is listed, refused at load") {
  SUBCASE("a storage type with no dtype here is listed, then refused at load") {
    Pickle p;
    p.op("}").str("z");
    p.tensor("ComplexFloatStorage", "0", 2, 0, {2}, {1});
    p.op("s.");
    const ti::LoadedFile f = open_pickle(p, {{"0", kF32}});
    CHECK_FALSE(f.tensors[0].dtype.has_value());
    CHECK_THROWS_WITH_AS(f.tensors[0].load(), "x.pt: tensor 'z': storage type torch.ComplexFloatStorage is not supported",
                         ti::Error);
  }
}
