// schemes/mlx.cpp — MLX affine quantization, 2/4/8-bit (config.json {"quantization":
// {"group_size": 64, "bits": 4}}, optionally with per-module overrides
// {"model.layers.0.mlp.down_proj": {"group_size": 32, "bits": 8}}).
//
//   parts  `P.weight` U32 [out, in*bits/32]: codes packed along the input axis, least
//          significant bits first; `P.scales`, `P.biases` F16/BF16/F32 [out, in/group]
//   decode w[o, i] = scales[o, i / group] * q(o, i) + biases[o, i / group]
//   (ml-explore/mlx mlx/backend/cpu/quantized.cpp _qmm_t: (scale * (wi & bitmask) + bias)
//   per packed value, wi shifted right by bits; the weight is the [out, in] of nn.Linear.)
// 3-, 5- and 6-bit MLX codes straddle words and are refused, naming the config key.
// Without config.json, a U32 `weight` beside F16/BF16/F32 `scales` and `biases` marks MLX
// parts, and the shapes give bits * group_size = 32 * words / groups: the one pair of MLX's
// bits (2, 3, 4, 5, 6, 8) and group sizes (32, 64, 128) with that product (mlx/ops.cpp
// quantize refuses others) is taken; where several fit (4-bit groups of 64 = 2-bit groups of
// 128 = 8-bit groups of 32, the usual case) it is an error naming the tensor and the
// config keys that would say which, never a guess.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "decode/packed_int.hpp"
#include "decode/scaled_runs.hpp"
#include "loaders/decoded_tensor.hpp"
#include "schemes/scheme.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kName = "mlx affine";

std::optional<LogicalTensor> build_with(const SchemeInput& in, const std::string& prefix, std::int64_t bits,
                                        std::int64_t group, bool inferred);

/// Without a config: the bits and group size the shapes of `w` and `s` allow, or fail()
/// naming the tensor, the shapes and what would tell (never a guess).
std::pair<std::int64_t, std::int64_t> infer_bits_group(const SchemeInput& in, const std::string& logical,
                                                       const TensorEntry& w, const TensorEntry& s) {
  const std::string shapes = "weight " + shape_text(w.shape) + " with scales " + shape_text(s.shape);
  if (w.shape.size() != 2 || s.shape.size() != 2 || s.shape[0] != w.shape[0] || s.shape[1] < 1 || w.shape[1] < 1 ||
      w.shape[1] > INT64_MAX / 32)
    in.fail(logical, s.name, kName, shapes + " are not [out, in*bits/32] and [out, in/group_size]");
  const std::int64_t product = 32 * w.shape[1];  // bits * group_size * groups
  std::vector<std::pair<std::int64_t, std::int64_t>> fits;
  if (product % s.shape[1] == 0)
    for (std::int64_t bits : {2, 3, 4, 5, 6, 8})
      for (std::int64_t group : {32, 64, 128})
        if (bits * group == product / s.shape[1]) fits.emplace_back(bits, group);
  if (fits.size() == 1) return fits.front();
  if (fits.empty())
    in.fail(logical, s.name, kName,
            shapes + " fit none of MLX's bits (2, 3, 4, 5, 6, 8) and group sizes (32, 64, 128)");
  std::string list;
  for (std::size_t k = 0; k < fits.size(); ++k)
    list += (k == 0 ? "" : k + 1 == fits.size() ? " and " : ", ") + std::to_string(fits[k].first) + "-bit groups of " +
            std::to_string(fits[k].second);
  in.undecided(logical, s.name, kName,
          shapes + " fit " + list + ": without config.json's \"quantization\" {\"bits\", \"group_size\"} " +
              "the values cannot be told (--stored lists the parts)");
}

std::optional<LogicalTensor> build(const SchemeInput& in, const std::string& prefix) {
  const std::string logical = prefix + ".weight";
  if (!in.config) {
    const TensorEntry* w = in.find(logical);
    const TensorEntry* s = in.find(prefix + ".scales");
    const TensorEntry* b = in.find(prefix + ".biases");
    if (!w || !s || !b || w->stored_type != "U32" || scale_dtype_name(*s).empty() || scale_dtype_name(*b).empty())
      return std::nullopt;
    const auto [bits, group] = infer_bits_group(in, logical, *w, *s);
    if (bits != 2 && bits != 4 && bits != 8)
      in.fail(logical, w->name, kName,
              "shapes say " + std::to_string(bits) + "-bit codes in groups of " + std::to_string(group) +
                  ", not decoded here (2, 4 or 8 bits)");
    return build_with(in, prefix, bits, group, true);
  }
  const nlohmann::json* q = &*in.config;
  std::string key_prefix;
  if (in.config->contains(prefix)) {  // a per-module override, or false: not quantized
    const nlohmann::json& o = (*in.config)[prefix];
    if (o.is_boolean() && !o.get<bool>()) return std::nullopt;
    if (!o.is_object()) in.fail_config(prefix, o.dump() + " is neither an object nor false");
    q = &o;
    key_prefix = prefix + ".";
  }
  const auto get = [&](const char* key) -> std::int64_t {
    if (!q->contains(key)) in.fail_config(key_prefix + key, "missing");
    const nlohmann::json& v = (*q)[key];
    if (!v.is_number_integer()) in.fail_config(key_prefix + key, v.dump() + " is not an integer");
    return v.get<std::int64_t>();
  };
  const std::int64_t bits = get("bits"), group = get("group_size");
  if (bits != 2 && bits != 4 && bits != 8)
    in.fail_config(key_prefix + "bits", std::to_string(bits) + " is not 2, 4 or 8 (decoded here)");
  if (group < 1 || group > (1 << 20))
    in.fail_config(key_prefix + "group_size", std::to_string(group) + " is not positive");
  return build_with(in, prefix, bits, group, false);
}

std::optional<LogicalTensor> build_with(const SchemeInput& in, const std::string& prefix, std::int64_t bits,
                                        std::int64_t group, bool inferred) {
  const std::string logical = prefix + ".weight";
  const TensorEntry* weight = in.find(logical);
  if (!weight || weight->stored_type != "U32")
    return std::nullopt;  // a module MLX left unquantized (scales of a norm?)
  const TensorEntry& w = *weight;
  const TensorEntry& s = in.part(logical, prefix + ".scales", kName);
  const TensorEntry& b = in.part(logical, prefix + ".biases", kName);
  if (w.shape.size() != 2)
    in.fail(logical, w.name, kName, "shape " + shape_text(w.shape) + " is not 2-D [out, in*bits/32]");
  const std::int64_t pack = 32 / bits, out = w.shape[0], inn = in.scaled(logical, w, kName, w.shape[1], pack);
  const int ks = scale_kind(in, logical, s, kName), kb = scale_kind(in, logical, b, kName);
  const Shape want{out, inn / group};
  if (inn % group != 0 || s.shape != want)
    in.fail(logical, s.name, kName,
            "shape " + shape_text(s.shape) + ", but weight " + shape_text(w.shape) + " of " + std::to_string(bits) +
                "-bit codes in groups of " + std::to_string(group) + " needs " + shape_text(want));
  if (b.shape != want) in.fail(logical, b.name, kName, "shape " + shape_text(b.shape) + ", not " + shape_text(want));
  const auto wf = part_file(in, logical, w, kName), sf = part_file(in, logical, s, kName),
             bf = part_file(in, logical, b, kName);
  LogicalTensor lt;
  lt.parts = {w.name, s.name, b.name};
  TensorEntry& e = lt.entry;
  e.name = logical;
  e.dtype = DType::Float32;
  e.shape = Shape{out, inn};
  e.stored_type = "mlx affine int" + std::to_string(bits) + ", groups of " + std::to_string(group);
  set_stored(e, {&w, &s, &b}, {"weight", "scales", "biases"});
  if (inferred) e.note += "; bits and group size from the shapes: no config.json";
  // mx.dequantize (mlx/ops.cpp dequantize) returns an array of the scales' dtype.
  set_producer_dtype(e, "mlx", scale_dtype_name(s));
  const std::uint64_t wo = w.offset, wn = w.nbytes, so = s.offset, sn = s.nbytes, bo = b.offset, bn = b.nbytes;
  const int nbits = static_cast<int>(bits);
  e.details_for_write().loader = [=, label = "dequantize mlx '" + logical + "'"]() {
    RangeDecode decode = [=](std::int64_t first, std::span<float> o) {
      if (o.empty()) return;
      const std::byte* wb = wf->bytes().data() + wo;
      const std::byte* sb = sf->bytes().data() + so;
      const std::byte* bb = bf->bytes().data() + bo;
      // Each row a group at a time: its scale and bias read once, then scale * code + bias.
      const std::int64_t groups = inn / group, last = first + static_cast<std::int64_t>(o.size());
      float* y = o.data();
      for (std::int64_t idx = first; idx < last;) {
        const std::int64_t r = idx / inn, i0 = idx % inn, row_end = std::min(inn, i0 + (last - idx));
        for (std::int64_t i = i0; i < row_end;) {
          const std::int64_t g = i / group, end = std::min(row_end, (g + 1) * group);
          packed_affine(wb + 4 * r * (inn / pack), nbits, i, end - i, read_scale(sb, r * groups + g, ks),
                        read_scale(bb, r * groups + g, kb), y + (i - i0));
          i = end;
        }
        y += row_end - i0;
        idx += row_end - i0;
      }
    };
    return decoded_tensor(label, Shape{out, inn}, std::move(decode), [=] {
      wf->fetch(wo, wn);
      sf->fetch(so, sn);
      bf->fetch(bo, bn);
    }, release_in_order(wf, wo, wn, out * inn));
  };
  return lt;
}

}  // namespace

SchemeRow scheme_mlx() {
  SchemeRow r;
  r.name = kName;
  r.quant_methods = {"mlx"};
  r.key_suffix = ".biases";
  r.build = build;
  r.orphan = [](const TensorEntry& e) -> std::optional<std::string> {
    if (e.stored_type == "U32" && e.name.ends_with(".weight")) return e.name.substr(0, e.name.size() - 7) + ".biases";
    return std::nullopt;
  };
  return r;
}

}  // namespace tensor_inspect
