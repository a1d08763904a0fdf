// tensor_inspect/schemes.hpp — quantization schemes' stored parts as the logical tensors a
// model means (DESIGN.md "Logical tensors over stored parts").
//
// A quantized checkpoint stores one weight as several tensors (an fp8 `weight` and its
// `weight_scale_inv`; gpt-oss's `*_blocks` and `*_scales`). apply_schemes replaces each
// such group, in the listing, by one float32 tensor under the name the original model used,
// in the layout transformers gives it after loading, whose values dequantize lazily (only
// the blocks a slice reads). The scheme comes from config.json's `quantization_config`
// (MLX: `quantization`) beside a model folder, else from the parts' names and dtypes.
//
//   ti::LoadedFile f = ti::open_file("Qwen3-8B-FP8/");
//   ti::apply_schemes(f);            // model.layers.0.mlp.down_proj.weight: float32 (4096, 12288)
//   ti::Tensor w = f.tensors[0].load();
#pragma once

#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// Replaces the parts of every quantized weight in `file` by its logical tensor, in the
/// place of its first part; other tensors stay as they are. Reads config.json when
/// `file.path` is a folder. Throws Error(BadFile) naming the tensor and the part when a
/// part is missing or does not fit (dtype, shape), and naming config.json and the key when
/// its quantization config is malformed. A scheme config.json names that is not decoded
/// here adds a warning to `file.warnings` and leaves the parts as stored.
void apply_schemes(LoadedFile& file);

}  // namespace tensor_inspect
