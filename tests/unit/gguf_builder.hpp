// tests/unit/gguf_builder.hpp — GGUF bytes written field by field for the loader's tests
// (gguf_test.cpp, gguf_names_test.cpp), and the checks they share.
//
//   gguf_builder::Gguf g;
//   g.header(1, 0).info("w", {2}, 0, 0).pad().raw(std::string(8, '\0'));
//   const ti::LoadedFile f = gguf_builder::open_gg(g.b);
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "test_util.hpp"

namespace gguf_builder {

namespace ti = tensor_inspect;

// Little-endian GGUF bytes, written field by field.
struct Gguf {
  std::string b;
  Gguf& raw(std::string_view s) { b += s; return *this; }
  Gguf& u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  Gguf& u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) b += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  Gguf& str(std::string_view s) { u64(s.size()); return raw(s); }
  Gguf& header(std::uint64_t tensors, std::uint64_t kvs, std::uint32_t version = 3) {
    return raw("GGUF").u32(version).u64(tensors).u64(kvs);
  }
  Gguf& kv_u32(std::string_view key, std::uint32_t v) { return str(key).u32(4).u32(v); }
  Gguf& info(std::string_view name, std::vector<std::uint64_t> dims, std::uint32_t type, std::uint64_t offset) {
    str(name).u32(static_cast<std::uint32_t>(dims.size()));
    for (std::uint64_t d : dims) u64(d);
    return u32(type).u64(offset);
  }
  Gguf& pad(std::size_t alignment = 32) {
    while (b.size() % alignment != 0) b += '\0';
    return *this;
  }
  std::uint64_t at() const { return b.size(); }
};

inline ti::LoadedFile open_gg(const std::string& bytes) {
  return ti::open_gguf(ti::MappedFile::from_bytes(test_util::bytes_of(bytes), "x.gguf"));
}

#define CHECK_GG_ERROR(bytes, code, message)                    \
  do {                                                          \
    const std::string bytes_ = (bytes);                         \
    const std::string message_ = (message);                    \
    CHECK_THROWS_WITH_AS(open_gg(bytes_), message_.c_str(), ti::Error); \
    CHECK(test_util::code_of([&] { open_gg(bytes_); }) == (code)); \
  } while (0)

inline std::string at(std::uint64_t n) { return " at byte " + std::to_string(n); }

inline const ti::TensorEntry& entry(const ti::LoadedFile& f, const std::string& name) {
  for (const auto& e : f.tensors)
    if (e.name == name) return e;
  FAIL("no tensor " << name);
  throw 0;
}

inline const ti::MetaEntry& meta(const ti::LoadedFile& f, const std::string& key) {
  for (const auto& m : f.metadata)
    if (m.key == key) return m;
  FAIL("no metadata " << key);
  throw 0;
}

}  // namespace gguf_builder
