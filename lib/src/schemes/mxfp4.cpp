// schemes/mxfp4.cpp — MXFP4 as gpt-oss stores its MoE experts (config {"quant_method": "mxfp4"}).
//
//   parts  `P_blocks` U8 [E, R, G, 16]: 32 FP4 E2M1 values per group, two per byte, the
//          first in the low nibble; `P_scales` U8 [E, R, G]: one E8M0 exponent per group
//   decode row (e, r), column c = 32 g + 2 k (+1): FP4(nibble) * 2^(scales[e, r, g] - 127)
//   layout [E, G*32, R]: transformers' integrations/mxfp4.py convert_moe_packed_tensors
//          reshapes the decoded rows to [E, R, G*32] and returns out.transpose(1, 2), the
//          [experts, in, out] that GptOssExperts multiplies by; the name drops `_blocks`.
//          A 3-D `P_blocks` [R, G, 16] (no expert axis) is shown [R, G*32], rows as stored.
// convert_moe_packed_tensors scales with torch.ldexp(value, exponent), so an exponent byte
// of 255 scales by 2^128 (inf for |value| >= 1, 2^127 for 0.5, zero stays zero), not E8M0's
// NaN; we follow it. It computes in
// bfloat16, in which every such product is exact; float32 holds them exactly too.
#include <cmath>

#include "decode/minifloat.hpp"
#include "loaders/decoded_tensor.hpp"
#include "schemes/scheme.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kName = "mxfp4";

/// FP4 value times 2^(e - 127), as torch.ldexp gives it in float32.
float scaled(float v, std::uint8_t e) {
  if (e == 255) return std::ldexp(v, 128);                 // 2^128 is no float: 0.5 * 2^128 is, 1.0 * 2^128 is inf
  return v * std::ldexp(1.0f, static_cast<int>(e) - 127);  // a power of two: the product rounds once, as ldexp
}

std::optional<LogicalTensor> build(const SchemeInput& in, const std::string& prefix) {
  const std::string logical = prefix;
  // Without a config, a pair of U8 `_blocks` and `_scales` marks the scheme; a lone `_blocks` is not it.
  if (!in.config) {
    const TensorEntry* b = in.find(prefix + "_blocks");
    const TensorEntry* s = in.find(prefix + "_scales");
    if (!b || !s || b->stored_type != "U8" || s->stored_type != "U8") return std::nullopt;
  }
  const TensorEntry& b = in.part(logical, prefix + "_blocks", kName);
  const TensorEntry& s = in.part(logical, prefix + "_scales", kName);
  if (b.stored_type != "U8") in.fail(logical, b.name, kName, "dtype " + b.stored_type + ", not U8");
  if (s.stored_type != "U8") in.fail(logical, s.name, kName, "dtype " + s.stored_type + ", not U8");
  const Shape& bs = b.shape;
  if ((bs.size() != 4 && bs.size() != 3) || bs.back() != 16)
    in.fail(logical, b.name, kName,
            "shape " + shape_text(bs) + " is not [experts, rows, groups, 16] or [rows, groups, 16]");
  if (s.shape != Shape(bs.begin(), bs.end() - 1))
    in.fail(logical, s.name, kName,
            "shape " + shape_text(s.shape) + " does not match blocks " + shape_text(bs) + " without the last axis");
  const bool experts = bs.size() == 4;
  const std::int64_t E = experts ? bs[0] : 1, R = bs[bs.size() - 3], G = bs[bs.size() - 2],
                     C = in.scaled(logical, b, kName, G, 32);
  const auto bf = part_file(in, logical, b, kName), sf = part_file(in, logical, s, kName);
  LogicalTensor lt;
  lt.parts = {b.name, s.name};
  TensorEntry& e = lt.entry;
  e.name = logical;
  e.dtype = DType::Float32;
  e.shape = experts ? Shape{E, C, R} : Shape{R, C};
  e.stored_type = "mxfp4, 32-element groups with e8m0 scales";
  set_stored(e, {&b, &s}, {"_blocks", "_scales"});
  // transformers' convert_moe_packed_tensors (integrations/mxfp4.py) dequantizes with its
  // default dtype=torch.bfloat16, whatever the config says.
  set_producer_dtype(e, "transformers", "bfloat16");
  const std::uint64_t bo = b.offset, bn = b.nbytes, so = s.offset, sn = s.nbytes;
  e.details_for_write().loader = [=, shape = e.shape, label = "dequantize mxfp4 '" + logical + "'"]() {
    RangeDecode decode = [=](std::int64_t first, std::span<float> o) {
      if (o.empty()) return;
      const std::array<float, 16>& lut = fp4_e2m1_table();
      const std::byte* blocks = bf->bytes().data() + bo;
      const std::byte* scales = sf->bytes().data() + so;
      for (std::size_t k = 0; k < o.size(); ++k) {
        const std::int64_t i = first + static_cast<std::int64_t>(k);
        std::int64_t x, r, c;  // expert, stored row, column of the decoded row
        if (experts) {
          x = i / (C * R);
          c = i / R % C;
          r = i % R;
        } else {
          x = 0;
          r = i / C;
          c = i % C;
        }
        const std::int64_t group = (x * R + r) * G + c / 32;
        const auto byte = static_cast<std::uint8_t>(blocks[group * 16 + (c % 32) / 2]);
        o[k] = scaled(lut[(c & 1) ? byte >> 4 : byte & 0x0F], static_cast<std::uint8_t>(scales[group]));
      }
    };
    return decoded_tensor(label, shape, std::move(decode), [=] {
      bf->fetch(bo, bn);
      sf->fetch(so, sn);
    }, experts ? release_in_slabs(bf, bo, bn, prod(shape), E) : release_in_order(bf, bo, bn, prod(shape)));
  };
  return lt;
}

}  // namespace

SchemeRow scheme_mxfp4() {
  SchemeRow r;
  r.name = kName;
  r.quant_methods = {"mxfp4"};
  r.key_suffix = "_blocks";
  r.build = build;
  r.orphan = [](const TensorEntry& e) -> std::optional<std::string> {
    if (e.stored_type == "U8" && e.name.ends_with("_scales")) return e.name.substr(0, e.name.size() - 7) + "_blocks";
    return std::nullopt;
  };
  return r;
}

}  // namespace tensor_inspect
