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
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "decode/minifloat.hpp"
#include "decode/scaled_runs.hpp"
#include "decode/word_strips.hpp"
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

// Values [k0, k0 + n) of one 32-value group (16 bytes at `block`, exponent e): scaled() with
// the group's power of two computed once.
void mxfp4_run(const std::byte* block, std::uint8_t e, std::int64_t k0, std::int64_t n, float* y) {
  const std::array<float, 16>& lut = fp4_e2m1_table();
  const float factor = std::ldexp(1.0f, static_cast<int>(e) - 127);
  if (e != 255) return nibbles_lut_scaled(block, false, k0, n, lut.data(), factor, y);  // the low nibble first
  for (std::int64_t k = k0; k < k0 + n; ++k) {
    const auto byte = static_cast<std::uint8_t>(block[k / 2]);
    const float v = lut[(k & 1) ? byte >> 4 : byte & 0x0F];
    *y++ = e == 255 ? scaled(v, e) : v * factor;
  }
}

// This thread's copy of expert x's group column cg: the 16 block bytes of every stored row
// ([R][16] in `words`), each row's exponent (`zeros`) and its power of two (`scales`).
const WordStrip& mxfp4_strip(std::uint64_t owner, const std::byte* blocks, const std::byte* scales, std::int64_t x,
                             std::int64_t cg, std::int64_t R, std::int64_t G) {
  const std::int64_t key = x * G + cg;
  WordStrip& s = thread_strip(owner, key);
  if (s.owner == owner && s.first_row == key) return s;
  s.owner = 0;
  s.words.resize(static_cast<std::size_t>(R * 4));
  s.scales.resize(static_cast<std::size_t>(R));
  s.zeros.resize(static_cast<std::size_t>(R));
  auto* out = reinterpret_cast<std::byte*>(s.words.data());
  for (std::int64_t r = 0; r < R; ++r) {
    const std::int64_t group = (x * R + r) * G + cg;
    if (r + 16 < R) __builtin_prefetch(blocks + (group + 16 * G) * 16);
    std::memcpy(out + r * 16, blocks + group * 16, 16);
    const auto e = static_cast<std::uint8_t>(scales[group]);
    s.zeros[static_cast<std::size_t>(r)] = e;
    s.scales[static_cast<std::size_t>(r)] = std::ldexp(1.0f, static_cast<int>(e) - 127);
  }
  s.owner = owner;
  s.first_row = key;
  return s;
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
    const std::uint64_t owner = new_strip_owner();
    RangeDecode decode = [=](std::int64_t first, std::span<float> o) {
      if (o.empty()) return;
      const std::byte* blocks = bf->bytes().data() + bo;
      const std::byte* scales = sf->bytes().data() + so;
      const std::int64_t last = first + static_cast<std::int64_t>(o.size());
      float* y = o.data();
      if (!experts) {  // rows as stored: each row a group of 32 at a time
        for (std::int64_t i = first; i < last;) {
          const std::int64_t group = i / 32, end = std::min(last, (group + 1) * 32);
          mxfp4_run(blocks + group * 16, static_cast<std::uint8_t>(scales[group]), i % 32, end - i, y);
          y += end - i;
          i = end;
        }
        return;
      }
      if (R > kStripMaxBytes / 16) {  // a strip too long to keep: element by element from the part
        const std::array<float, 16>& lut = fp4_e2m1_table();
        for (std::int64_t i = first; i < last; ++i) {
          const std::int64_t x = i / (C * R), c = i / R % C, r = i % R, group = (x * R + r) * G + c / 32;
          const auto byte = static_cast<std::uint8_t>(blocks[group * 16 + (c % 32) / 2]);
          *y++ = scaled(lut[(c & 1) ? byte >> 4 : byte & 0x0F], static_cast<std::uint8_t>(scales[group]));
        }
        return;
      }
      // [E, C, R]: a decoded row (x, c) reads one byte of every stored row r; from this
      // thread's copy of the 32 columns' blocks of all R rows (mxfp4_strip).
      for (std::int64_t i = first; i < last;) {
        const std::int64_t xc = i / R, r0 = i % R, end = std::min(R, r0 + (last - i));
        const std::int64_t x = xc / C, c = xc % C;
        const WordStrip& st = mxfp4_strip(owner, blocks, scales, x, c / 32, R, G);
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(st.words.data());
        const std::int64_t at = (c % 32) / 2;
        const int shift = (c & 1) ? 4 : 0;
        const std::array<float, 16>& lut = fp4_e2m1_table();
        for (std::int64_t r = r0; r < end; ++r) {
          const float v = lut[(bytes[r * 16 + at] >> shift) & 0x0F];
          const std::int32_t exponent = st.zeros[static_cast<std::size_t>(r)];
          *y++ = exponent == 255 ? scaled(v, 255) : v * st.scales[static_cast<std::size_t>(r)];
        }
        i += end - r0;
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
