// schemes/fp8.cpp — fp8 E4M3 weights with their scales, two rows:
//
// fp8-block (DeepSeek-V3, Qwen3-FP8; config {"quant_method": "fp8", "weight_block_size": [bn, bk]}):
//   parts  `P.weight` F8_E4M3 [out, in], `P.weight_scale_inv` F32 or BF16 [ceil(out/bn), ceil(in/bk)]
//   decode w[i, j] = float(weight[i, j]) * scale_inv[i / bn, j / bk]
//   (deepseek-ai/DeepSeek-V3 inference/kernel.py weight_dequant_kernel: x.to(float32) * s,
//   called by inference/fp8_cast_bf16.py for every `weight` with a `weight_scale_inv`; the
//   product is then stored as torch's default dtype there, bfloat16; we keep float32).
//   Without config.json the block is 128x128, the only size these producers write, and
//   the listing says it was assumed.
// fp8-scale (compressed-tensors "float-quantized", fbgemm_fp8, ModelOpt "FP8"):
//   parts  `P.weight` F8_E4M3 [out, in], `P.weight_scale` F32 or BF16: [] or [1] (per tensor),
//          [out] or [out, 1] (per output channel)
//   decode w[i, j] = float(weight[i, j]) * scale[i] (or scale[0])
//   (neuralmagic/compressed-tensors quantization/lifecycle/forward.py dequantize:
//   x_q.to(dtype) * scale with no zero point for float types; transformers
//   integrations/fbgemm_fp8.py keeps weight_scale [out, 1] beside the fp8 weight).
#include <cmath>
#include <cstring>

#include "decode/scaled_runs.hpp"
#include "loaders/decoded_tensor.hpp"
#include "schemes/scheme.hpp"
#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect {

namespace {

/// A scale tensor's element k as float32 (F32 or BF16, little-endian).
struct ScaleReader {
  const std::byte* base = nullptr;
  bool bf16 = false;
  float operator()(std::int64_t k) const {
    if (bf16) {
      std::uint16_t b;
      std::memcpy(&b, base + 2 * k, 2);
      const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
      float v;
      std::memcpy(&v, &bits, 4);
      return v;
    }
    float v;
    std::memcpy(&v, base + 4 * k, 4);
    return v;
  }
};

bool is_scale_type(const TensorEntry& e) { return e.stored_type == "F32" || e.stored_type == "BF16"; }

void check_weight(const SchemeInput& in, const std::string& logical, const TensorEntry& w, std::string_view scheme) {
  if (w.stored_type != "F8_E4M3") in.fail(logical, w.name, scheme, "dtype " + w.stored_type + ", not F8_E4M3");
  if (w.shape.size() != 2) in.fail(logical, w.name, scheme, "shape " + shape_text(w.shape) + " is not 2-D [out, in]");
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::optional<LogicalTensor> build_block(const SchemeInput& in, const std::string& prefix) {
  constexpr std::string_view kName = "fp8 block";
  const std::string logical = prefix + ".weight";
  const TensorEntry& w = in.part(logical, logical, kName);
  const TensorEntry& s = in.part(logical, prefix + ".weight_scale_inv", kName);
  check_weight(in, logical, w, kName);
  std::int64_t bn = 128, bk = 128;
  bool assumed = true;
  if (in.config && in.config->contains("weight_block_size")) {
    const nlohmann::json& b = (*in.config)["weight_block_size"];
    if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer() ||
        b[0].get<std::int64_t>() < 1 || b[1].get<std::int64_t>() < 1 || b[0].get<std::int64_t>() > (1 << 20) ||
        b[1].get<std::int64_t>() > (1 << 20))
      in.fail_config("weight_block_size", b.dump() + " is not two positive integers");
    bn = b[0].get<std::int64_t>();
    bk = b[1].get<std::int64_t>();
    assumed = false;
  }
  if (!is_scale_type(s)) in.fail(logical, s.name, kName, "dtype " + s.stored_type + ", not F32 or BF16");
  const std::int64_t out = w.shape[0], inn = w.shape[1];
  const Shape want{ceil_div(out, bn), ceil_div(inn, bk)};
  if (s.shape != want)
    in.fail(logical, s.name, kName,
            "shape " + shape_text(s.shape) + ", but weight " + shape_text(w.shape) + " in " + std::to_string(bn) + "x" +
                std::to_string(bk) + " blocks needs " + shape_text(want));
  const auto wf = part_file(in, logical, w, kName), sf = part_file(in, logical, s, kName);
  LogicalTensor lt;
  lt.parts = {w.name, s.name};
  TensorEntry& e = lt.entry;
  e.name = logical;
  e.dtype = DType::Float32;
  e.shape = w.shape;
  e.stored_type = "fp8 e4m3, " + std::to_string(bn) + "x" + std::to_string(bk) + " block scales";
  set_stored(e, {&w, &s}, {"weight", "weight_scale_inv"});
  if (assumed) e.note += "; block size assumed: no config.json";
  // What the producer hands back: transformers' FP8Linear (integrations/finegrained_fp8.py)
  // returns the input's dtype, the model's torch_dtype (config.json); without a config,
  // DeepSeek-V3's inference/fp8_cast_bf16.py, which reads such files alone, writes bfloat16
  // (torch.set_default_dtype(torch.bfloat16) before weight_dequant).
  if (in.config) set_producer_dtype(e, "transformers", in.model_dtype.value_or(""));
  else set_producer_dtype(e, "fp8_cast_bf16.py", "bfloat16");
  const std::uint64_t wo = w.offset, wn = w.nbytes, so = s.offset, sn = s.nbytes;
  const bool bf16 = s.stored_type == "BF16";
  const std::int64_t scale_cols = want[1];
  e.details_for_write().loader = [=, label = "dequantize fp8 block '" + logical + "'"]() {
    RangeDecode decode = [=](std::int64_t first, std::span<float> o) {
      if (o.empty()) return;
      const std::byte* codes = wf->bytes().data() + wo;
      const ScaleReader scale{sf->bytes().data() + so, bf16};
      std::int64_t i = first / inn, j = first % inn;
      for (std::size_t k = 0; k < o.size();) {
        const std::int64_t srow = (i / bn) * scale_cols;
        const std::int64_t end = std::min<std::int64_t>(inn, j + static_cast<std::int64_t>(o.size() - k));
        while (j < end) {  // one run of a row: a scale per bk columns
          const float sc = scale(srow + j / bk);
          const std::int64_t stop = std::min(end, (j / bk + 1) * bk);
          fp8_e4m3_scaled(codes + i * inn + j, stop - j, sc, o.data() + k);
          k += static_cast<std::size_t>(stop - j);
          j = stop;
        }
        if (j == inn) ++i, j = 0;
      }
    };
    return decoded_tensor(label, Shape{out, inn}, std::move(decode), [=] {
      wf->fetch(wo, wn);
      sf->fetch(so, sn);
    }, release_in_order(wf, wo, wn, out * inn));
  };
  return lt;
}

std::optional<LogicalTensor> build_scale(const SchemeInput& in, const std::string& prefix) {
  constexpr std::string_view kName = "fp8 scale";
  const std::string logical = prefix + ".weight";
  // NVFP4 (ModelOpt) keys on `weight_scale` too, with a U8 weight and a `weight_scale_2`.
  if (!in.config && in.find(prefix + ".weight_scale_2")) return std::nullopt;
  const TensorEntry& w = in.part(logical, logical, kName);
  const TensorEntry& s = in.part(logical, prefix + ".weight_scale", kName);
  check_weight(in, logical, w, kName);
  if (!is_scale_type(s)) in.fail(logical, s.name, kName, "dtype " + s.stored_type + ", not F32 or BF16");
  const std::int64_t out = w.shape[0], inn = w.shape[1];
  const Shape& ss = s.shape;
  const bool per_tensor = ss.empty() || ss == Shape{1} || ss == Shape{1, 1};
  const bool per_channel = !per_tensor && (ss == Shape{out} || ss == Shape{out, 1});
  if (!per_tensor && !per_channel)
    in.fail(logical, s.name, kName,
            "shape " + shape_text(ss) + " is neither per tensor ([] or [1]) nor per channel ([" + std::to_string(out) +
                "] or [" + std::to_string(out) + ", 1])");
  const auto wf = part_file(in, logical, w, kName), sf = part_file(in, logical, s, kName);
  LogicalTensor lt;
  lt.parts = {w.name, s.name};
  TensorEntry& e = lt.entry;
  e.name = logical;
  e.dtype = DType::Float32;
  e.shape = w.shape;
  e.stored_type = std::string("fp8 e4m3, ") + (per_tensor ? "per-tensor scale" : "per-channel scales");
  set_stored(e, {&w, &s}, {"weight", "weight_scale"});
  // What the producer hands back: compressed-tensors' dequantize computes in the scale's
  // dtype (quantization/lifecycle/forward.py: output zeros_like(x, dtype=scale.dtype));
  // transformers' FbgemmFp8Linear (integrations/fbgemm_fp8.py) and ModelOpt's FP8 export
  // return the input's dtype, the model's torch_dtype. Without a config: not known.
  if (in.config) {
    const std::string method = (*in.config)["quant_method"].get<std::string>();  // apply.cpp checked it
    if (method == "compressed-tensors") set_producer_dtype(e, "compressed-tensors", scale_dtype_name(s));
    else set_producer_dtype(e, method == "modelopt" ? "ModelOpt" : "transformers", in.model_dtype.value_or(""));
  }
  const std::uint64_t wo = w.offset, wn = w.nbytes, so = s.offset, sn = s.nbytes;
  const bool bf16 = s.stored_type == "BF16";
  e.details_for_write().loader = [=, label = "dequantize fp8 scale '" + logical + "'"]() {
    RangeDecode decode = [=](std::int64_t first, std::span<float> o) {
      if (o.empty()) return;
      const std::byte* codes = wf->bytes().data() + wo;
      const ScaleReader scale{sf->bytes().data() + so, bf16};
      std::int64_t i = first / inn, j = first % inn;
      for (std::size_t k = 0; k < o.size();) {
        const float sc = scale(per_tensor ? 0 : i);
        const std::int64_t end = std::min<std::int64_t>(inn, j + static_cast<std::int64_t>(o.size() - k));
        fp8_e4m3_scaled(codes + i * inn + j, end - j, sc, o.data() + k);
        k += static_cast<std::size_t>(end - j);
        j = end;
        if (j == inn) ++i, j = 0;
      }
    };
    return decoded_tensor(label, Shape{out, inn}, std::move(decode), [=] {
      wf->fetch(wo, wn);
      sf->fetch(so, sn);
    }, release_in_order(wf, wo, wn, out * inn));
  };
  return lt;
}

std::optional<std::string> fp8_orphan(const TensorEntry& e, std::string_view key) {
  if (e.stored_type == "F8_E4M3" && e.name.ends_with(".weight")) return e.name + std::string(key);
  return std::nullopt;
}

}  // namespace

SchemeRow scheme_fp8_block() {
  SchemeRow r;
  r.name = "fp8 block";
  r.quant_methods = {"fp8"};
  r.key_suffix = ".weight_scale_inv";
  r.build = build_block;
  r.orphan = [](const TensorEntry& e) { return fp8_orphan(e, "_scale_inv"); };
  return r;
}

SchemeRow scheme_fp8_scale() {
  SchemeRow r;
  r.name = "fp8 scale";
  r.quant_methods = {"fbgemm_fp8", "compressed-tensors", "modelopt"};
  r.key_suffix = ".weight_scale";
  // compressed-tensors: only its float-quantized format stores plain fp8 weights; ModelOpt:
  // its FP8 algorithm (a per-tensor weight_scale).
  r.selects = [](const nlohmann::json& q) {
    if (q["quant_method"] == "compressed-tensors") return q.contains("format") && q["format"] == "float-quantized";
    if (q["quant_method"] == "modelopt") return q.contains("quant_algo") && q["quant_algo"] == "FP8";
    return true;
  };
  r.build = build_scale;
  r.orphan = [](const TensorEntry& e) { return fp8_orphan(e, "_scale"); };
  return r;
}

}  // namespace tensor_inspect
