// schemes/nvfp4.cpp — NVFP4 as NVIDIA TensorRT-Model-Optimizer exports it (config
// {"quant_method": "modelopt", "quant_algo": "NVFP4"}, group_size 16).
//
//   parts  `P.weight` U8 [out, in/2]: FP4 E2M1 codes, two per byte, the first in the low
//          nibble; `P.weight_scale` F8_E4M3 [out, in/16]: one scale per 16 values;
//          `P.weight_scale_2` F32 [] or [1]: the global scale
//   decode w[i, j] = e2m1[code] * (float(weight_scale[i, j / 16]) * weight_scale_2)
//   (modelopt/torch/quantization/qtensor/nvfp4_tensor.py NVFP4QTensor.dequantize: the
//   per-block scale is q_per_block_scale.to(float32) * double_scale, then the unpacked
//   values times it. Its e2m1_values table maps code 8 to +0, not -0; we follow it.)
#include <algorithm>
#include <cstring>

#include "decode/minifloat.hpp"
#include "decode/scaled_runs.hpp"
#include "loaders/decoded_tensor.hpp"
#include "schemes/scheme.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kName = "nvfp4";

std::optional<LogicalTensor> build(const SchemeInput& in, const std::string& prefix) {
  const std::string logical = prefix + ".weight";
  if (!in.config) {  // without a config: U8 weight + F8_E4M3 weight_scale + weight_scale_2 mark it
    const TensorEntry* w = in.find(logical);
    const TensorEntry* s = in.find(prefix + ".weight_scale");
    if (!w || !s || !in.find(prefix + ".weight_scale_2") || w->stored_type != "U8" || s->stored_type != "F8_E4M3")
      return std::nullopt;
  }
  const TensorEntry& w = in.part(logical, logical, kName);
  const TensorEntry& s = in.part(logical, prefix + ".weight_scale", kName);
  const TensorEntry& g = in.part(logical, prefix + ".weight_scale_2", kName);
  if (w.stored_type != "U8") in.fail(logical, w.name, kName, "dtype " + w.stored_type + ", not U8");
  if (s.stored_type != "F8_E4M3") in.fail(logical, s.name, kName, "dtype " + s.stored_type + ", not F8_E4M3");
  if (g.stored_type != "F32") in.fail(logical, g.name, kName, "dtype " + g.stored_type + ", not F32");
  if (!(g.shape.empty() || g.shape == Shape{1}))
    in.fail(logical, g.name, kName, "shape " + shape_text(g.shape) + ", not [] or [1]");
  if (w.shape.size() != 2) in.fail(logical, w.name, kName, "shape " + shape_text(w.shape) + " is not 2-D [out, in/2]");
  std::int64_t group = 16;
  if (in.config && in.config->contains("group_size")) {
    const nlohmann::json& v = (*in.config)["group_size"];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 2 || v.get<std::int64_t>() % 2 != 0 ||
        v.get<std::int64_t>() > (1 << 20))
      in.fail_config("group_size", v.dump() + " is not a positive even integer");
    group = v.get<std::int64_t>();
  }
  const std::int64_t out = w.shape[0], inn = in.scaled(logical, w, kName, w.shape[1], 2);
  const Shape want{out, inn / group};
  if (inn % group != 0 || s.shape != want)
    in.fail(logical, s.name, kName,
            "shape " + shape_text(s.shape) + ", but weight " + shape_text(w.shape) + " (" + std::to_string(inn) +
                " values a row) in groups of " + std::to_string(group) + " needs " + shape_text(want));
  const auto wf = part_file(in, logical, w, kName), sf = part_file(in, logical, s, kName),
             gf = part_file(in, logical, g, kName);
  LogicalTensor lt;
  lt.parts = {w.name, s.name, g.name};
  TensorEntry& e = lt.entry;
  e.name = logical;
  e.dtype = DType::Float32;
  e.shape = Shape{out, inn};
  e.stored_type = "nvfp4, " + std::to_string(group) + "-element groups with e4m3 scales and a global scale";
  set_stored(e, {&w, &s, &g}, {"weight", "weight_scale", "weight_scale_2"});
  // NVFP4QTensor.dequantize hands back metadata["dtype"], the dtype of the weight it
  // quantized: the model's torch_dtype (config.json); without a config, not known.
  if (in.config) set_producer_dtype(e, "ModelOpt", in.model_dtype.value_or(""));
  const std::uint64_t wo = w.offset, wn = w.nbytes, so = s.offset, sn = s.nbytes, go = g.offset;
  e.details_for_write().loader = [=, label = "dequantize nvfp4 '" + logical + "'"]() {
    RangeDecode decode = [=](std::int64_t first, std::span<float> o) {
      if (o.empty()) return;
      std::array<float, 16> lut = fp4_e2m1_table();
      lut[8] = 0.0f;  // ModelOpt's e2m1_values
      const std::array<float, 256>& e4m3 = fp8_e4m3_table();
      const std::byte* codes = wf->bytes().data() + wo;
      const std::byte* scales = sf->bytes().data() + so;
      float global;
      std::memcpy(&global, gf->bytes().data() + go, 4);
      // A group of `group` values at a time (rows hold whole groups: element i's group is
      // i / group), its scale computed once.
      const std::int64_t last = first + static_cast<std::int64_t>(o.size());
      float* y = o.data();
      for (std::int64_t i = first; i < last;) {
        const std::int64_t block = i / group, end = std::min(last, (block + 1) * group);
        const float scale = e4m3[static_cast<std::uint8_t>(scales[block])] * global;
        // Rows hold inn/2 bytes: value i is a nibble of byte i / 2, the low one first.
        nibbles_lut_scaled(codes, false, i, end - i, lut.data(), scale, y);
        y += end - i;
        i = end;
      }
    };
    return decoded_tensor(label, Shape{out, inn}, std::move(decode), [=] {
      wf->fetch(wo, wn);
      sf->fetch(so, sn);
      gf->fetch(go, 4);
    }, release_in_order(wf, wo, wn, out * inn));
  };
  return lt;
}

}  // namespace

SchemeRow scheme_nvfp4() {
  SchemeRow r;
  r.name = kName;
  r.quant_methods = {"modelopt"};
  r.key_suffix = ".weight_scale_2";
  r.selects = [](const nlohmann::json& q) { return q.contains("quant_algo") && q["quant_algo"] == "NVFP4"; };
  r.build = build;
  r.orphan = [](const TensorEntry& e) -> std::optional<std::string> {
    if (e.stored_type == "U8" && e.name.ends_with(".weight")) return e.name + "_scale_2";
    return std::nullopt;
  };
  return r;
}

}  // namespace tensor_inspect
