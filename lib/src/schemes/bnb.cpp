// schemes/bnb.cpp — bitsandbytes 4-bit (NF4 and FP4, with or without nested "double" quantization
// of the absmax) as transformers saves a Params4bit weight (config {"quant_method": "bitsandbytes",
// "load_in_4bit": true}).
//
//   parts  `P.weight` U8 [ceil(n/2), 1]: 4-bit codes, two per byte, the FIRST element in the HIGH
//          nibble; `P.weight.absmax`: one scale per `blocksize` elements (F32, or U8 codes when
//          nested); `P.weight.quant_map` F32 [16]; when nested `P.weight.nested_absmax` F32 and
//          `P.weight.nested_quant_map` F32 [256]; `P.weight.quant_state.bitsandbytes__nf4` (or
//          `__fp4`): U8 bytes of a JSON object {quant_type, blocksize, dtype, shape,
//          nested_blocksize, nested_dtype, nested_offset}
//   decode w[i] = table[code(i)] * absmax[i / blocksize], flat over `shape` (a partial last block
//          has its own absmax); nested:
//          absmax[b] = nested_quant_map[q[b]] * nested_absmax[b / nested_blocksize] + nested_offset
//
// From bitsandbytes (bitsandbytes-foundation/bitsandbytes): nn/modules.py
// Linear4bit._save_to_state_dict (each quant-state item saved as prefix + "weight." + key);
// functional.py QuantState.as_dict / from_dict (the parts and the blob's keys; utils.py
// pack_dict_to_tensor: the blob is the UTF-8 bytes of json.dumps), dequantize_4bit and
// dequantize_blockwise (the nested absmax, computed in float32, plus the offset as a float32
// tensor); csrc/kernels.cu kDequantizeBlockwise (vals[2j] = table[q >> 4], vals[2j+1] =
// table[q & 0x0F]) and its nf4_dequantization_lut and fp4_dequantization_lut (FP4: sign bit 3
// times the 8-entry table; code 8 is -0). dequantize_4bit uses these built-in tables, not the
// stored quant_map; we do the same and refuse a quant_map that disagrees with them
// (bitsandbytes' gemv_4bit inference kernel reads the stored map, so the two would disagree).
// The blob's `dtype` is what dequantize_4bit hands back (bfloat16, float16, float32); we keep
// float32 and say it in the note. The config's bnb_4bit_quant_type is not read: from_dict takes
// the quant type from the blob.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "decode/scaled_runs.hpp"
#include "loaders/decoded_tensor.hpp"
#include "schemes/scheme.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kName = "bitsandbytes";

constexpr std::array<float, 16> kNf4 = {-1.0f,
                                        -0.6961928009986877f,
                                        -0.5250730514526367f,
                                        -0.39491748809814453f,
                                        -0.28444138169288635f,
                                        -0.18477343022823334f,
                                        -0.09105003625154495f,
                                        0.0f,
                                        0.07958029955625534f,
                                        0.16093020141124725f,
                                        0.24611230194568634f,
                                        0.33791524171829224f,
                                        0.44070982933044434f,
                                        0.5626170039176941f,
                                        0.7229568362236023f,
                                        1.0f};
constexpr std::array<float, 8> kFp4Magnitude = {0.0f, 0.005208333333f, 0.66666667f, 1.0f, 0.33333333f,
                                                0.5f, 0.16666667f,     0.25f};

std::array<float, 16> table_of(bool nf4) {
  if (nf4) return kNf4;
  std::array<float, 16> t{};
  for (std::size_t c = 0; c < 16; ++c) t[c] = (c & 8) ? -kFp4Magnitude[c & 7] : kFp4Magnitude[c & 7];
  return t;
}

/// The blob's integer `key` in [lo, hi], or fail naming the blob part.
std::int64_t blob_int(const SchemeInput& in, const std::string& logical, const std::string& part,
                      const nlohmann::json& blob, const char* key, std::int64_t lo, std::int64_t hi) {
  if (!blob.contains(key)) in.fail(logical, part, kName, std::string("no \"") + key + "\"");
  const nlohmann::json& v = blob[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
    in.fail(logical, part, kName,
            std::string("\"") + key + "\" " + v.dump() + " is not an integer in [" + std::to_string(lo) + ", " +
                std::to_string(hi) + "]");
  return v.get<std::int64_t>();
}

std::int64_t elements(const TensorEntry& e) {
  std::int64_t n = 1;
  for (std::int64_t d : e.shape) n *= d;  // the loader has checked the product against the bytes
  return n;
}

/// Checks a part's dtype and element count.
void expect(const SchemeInput& in, const std::string& logical, const TensorEntry& p, const char* dtype,
            std::int64_t count, const std::string& why) {
  if (p.stored_type != dtype) in.fail(logical, p.name, kName, "dtype " + p.stored_type + ", not " + dtype);
  if (elements(p) != count)
    in.fail(logical, p.name, kName,
            "shape " + shape_text(p.shape) + " holds " + std::to_string(elements(p)) + " values, but " + why +
                " needs " + std::to_string(count));
}

/// The F32 values of a small part (a quant map), read when listing.
std::vector<float> read_f32(const SchemeInput& in, const std::string& logical, const TensorEntry& p) {
  const auto f = part_file(in, logical, p, kName);
  f->fetch(p.offset, p.nbytes);
  std::vector<float> v(static_cast<std::size_t>(p.nbytes / 4));
  std::memcpy(v.data(), f->bytes().data() + p.offset, v.size() * 4);
  return v;
}

std::optional<LogicalTensor> build(const SchemeInput& in, const std::string& prefix) {
  const std::string logical = prefix;  // key part `P.weight.absmax`: prefix is `P.weight`
  const std::string nf4_name = logical + ".quant_state.bitsandbytes__nf4";
  const std::string fp4_name = logical + ".quant_state.bitsandbytes__fp4";
  const TensorEntry* nf4_blob = in.find(nf4_name);
  const TensorEntry* fp4_blob = in.find(fp4_name);
  if (!in.config && (!in.find(logical) || (!nf4_blob && !fp4_blob))) return std::nullopt;
  if (nf4_blob && fp4_blob) in.fail(logical, fp4_name, kName, "beside " + nf4_name + ": one quant state only");
  if (!nf4_blob && !fp4_blob) in.fail(logical, nf4_name, kName, "missing (nor __fp4)");
  const TensorEntry& qs = nf4_blob ? *nf4_blob : *fp4_blob;
  const bool nf4 = nf4_blob != nullptr;
  const TensorEntry& w = in.part(logical, logical, kName);
  const TensorEntry& am = in.part(logical, logical + ".absmax", kName);
  const TensorEntry& qm = in.part(logical, logical + ".quant_map", kName);

  // The quant state: untrusted JSON in a U8 tensor.
  if (qs.stored_type != "U8" || qs.shape.size() != 1)
    in.fail(logical, qs.name, kName, "dtype " + qs.stored_type + " shape " + shape_text(qs.shape) + ", not 1-D U8");
  if (qs.nbytes > kMaxQuantStateBytes)
    in.fail(logical, qs.name, kName,
            std::to_string(qs.nbytes) + " bytes, over the " + std::to_string(kMaxQuantStateBytes) +
                " a quant state may have");
  const auto qsf = part_file(in, logical, qs, kName);
  qsf->fetch(qs.offset, qs.nbytes);
  const auto* text = reinterpret_cast<const char*>(qsf->bytes().data() + qs.offset);
  const nlohmann::json blob = nlohmann::json::parse(text, text + qs.nbytes, nullptr, false);
  if (blob.is_discarded() || !blob.is_object()) in.fail(logical, qs.name, kName, "not a JSON object");
  const std::string want_type = nf4 ? "nf4" : "fp4";
  if (!blob.contains("quant_type") || blob["quant_type"] != want_type)
    in.fail(logical, qs.name, kName,
            "\"quant_type\" " + (blob.contains("quant_type") ? blob["quant_type"].dump() : std::string("missing")) +
                ", but the part's name says " + want_type);
  const std::int64_t blocksize = blob_int(in, logical, qs.name, blob, "blocksize", 1, 1 << 20);
  // dequantize_4bit accepts these block sizes only.
  if (blocksize < 32 || blocksize > 4096 || (blocksize & (blocksize - 1)) != 0)
    in.fail(logical, qs.name, kName, "\"blocksize\" " + std::to_string(blocksize) + " is not 32, 64, ..., 4096");
  std::string dtype = "bfloat16";
  if (!blob.contains("dtype") || !blob["dtype"].is_string() ||
      (dtype = blob["dtype"].get<std::string>(), dtype != "bfloat16" && dtype != "float16" && dtype != "float32"))
    in.fail(logical, qs.name, kName, "\"dtype\" is not \"bfloat16\", \"float16\" or \"float32\"");
  if (!blob.contains("shape") || !blob["shape"].is_array() || blob["shape"].empty() || blob["shape"].size() > 8)
    in.fail(logical, qs.name, kName, "\"shape\" is not a list of 1 to 8 sizes");
  Shape shape;
  std::int64_t n = 1;
  for (const nlohmann::json& d : blob["shape"]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0 || d.get<std::int64_t>() > (std::int64_t{1} << 40))
      in.fail(logical, qs.name, kName, "\"shape\" " + blob["shape"].dump() + " has a size that is no count");
    shape.push_back(d.get<std::int64_t>());
    if (shape.back() != 0 && n > (std::int64_t{1} << 50) / shape.back())
      in.fail(logical, qs.name, kName, "\"shape\" " + blob["shape"].dump() + " is too large");
    n *= shape.back();
  }

  // The parts against the quant state.
  if (w.stored_type != "U8") in.fail(logical, w.name, kName, "dtype " + w.stored_type + ", not U8");
  if (static_cast<std::int64_t>(w.nbytes) != (n + 1) / 2)
    in.fail(logical, w.name, kName,
            std::to_string(w.nbytes) + " bytes, but shape " + shape_text(shape) + " packs into " +
                std::to_string((n + 1) / 2));
  const std::int64_t blocks = (n + blocksize - 1) / blocksize;
  const bool nested = blob.contains("nested_offset") || blob.contains("nested_blocksize");
  const std::string block_why = std::to_string(n) + " values in blocks of " + std::to_string(blocksize);
  expect(in, logical, qm, "F32", 16, "a 4-bit code");
  const std::array<float, 16> table = table_of(nf4);
  const std::vector<float> map = read_f32(in, logical, qm);
  for (std::size_t c = 0; c < 16; ++c)
    if (!(std::fabs(map[c] - table[c]) <= 1e-6f))
      in.fail(logical, qm.name, kName,
              "value " + std::to_string(c) + " is " + std::to_string(map[c]) + ", not bitsandbytes' " + want_type +
                  " " + std::to_string(table[c]));
  std::vector<const TensorEntry*> parts{&w, &am, &qm};
  std::vector<std::string> roles{"weight", "absmax", "quant_map"};
  const TensorEntry* nam = nullptr;
  const TensorEntry* nqm = nullptr;
  std::int64_t nested_blocksize = 1;
  float offset = 0.0f;
  int am_kind = 0;
  if (nested) {
    nam = &in.part(logical, logical + ".nested_absmax", kName);
    nqm = &in.part(logical, logical + ".nested_quant_map", kName);
    nested_blocksize = blob_int(in, logical, qs.name, blob, "nested_blocksize", 1, 1 << 20);
    if (!blob.contains("nested_offset") || !blob["nested_offset"].is_number() ||
        !std::isfinite(blob["nested_offset"].get<double>()))
      in.fail(logical, qs.name, kName, "\"nested_offset\" is not a finite number");
    offset = static_cast<float>(blob["nested_offset"].get<double>());  // from_dict: torch.tensor(float(...)), float32
    if (blob.contains("nested_dtype") && blob["nested_dtype"] != "float32")
      in.fail(logical, qs.name, kName, "\"nested_dtype\" " + blob["nested_dtype"].dump() + ", not \"float32\"");
    expect(in, logical, am, "U8", blocks, block_why);
    expect(in, logical, *nam, "F32", (blocks + nested_blocksize - 1) / nested_blocksize,
           std::to_string(blocks) + " absmax codes in blocks of " + std::to_string(nested_blocksize));
    expect(in, logical, *nqm, "F32", 256, "an 8-bit absmax code");
    parts.insert(parts.end(), {nam, nqm});
    roles.insert(roles.end(), {"nested_absmax", "nested_quant_map"});
  } else {
    for (const char* p : {".nested_absmax", ".nested_quant_map"})
      if (in.find(logical + p))
        in.fail(logical, logical + p, kName, "present, but the quant state has no nested_offset");
    am_kind = scale_kind(in, logical, am, kName);
    if (elements(am) != blocks)
      in.fail(logical, am.name, kName,
              "shape " + shape_text(am.shape) + " holds " + std::to_string(elements(am)) + " values, but " + block_why +
                  " needs " + std::to_string(blocks));
  }
  parts.push_back(&qs);
  roles.push_back("quant_state");

  const auto wf = part_file(in, logical, w, kName), af = part_file(in, logical, am, kName);
  const auto nf = nested ? part_file(in, logical, *nam, kName) : nullptr;
  const auto mf = nested ? part_file(in, logical, *nqm, kName) : nullptr;
  LogicalTensor lt;
  for (const TensorEntry* p : parts) lt.parts.push_back(p->name);
  TensorEntry& e = lt.entry;
  e.name = logical;
  e.dtype = DType::Float32;
  e.shape = shape;
  e.stored_type = "bitsandbytes " + want_type + ", " + std::to_string(blocksize) + "-element blocks" +
                  (nested ? ", nested absmax in blocks of " + std::to_string(nested_blocksize) : std::string());
  set_stored(e, parts, roles);
  set_producer_dtype(e, "bitsandbytes", dtype);
  const std::uint64_t wo = w.offset, wn = w.nbytes, ao = am.offset, an = am.nbytes;
  const std::uint64_t no = nested ? nam->offset : 0, nn = nested ? nam->nbytes : 0;
  const std::uint64_t mo = nested ? nqm->offset : 0, mn = nested ? nqm->nbytes : 0;
  e.details_for_write().loader = [=, label = "dequantize bitsandbytes " + want_type + " '" + logical + "'"]() {
    RangeDecode decode = [=](std::int64_t first, std::span<float> o) {
      if (o.empty()) return;
      const std::byte* codes = wf->bytes().data() + wo;
      const std::byte* absmax = af->bytes().data() + ao;
      auto scale = [&](std::int64_t b) -> float {
        if (!nested) return read_scale(absmax, b, am_kind);
        float code, outer;
        std::memcpy(&code, mf->bytes().data() + mo + 4 * static_cast<std::uint8_t>(absmax[b]), 4);
        std::memcpy(&outer, nf->bytes().data() + no + 4 * (b / nested_blocksize), 4);
        const float product = code * outer;  // dequantize_blockwise's float32 output, then += offset
        return product + offset;
      };
      // One block at a time: its scale once, then its codes (no division per element).
      const std::int64_t last = first + static_cast<std::int64_t>(o.size());
      float* dst = o.data();
      for (std::int64_t i = first; i < last;) {
        const std::int64_t b = i / blocksize, end = std::min(last, (b + 1) * blocksize);
        nibbles_lut_scaled(codes, true, i, end - i, table.data(), scale(b), dst);  // the high nibble first
        dst += end - i;
        i = end;
      }
    };
    return decoded_tensor(label, shape, std::move(decode), [=] {
      wf->fetch(wo, wn);
      af->fetch(ao, an);
      if (nf) nf->fetch(no, nn);
      if (mf) mf->fetch(mo, mn);
    }, release_in_order(wf, wo, wn, prod(shape)));
  };
  return lt;
}

}  // namespace

SchemeRow scheme_bnb() {
  SchemeRow r;
  r.name = kName;
  r.quant_methods = {"bitsandbytes"};
  r.key_suffix = ".absmax";
  // 8-bit (LLM.int8, `SCB`) is not decoded: its config selects no row and is listed as stored.
  r.selects = [](const nlohmann::json& q) {
    return q.contains("load_in_4bit") && q["load_in_4bit"].is_boolean() && q["load_in_4bit"].get<bool>();
  };
  r.build = build;
  r.orphan = [](const TensorEntry& e) -> std::optional<std::string> {
    if (e.stored_type == "U8" && e.name.ends_with(".weight")) return e.name + ".absmax";
    return std::nullopt;
  };
  return r;
}

}  // namespace tensor_inspect
