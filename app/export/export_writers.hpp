// app/export/export_writers.hpp — the two file layouts export writes, each streamed from
// tensors in C order (values little-endian): .npy (NumPy's format 1.0, or 2.0 for a header
// over 65535 bytes) and .safetensors (8-byte header length, JSON header, data).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect::app {

/// Writes `t`'s values in C order, little-endian, to `f` (bits as they are: NaN payloads,
/// -0.0), a batch of the executor at a time, folding them into `crc` (zlib's CRC-32) when
/// given. Throws Error(Io) naming `path` on a write error.
void write_elements(const Tensor& t, std::FILE* f, const std::string& path, std::uint32_t* crc);

/// The .npy preamble of `t` (magic, version, header dict padded to 64 bytes). Throws
/// Error(Unsupported) naming `path` for a dtype NumPy has no descr for.
std::string npy_preamble(const Tensor& t, const std::string& path);

/// Writes `t` as a .npy to `path`. Throws Error(Unsupported) for a dtype NumPy has no descr
/// for (bfloat16, fp8: export to .safetensors), Error(Io) on a write error.
void write_npy(const Tensor& t, const std::string& path);

/// Writes named tensors as an .npz (a zip of stored NAME.npy members, as numpy.savez writes
/// it). Throws Error(Unsupported) where zip64 would be needed (a member or the archive of 4 GiB).
void write_npz(const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& path);

/// Writes named tensors as a .safetensors to `path`, with `metadata` as its __metadata__.
void write_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                       const std::vector<std::pair<std::string, std::string>>& metadata, const std::string& path);

}  // namespace tensor_inspect::app
