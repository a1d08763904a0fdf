// tests/unit/pytorch_builder.hpp — torch.save archives built by hand for the PyTorch loader
// tests: a pickle written opcode by opcode (CPython's pickletools table, protocol 2 as
// torch.save writes it) and the zip around it (zip_builder.hpp), so every field a hostile
// file could lie in can be set.
//
//   pytorch_test::Pickle p;
//   p.op("}").str("w");
//   p.tensor("FloatStorage", "0", 4, 0, {4}, {1});         // _rebuild_tensor_v2 of storage '0'
//   p.op("s.");
//   ti::LoadedFile f = pytorch_test::open_pickle(p, {{"0", pytorch_test::kF32}});
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "loaders/formats.hpp"
#include "tensor_inspect/loader.hpp"
#include "zip_builder.hpp"

namespace pytorch_test {

namespace ti = tensor_inspect;

/// A pickle written opcode by opcode (protocol 2, as torch.save writes it).
struct Pickle {
  std::string s = std::string("\x80\x02", 2);
  std::size_t pos() const { return s.size(); }
  Pickle& op(std::string_view x) {
    s += x;
    return *this;
  }
  Pickle& i32(std::int32_t v) {  // BININT
    s += 'J';
    for (int k = 0; k < 4; ++k) s += static_cast<char>((static_cast<std::uint32_t>(v) >> (8 * k)) & 0xff);
    return *this;
  }
  Pickle& str(std::string_view x) {  // BINUNICODE
    s += 'X';
    for (int k = 0; k < 4; ++k) s += static_cast<char>((x.size() >> (8 * k)) & 0xff);
    s += x;
    return *this;
  }
  Pickle& global(std::string_view module, std::string_view name) {
    s += 'c';
    s += module;
    s += '\n';
    s += name;
    s += '\n';
    return *this;
  }
  Pickle& ints(const std::vector<std::int32_t>& v) {  // a tuple of ints
    op("(");
    for (std::int32_t x : v) i32(x);
    return op("t");
  }
  /// _rebuild_tensor_v2(('storage', torch.<type>, key, 'cpu', numel), offset, size, stride,
  /// False, {}); returns the offset of its REDUCE opcode.
  std::size_t tensor(std::string_view type, std::string_view key, std::int32_t numel, std::int32_t offset,
                     const std::vector<std::int32_t>& size, const std::vector<std::int32_t>& stride) {
    global("torch._utils", "_rebuild_tensor_v2").op("(");
    op("(").str("storage").global("torch", type).str(key).str("cpu").i32(numel).op("t").op("Q");
    i32(offset).ints(size).ints(stride).op("\x89}t");
    const std::size_t at = pos();
    op("R");
    return at;
  }
};

/// A torch.save archive: archive/data.pkl, archive/byteorder, archive/data/<key>.
inline std::shared_ptr<ti::MappedFile> archive(const std::string& pickle,
                                        const std::vector<std::pair<std::string, std::string>>& storages,
                                        const std::string& byteorder = "little", bool deflate_storages = false) {
  std::vector<zip_test::Member> members{zip_test::stored("archive/data.pkl", pickle),
                                        zip_test::stored("archive/byteorder", byteorder)};
  for (const auto& [key, bytes] : storages)
    members.push_back(deflate_storages ? zip_test::deflated("archive/data/" + key, bytes)
                                       : zip_test::stored("archive/data/" + key, bytes));
  members.push_back(zip_test::stored("archive/version", "3\n"));
  return zip_test::file_of(zip_test::build(members), "x.pt");
}

inline ti::LoadedFile open_pickle(const Pickle& p,
                                  const std::vector<std::pair<std::string, std::string>>& storages = {}) {
  return ti::open_pytorch(archive(p.s, storages));
}

// struct.pack('<4f', 1.0, -2.5, 3.25, 0.5)
inline const std::string kF32("\x00\x00\x80\x3f\x00\x00\x20\xc0\x00\x00\x50\x40\x00\x00\x00\x3f", 16);

inline const std::string kPickleName = "x.pt: archive/data.pkl: pickle";

}  // namespace pytorch_test
