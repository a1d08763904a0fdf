// Robustness of loaders/pytorch.cpp and loaders/pickle.cpp: every truncation and single-byte
// corruption of a torch.save sample and of a hand-built pickle ends in a result or an Error,
// never a crash (ASan and UBSan watch these in CI).
#include <doctest/doctest.h>

#include <string>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "pytorch_builder.hpp"
#include "test_util.hpp"
#include "zip_builder.hpp"

namespace ti = tensor_inspect;

TEST_CASE("pytorch: every truncation and every single-byte corruption gives a result or an Error") {
  const auto original = ti::MappedFile::open(test_util::kSamples + "state_dict.pt");
  const std::string bytes(reinterpret_cast<const char*>(original->bytes().data()), original->size());
  auto survive = [](const std::string& damaged) {
    try {
      const ti::LoadedFile f = ti::open_pytorch(zip_test::file_of(damaged, "x.pt"));
      for (const ti::TensorEntry& e : f.tensors) (void)ti::data(e.load());
    } catch (const ti::Error&) {
    }
  };
  for (std::size_t n = 0; n < bytes.size(); n += 5) CHECK_NOTHROW(survive(bytes.substr(0, n)));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
    CHECK_NOTHROW(survive(damaged));
  }
}

TEST_CASE("pytorch: every single-byte corruption of a pickle gives a result or an Error") {
  pytorch_test::Pickle p;
  p.op("}").str("a");
  p.tensor("FloatStorage", "0", 4, 1, {2}, {2});
  p.op("q\x01").str("b").op("h\x01").op("s").str("n").i32(-7).op("u.");
  for (std::size_t i = 2; i < p.s.size(); ++i) {
    for (unsigned x : {0x01u, 0x80u, 0xffu}) {
      std::string damaged = p.s;
      damaged[i] = static_cast<char>(static_cast<unsigned char>(damaged[i]) ^ x);
      CHECK_NOTHROW([&] {
        try {
          const ti::LoadedFile f = ti::open_pytorch(pytorch_test::archive(damaged, {{"0", pytorch_test::kF32}}));
          for (const ti::TensorEntry& e : f.tensors) (void)ti::data(e.load());
        } catch (const ti::Error&) {
        }
      }());
    }
  }
}
