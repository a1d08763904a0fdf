// Tests of loaders/pytorch_storage.cpp and the storage types of loaders/pytorch.cpp: a
// storage type tinygrad has no dtype for (complex, quantized) is listed with its bytes and
// refused at load; where its tensor lies over the storage in C order, diff compares those
// bytes (EntryDetails::blocks_file). Archives are built by hand (pytorch_builder.hpp).
#include <doctest/doctest.h>

#include <span>
#include <string>

#include "pytorch_builder.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace ti = tensor_inspect;

using pytorch_test::kF32;
using pytorch_test::open_pickle;
using pytorch_test::Pickle;

TEST_CASE(
    "pytorch: a storage type with no dtype (complex) is listed with its bytes, refused at load, compared by bytes") {
  SUBCASE("a storage type with no dtype here is listed, then refused at load") {
    Pickle p;
    p.op("}").str("z");
    p.tensor("ComplexFloatStorage", "0", 2, 0, {2}, {1});
    p.op("s.");
    const ti::LoadedFile f = open_pickle(p, {{"0", kF32}});
    CHECK_FALSE(f.tensors[0].dtype.has_value());
    CHECK_THROWS_WITH_AS(f.tensors[0].load(),
                         "x.pt: tensor 'z': storage type torch.ComplexFloatStorage is not supported", ti::Error);
    // complex64 is 8 bytes an element: the 16 bytes of the member, which diff compares.
    CHECK(f.tensors[0].nbytes == 16);
    REQUIRE(f.tensors[0].details().blocks_file != nullptr);
    const std::span<const std::byte> stored = f.tensors[0].stored_blocks();
    CHECK(std::string(reinterpret_cast<const char*>(stored.data()), stored.size()) == kF32);
  }
  SUBCASE("a storage type with no dtype here, viewed with strides or too big for its member") {
    Pickle p;
    p.op("}(").str("t");
    p.tensor("ComplexFloatStorage", "0", 2, 0, {2, 1}, {1, 2});  // size-1 axis: still C order
    p.str("z");
    p.tensor("ComplexFloatStorage", "0", 2, 0, {1, 2}, {2, 1});  // C order
    p.str("v");
    p.tensor("ComplexFloatStorage", "0", 2, 0, {2}, {0});  // a saved expand: not the stored bytes in order
    p.op("u.");
    const ti::LoadedFile f = open_pickle(p, {{"0", kF32}});
    REQUIRE(f.tensors.size() == 3);
    CHECK(f.tensors[0].details().blocks_file != nullptr);
    CHECK(f.tensors[1].details().blocks_file != nullptr);
    CHECK(f.tensors[2].details().blocks_file == nullptr);
    Pickle big;
    big.op("}").str("z");
    big.tensor("ComplexDoubleStorage", "0", 2, 0, {2}, {1});  // 32 bytes in a 16-byte member
    big.op("s.");
    CHECK_THROWS_WITH_AS(
        open_pickle(big, {{"0", kF32}}),
        "x.pt: archive/data.pkl: tensor 'z': storage '0' of 2 ComplexDoubleStorage needs 32 bytes, "
        "member 'archive/data/0' holds 16 at byte 84",  // the key, as for FloatStorage (76) + 8 letters
        ti::Error);
  }
}
