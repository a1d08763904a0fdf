// tests/unit/test_util.hpp — helpers shared by the unit tests: where the sample files are,
// byte and file builders, and readers of a tensor's values and of a thrown Error's code.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <omp.h>
#include <unistd.h>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/render.hpp"
#include "tensor_inspect/tensor.hpp"

namespace test_util {

/// Restores the OpenMP thread count a test changes (omp_set_num_threads) when it ends.
struct ThreadCountGuard {
  int saved = omp_get_max_threads();
  ~ThreadCountGuard() { omp_set_num_threads(saved); }
};

namespace ti = tensor_inspect;

/// The checked-in samples/ folder, with a trailing slash.
inline const std::string kSamples = std::string(TI_SOURCE_DIR) + "/samples/";
/// The real files of other projects (../shared/realdata/EXPECTED.md); tests skip when it is absent.
inline const std::string kRealData = std::string(TI_SOURCE_DIR) + "/../shared/realdata/";

/// What `render` writes through an OutBuffer, as a string (an in-memory FILE).
inline std::string rendered(const std::function<void(ti::OutBuffer&)>& render) {
  char* text = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&text, &len);
  {
    ti::OutBuffer out(f);
    render(out);
  }
  std::fclose(f);
  std::string s(text, len);
  std::free(text);
  return s;
}

/// The bytes of `s`, as MappedFile::from_bytes and the sniffers take them.
inline std::vector<std::byte> bytes_of(std::string_view s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

/// The code of the ti::Error that `f` throws, or ErrorCode::Internal if it throws none.
inline ti::ErrorCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ti::Error& e) {
    return e.code();
  }
  return ti::ErrorCode::Internal;
}

/// Python's repr of Tensor.data().tolist(), through the library's renderer.
inline std::string tolist(const ti::Tensor& t) {
  const ti::MemoryView mv = ti::data(t);
  char* text = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&text, &len);
  {
    ti::OutBuffer out(f);
    ti::write_tolist(mv, false, ti::NonFinite::String, out);
  }
  std::fclose(f);
  std::string s(text, len);
  std::free(text);
  return s;
}

/// The elements of Tensor.data() (the memoryview tinygrad returns) as doubles.
inline std::vector<double> values(const ti::Tensor& t) {
  ti::MemoryView mv = ti::data(t);
  std::vector<double> out;
  for (std::int64_t i = 0; i < mv.numel(); ++i) out.push_back(mv.element(i).as_double());
  return out;
}

/// The values of a tensor after realize, read from its buffer with the dtype table.
inline std::vector<ti::Scalar> realized(const ti::Tensor& t) {
  const ti::Tensor r = t.realize();
  const auto& buffer = std::get<std::shared_ptr<ti::Buffer>>(r.node()->arg);
  const auto itemsize = ti::dtype_info(r.dtype()).itemsize;
  std::vector<ti::Scalar> out;
  for (std::int64_t i = 0; i < r.numel(); ++i)
    out.push_back(ti::load_scalar(r.dtype(), buffer->bytes().data() + i * itemsize));
  return out;
}

/// realized(t) as doubles.
inline std::vector<double> doubles(const ti::Tensor& t) {
  std::vector<double> out;
  for (const ti::Scalar& s : realized(t)) out.push_back(s.as_double());
  return out;
}

/// realized(t) as the integers their bits hold.
inline std::vector<std::int64_t> ints(const ti::Tensor& t) {
  std::vector<std::int64_t> out;
  for (const ti::Scalar& s : realized(t)) out.push_back(static_cast<std::int64_t>(s.as_bits()));
  return out;
}

/// A tensor of `dtype` over a copy of `values` (stored as T, native order), of `shape`;
/// an empty shape means 1-D of values.size() elements.
template <typename T>
ti::Tensor tensor_of(const std::vector<T>& values, ti::DType dtype, ti::Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<std::int64_t>(values.size())};
  auto buf = ti::Buffer::cpu(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(buf->mutable_bytes().data(), values.data(), values.size() * sizeof(T));  // memcpy from null is UB
  return ti::Tensor::from_buffer(buf, dtype, std::move(shape));
}

/// The names of a file's tensors, in listing order.
inline std::vector<std::string> names_of(const ti::LoadedFile& f) {
  std::vector<std::string> out;
  for (const auto& e : f.tensors) out.push_back(e.name);
  return out;
}

/// Tensor.data() of a Python literal, optionally as `dtype` and with DataOptions::strict.
inline ti::MemoryView mv(const char* text, std::optional<ti::DType> dtype = std::nullopt, bool strict = false) {
  ti::DataOptions o;
  o.strict = strict;
  return ti::data(ti::tensor_from_literal(text, dtype), o);
}

/// A .npy header dict ending in a newline; `pad64` pads it with spaces, as NumPy does, so the data starts at a multiple
/// of 64.
inline std::string npy_header(std::string_view descr, std::string_view shape, bool fortran = false,
                              bool pad64 = false) {
  std::string out = "{'descr': '" + std::string(descr) + "', 'fortran_order': " + (fortran ? "True" : "False") +
                    ", 'shape': " + std::string(shape) + ", }";
  while (pad64 && (10 + out.size() + 1) % 64 != 0) out += ' ';
  return out + '\n';
}

/// A .npy file: magic, version major.0, header length (2 bytes in 1.0, else 4), header, data.
inline std::string npy(std::string_view header, std::string_view data = {}, int major = 1) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t n = header.size();
  const int len_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < len_bytes; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  out += header;
  out += data;
  return out;
}

/// A fresh scratch directory <tmp>/<prefix><pid>, removed with everything in it at the end of its scope.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix)
      : path(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() { std::filesystem::remove_all(path); }
  /// Writes `content` to the file `name` in the directory (REQUIRE that it opens) and returns its path.
  std::string write(const std::string& name, std::string_view content) const {
    const std::string p = (path / name).string();
    std::FILE* f = std::fopen(p.c_str(), "wb");
    REQUIRE(f != nullptr);
    if (!content.empty()) std::fwrite(content.data(), 1, content.size(), f);
    std::fclose(f);
    return p;
  }
};

}  // namespace test_util
