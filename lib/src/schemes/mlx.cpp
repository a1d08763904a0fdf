// schemes/mlx.cpp — MLX affine quantization, 2/4/8-bit (config.json {"quantization":
// {"group_size": 64, "bits": 4}}, optionally with per-module overrides
// {"model.layers.0.mlp.down_proj": {"group_size": 32, "bits": 8}}).
//
//   parts  `P.weight` U32 [out, in*bits/32]: codes packed along the input axis, least
//          significant bits first; `P.scales`, `P.biases` F16/BF16/F32 [out, in/group]
//   decode w[o, i] = scales[o, i / group] * q(o, i) + biases[o, i / group]
//   (ml-explore/mlx mlx/backend/cpu/quantized.cpp _qmm_t: (scale * (wi & bitmask) + bias)
//   per packed value, wi shifted right by bits; the weight is the [out, in] of nn.Linear.)
// 3- and 6-bit MLX codes straddle bytes and are refused, naming the config key. Without a
// config the bits and the group size cannot both be told from the shapes: MLX parts are
// decoded only when config.json names them.
#include "decode/packed_int.hpp"
#include "loaders/decoded_tensor.hpp"
#include "schemes/scheme.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kName = "mlx affine";

std::optional<LogicalTensor> build(const SchemeInput& in, const std::string& prefix) {
  if (!in.config) return std::nullopt;
  const std::string logical = prefix + ".weight";
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
  const std::uint64_t wo = w.offset, wn = w.nbytes, so = s.offset, sn = s.nbytes, bo = b.offset, bn = b.nbytes;
  const int nbits = static_cast<int>(bits);
  e.details_for_write().loader = [=, label = "dequantize mlx '" + logical + "'"]() {
    RangeDecode decode = [=](std::int64_t first, std::span<float> o) {
      if (o.empty()) return;
      const std::byte* wb = wf->bytes().data() + wo;
      const std::byte* sb = sf->bytes().data() + so;
      const std::byte* bb = bf->bytes().data() + bo;
      const std::int64_t groups = inn / group;
      for (std::size_t k = 0; k < o.size(); ++k) {
        const std::int64_t idx = first + static_cast<std::int64_t>(k), r = idx / inn, i = idx % inn,
                           g = r * groups + i / group;
        const auto code = static_cast<float>(packed_field(wb, r * (inn / pack) + i / pack, nbits, i % pack));
        o[k] = read_scale(sb, g, ks) * code + read_scale(bb, g, kb);
      }
    };
    return decoded_tensor(label, Shape{out, inn}, std::move(decode), [=] {
      wf->fetch(wo, wn);
      sf->fetch(so, sn);
      bf->fetch(bo, bn);
    });
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
