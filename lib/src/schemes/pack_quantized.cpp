// schemes/pack_quantized.cpp — compressed-tensors "pack-quantized" int4/int8 (config
// {"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups":
// {...: {"weights": {"num_bits", "group_size", "strategy", "symmetric"}}}}).
//
//   parts  `P.weight_packed` I32 [out, ceil(in / (32/bits))]: codes + 2^(bits-1), packed
//          along the input axis, least significant bits first; `P.weight_shape` I32/I64 [2]
//          = [out, in]; `P.weight_scale` [out, groups] (group) or [out, 1] (channel);
//          optional `P.weight_zero_point` I32 [ceil(out / (32/bits)), groups], packed the
//          same way along the output axis; optional `P.weight_g_idx` I32 [in]
//   decode w[o, i] = (q(o, i) - zp(o, g)) * scale[o, g], q and zp unpacked minus 2^(bits-1),
//          g = g_idx[i] or i * groups / in
//   (neuralmagic/compressed-tensors compressors/quantized_compressors/pack_quantized.py:
//   pack_to_int32 / unpack_from_int32 and decompress_weight; quantization/lifecycle/forward.py
//   dequantize: (x_q - zero_point) * scale per group.)
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "decode/packed_int.hpp"
#include "decode/scaled_runs.hpp"
#include "loaders/decoded_tensor.hpp"
#include "schemes/scheme.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kName = "compressed-tensors pack-quantized";

/// The weights' num_bits of the config's groups (all must agree), 0 when none names it.
std::int64_t config_bits(const SchemeInput& in) {
  if (!in.config || !in.config->contains("config_groups")) return 0;
  const nlohmann::json& groups = (*in.config)["config_groups"];
  if (!groups.is_object()) in.fail_config("config_groups", "is not an object");
  std::int64_t bits = 0;
  for (auto it = groups.begin(); it != groups.end(); ++it) {
    if (!it->is_object() || !it->contains("weights") || !(*it)["weights"].is_object()) continue;
    const nlohmann::json& w = (*it)["weights"];
    if (!w.contains("num_bits")) continue;
    if (!w["num_bits"].is_number_integer())
      in.fail_config("config_groups." + it.key() + ".weights.num_bits", "is not an integer");
    const auto b = w["num_bits"].get<std::int64_t>();
    if (bits && b != bits)
      in.fail_config("config_groups." + it.key() + ".weights.num_bits", "differs from another group's");
    bits = b;
  }
  return bits;
}

std::optional<LogicalTensor> build(const SchemeInput& in, const std::string& prefix) {
  const std::string logical = prefix + ".weight";
  if (!in.config && (!in.find(prefix + ".weight_shape") || !in.find(prefix + ".weight_scale"))) return std::nullopt;
  const TensorEntry& wp = in.part(logical, prefix + ".weight_packed", kName);
  const TensorEntry& ws = in.part(logical, prefix + ".weight_shape", kName);
  const TensorEntry& sc = in.part(logical, prefix + ".weight_scale", kName);
  const TensorEntry* zp = in.find(prefix + ".weight_zero_point");
  const TensorEntry* gi = in.find(prefix + ".weight_g_idx");
  if (wp.stored_type != "I32" || wp.shape.size() != 2)
    in.fail(logical, wp.name, kName, "dtype " + wp.stored_type + " shape " + shape_text(wp.shape) + ", not 2-D I32");
  if ((ws.stored_type != "I32" && ws.stored_type != "I64") || ws.shape != Shape{2})
    in.fail(logical, ws.name, kName,
            "dtype " + ws.stored_type + " shape " + shape_text(ws.shape) + ", not I32/I64 (2,)");
  // weight_shape's two values: a 16-byte read, made when listing.
  const auto sf_shape = part_file(in, logical, ws, kName);
  sf_shape->fetch(ws.offset, ws.nbytes);
  std::int64_t dims[2];
  for (int k = 0; k < 2; ++k) {
    const std::byte* p = sf_shape->bytes().data() + ws.offset + (ws.stored_type == "I32" ? 4 : 8) * k;
    if (ws.stored_type == "I32") {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      dims[k] = v;
    } else {
      std::memcpy(&dims[k], p, 8);
    }
  }
  const std::int64_t out = dims[0], inn = dims[1];
  if (out != wp.shape[0] || inn < 1 || inn > (std::int64_t{1} << 40))
    in.fail(logical, ws.name, kName,
            "[" + std::to_string(out) + ", " + std::to_string(inn) + "] does not fit weight_packed " +
                shape_text(wp.shape));
  std::int64_t bits = config_bits(in);
  if (bits == 0) {  // from the packing: the one width whose word count fits
    for (std::int64_t b : {2, 4, 8})
      if ((inn + 32 / b - 1) / (32 / b) == wp.shape[1]) {
        if (bits)
          in.fail(logical, wp.name, kName,
                  "shape " + shape_text(wp.shape) + " fits more than one code width (no config)");
        bits = b;
      }
  }
  if (bits != 2 && bits != 4 && bits != 8)
    in.fail(logical, wp.name, kName, "codes of " + std::to_string(bits) + " bits are not decoded (2, 4, 8)");
  const std::int64_t pack = 32 / bits;
  if ((inn + pack - 1) / pack != wp.shape[1])
    in.fail(logical, wp.name, kName,
            "shape " + shape_text(wp.shape) + ", but " + std::to_string(inn) + " inputs of " + std::to_string(bits) +
                " bits need " + std::to_string((inn + pack - 1) / pack) + " words a row");
  const int kind = scale_kind(in, logical, sc, kName);
  if (sc.shape.size() != 2 || sc.shape[0] != out || sc.shape[1] < 1 || (!gi && inn % sc.shape[1] != 0))
    in.fail(logical, sc.name, kName,
            "shape " + shape_text(sc.shape) + " is not [" + std::to_string(out) + ", groups dividing " +
                std::to_string(inn) + "]");
  const std::int64_t groups = sc.shape[1], group_size = inn / groups;
  if (zp && (zp->stored_type != "I32" || zp->shape != Shape{(out + pack - 1) / pack, groups}))
    in.fail(logical, zp->name, kName,
            "dtype " + zp->stored_type + " shape " + shape_text(zp->shape) + ", not I32 " +
                shape_text(Shape{(out + pack - 1) / pack, groups}));
  if (gi && (gi->stored_type != "I32" || gi->shape != Shape{inn}))
    in.fail(
        logical, gi->name, kName,
        "dtype " + gi->stored_type + " shape " + shape_text(gi->shape) + ", not I32 (" + std::to_string(inn) + ",)");
  std::vector<const TensorEntry*> parts{&wp, &ws, &sc};
  std::vector<std::string> roles{"weight_packed", "weight_shape", "weight_scale"};
  if (zp) parts.push_back(zp), roles.push_back("weight_zero_point");
  if (gi) parts.push_back(gi), roles.push_back("weight_g_idx");
  const auto wf = part_file(in, logical, wp, kName), sf = part_file(in, logical, sc, kName);
  const auto zf = zp ? part_file(in, logical, *zp, kName) : nullptr,
             gf = gi ? part_file(in, logical, *gi, kName) : nullptr;
  LogicalTensor lt;
  for (const TensorEntry* p : parts) lt.parts.push_back(p->name);
  TensorEntry& e = lt.entry;
  e.name = logical;
  e.dtype = DType::Float32;
  e.shape = Shape{out, inn};
  e.stored_type = "pack-quantized int" + std::to_string(bits) +
                  (groups == 1 ? ", per-channel scales" : ", groups of " + std::to_string(group_size)) +
                  (zp ? ", zero points" : "");
  set_stored(e, parts, roles);
  // forward.py's dequantize computes in the scale's dtype (zeros_like(x, dtype=scale.dtype)).
  set_producer_dtype(e, "compressed-tensors", scale_dtype_name(sc));
  const std::uint64_t wo = wp.offset, wn = wp.nbytes, so = sc.offset, sn = sc.nbytes;
  const std::uint64_t zo = zp ? zp->offset : 0, zn = zp ? zp->nbytes : 0, go = gi ? gi->offset : 0,
                      gn = gi ? gi->nbytes : 0;
  const std::string g_name = gi ? gi->name : std::string(), file_name = in.file;
  const int b = static_cast<int>(bits);
  const auto offset = static_cast<std::int32_t>(1 << (bits - 1));
  e.details_for_write().loader = [=, label = "dequantize pack-quantized '" + logical + "'"]() {
    auto group_of = std::make_shared<std::vector<std::int32_t>>(static_cast<std::size_t>(inn));
    if (gf) {
      gf->fetch(go, gn);
      std::memcpy(group_of->data(), gf->bytes().data() + go, static_cast<std::size_t>(gn));
      for (std::size_t i = 0; i < group_of->size(); ++i)
        if ((*group_of)[i] < 0 || (*group_of)[i] >= groups)
          throw Error(ErrorCode::BadFile, file_name + ": tensor '" + logical + "': part '" + g_name + "' (" +
                                              std::string(kName) + "): g_idx[" + std::to_string(i) +
                                              "] = " + std::to_string((*group_of)[i]) + " is not a group of 0.." +
                                              std::to_string(groups - 1));
    } else {
      for (std::int64_t i = 0; i < inn; ++i)
        (*group_of)[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i / group_size);
    }
    // Where each input's run of one group ends, so a row decodes a run at a time.
    auto run_end_of = std::make_shared<std::vector<std::int64_t>>(static_cast<std::size_t>(inn));
    for (std::int64_t i = inn - 1; i >= 0; --i) {
      const auto k = static_cast<std::size_t>(i);
      (*run_end_of)[k] = i + 1 < inn && (*group_of)[k + 1] == (*group_of)[k] ? (*run_end_of)[k + 1] : i + 1;
    }
    // Each row a run of one group at a time: its scale and zero read once, the codes as
    // scale * float(code - zero), zero the stored zero point (both offsets cancel) or the
    // offset (symmetric): the bits of (q - z) * scale, as IEEE products commute.
    RangeDecode decode = [=](std::int64_t first, std::span<float> o) {
      if (o.empty()) return;
      const std::byte* wb = wf->bytes().data() + wo;
      const std::byte* sb = sf->bytes().data() + so;
      const std::byte* zb = zf ? zf->bytes().data() + zo : nullptr;
      const std::int64_t words = (inn + pack - 1) / pack, last = first + static_cast<std::int64_t>(o.size());
      float* y = o.data();
      for (std::int64_t idx = first; idx < last;) {
        const std::int64_t r = idx / inn, i0 = idx % inn, row_end = std::min(inn, i0 + (last - idx));
        for (std::int64_t i = i0; i < row_end;) {
          const std::int64_t g = (*group_of)[static_cast<std::size_t>(i)];
          const std::int64_t end = std::min(row_end, (*run_end_of)[static_cast<std::size_t>(i)]);
          const std::int32_t zero =
              zb ? static_cast<std::int32_t>(packed_field(zb, (r / pack) * groups + g, b, r % pack)) : offset;
          packed_scaled(wb + 4 * r * words, b, i, end - i, zero, read_scale(sb, r * groups + g, kind), y + (i - i0));
          i = end;
        }
        y += row_end - i0;
        idx += row_end - i0;
      }
    };
    return decoded_tensor(label, Shape{out, inn}, std::move(decode), [=] {
      wf->fetch(wo, wn);
      sf->fetch(so, sn);
      if (zf) zf->fetch(zo, zn);
    }, release_in_order(wf, wo, wn, out * inn));
  };
  return lt;
}

}  // namespace

SchemeRow scheme_pack_quantized() {
  SchemeRow r;
  r.name = kName;
  r.quant_methods = {"compressed-tensors"};
  r.key_suffix = ".weight_packed";
  r.selects = [](const nlohmann::json& q) { return q.contains("format") && q["format"] == "pack-quantized"; };
  r.build = build;
  return r;
}

}  // namespace tensor_inspect
