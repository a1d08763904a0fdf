// schemes/gptq.cpp — GPTQ 2/4/8-bit (config {"quant_method": "gptq", "bits", "group_size",
// "desc_act", "sym", "checkpoint_format": "gptq" | "gptq_v2"}).
//
//   parts  `P.qweight` I32 [in*bits/32, out]: codes of input rows packed along the input
//          axis, row i in word i / (32/bits), field i % (32/bits);
//          `P.qzeros` I32 [groups, out*bits/32]: zero points packed along the output axis;
//          `P.scales` F16 (or BF16, F32) [groups, out]; `P.g_idx` I32 [in]: the group of
//          each input row (act-order), optional (then i / group_size)
//   decode w[o, i] = scales[g, o] * (q(i, o) - zero(g, o)), g = g_idx[i]; zero = the stored
//          field + 1 in checkpoint_format "gptq" (AutoGPTQ's pack() stores zeros - 1), the
//          stored field in "gptq_v2" (GPTQModel)
//   (AutoGPTQ auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py forward: (qzeros >> wf) &
//   maxq, + 1; (qweight >> wf) & maxq; scales * (weight - zeros); qlinear_cuda.py indexes
//   scales and zeros by g_idx. The layout [out, in] is nn.Linear's.)
// 3-bit GPTQ packs fields across words and is refused, naming the part.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "decode/half.hpp"
#include "decode/packed_int.hpp"
#include "decode/scaled_runs.hpp"
#include "decode/word_strips.hpp"
#include "loaders/decoded_tensor.hpp"
#include "schemes/scheme.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kName = "gptq";
// Logical rows a strip holds: 16 outputs' words are one 64-byte line of a qweight row.
constexpr std::int64_t kGptqStripRows = 32;
// Runs of one group shorter than this on average (act-order's g_idx) take the per-input
// gather of each input's group instead of a run at a time.
constexpr std::int64_t kGptqLongRun = 16;
// Groups ahead whose scales and zeros a strip's tables prefetch.
constexpr std::int64_t kGptqTableAhead = 8;

// What a decode of one GPTQ tensor reads, fixed when the tensor is opened.
struct GptqLayout {
  std::shared_ptr<const MappedFile> wf, zf, sf;  // qweight, qzeros, scales
  std::uint64_t wo = 0, zo = 0, so = 0;
  std::int64_t out = 0, inn = 0, groups = 0, words = 0;  // words: qweight's rows, inn * bits / 32
  int bits = 4, kind = 1;
  bool v2 = false, act_order = false;
  std::vector<std::int32_t> group_of;    // g_idx, or i / group_size
  std::vector<std::int64_t> run_end_of;  // where the run of input i's group ends
  std::uint64_t owner = 0;               // new_strip_owner()
};

// This thread's strip of the logical rows around r: their qweight words copied out in the
// part's stored order ([row][qweight row]), with each row's scale and zero of every group
// ([row][group]; the zero as the formula subtracts it).
const WordStrip& gptq_strip(const GptqLayout& L, std::int64_t r) {
  const std::int64_t row0 = r / kGptqStripRows * kGptqStripRows;
  WordStrip& s = thread_strip(L.owner, row0);
  if (s.owner == L.owner && s.first_row == row0) return s;
  const std::int64_t rows = std::min(kGptqStripRows, L.out - row0), pack = 32 / L.bits;
  const std::byte* qzb = L.zf->bytes().data() + L.zo;
  const std::byte* scb = L.sf->bytes().data() + L.so;
  s.owner = 0;
  s.words.resize(static_cast<std::size_t>(rows * L.words));
  copy_word_columns(L.wf->bytes().data() + L.wo, L.words, L.out, row0, rows, s.words.data());
  s.scales.resize(static_cast<std::size_t>(rows * L.groups));
  s.zeros.resize(static_cast<std::size_t>(rows * L.groups));
  for (std::int64_t g = 0; g < L.groups; ++g) {
    if (g + kGptqTableAhead < L.groups) {  // each group's scales and zeros are a row of their own
      __builtin_prefetch(scb + (L.kind == 0 ? 4 : 2) * ((g + kGptqTableAhead) * L.out + row0));
      __builtin_prefetch(qzb + 4 * ((g + kGptqTableAhead) * (L.out / pack) + row0 / pack));
    }
    for (std::int64_t j = 0; j < rows; ++j) {
      const std::int64_t c = row0 + j;
      const auto at = static_cast<std::size_t>(j * L.groups + g);
      s.scales[at] = read_scale(scb, g * L.out + c, L.kind);
      s.zeros[at] = static_cast<std::int32_t>(packed_field(qzb, g * (L.out / pack) + c / pack, L.bits, c % pack)) +
                    (L.v2 ? 0 : 1);
    }
  }
  s.owner = L.owner;
  s.first_row = row0;
  return s;
}

// Inputs [i, row_end) of output row r from the part itself, a word of every qweight row (a
// strip too wide to keep).
void gptq_row_direct(const GptqLayout& L, std::int64_t r, std::int64_t i, std::int64_t row_end, float* y) {
  const std::byte* qwb = L.wf->bytes().data() + L.wo;
  const std::byte* qzb = L.zf->bytes().data() + L.zo;
  const std::byte* scb = L.sf->bytes().data() + L.so;
  const int b = L.bits;
  const std::int64_t pack = 32 / b, out = L.out;
  const auto mask = static_cast<std::uint32_t>((1 << b) - 1);
  while (i < row_end) {
    const std::int64_t g = L.group_of[static_cast<std::size_t>(i)];
    const std::int64_t run_end = std::min(row_end, L.run_end_of[static_cast<std::size_t>(i)]);
    const float scale = read_scale(scb, g * out + r, L.kind);
    const auto zero =
        static_cast<std::int32_t>(packed_field(qzb, g * (out / pack) + r / pack, b, r % pack)) + (L.v2 ? 0 : 1);
    if (b == 4) {  // the common case, eight codes a word
      packed4_scaled(qwb + 4 * r, out, i, run_end - i, zero, scale, y);
      y += run_end - i;
      i = run_end;
    }
    while (i < run_end) {  // one stored word: up to `pack` codes of consecutive inputs
      std::uint32_t word;
      std::memcpy(&word, qwb + 4 * ((i / pack) * out + r), 4);
      const std::int64_t field = i % pack, stop = std::min(run_end, i - field + pack);
      word >>= static_cast<std::uint32_t>(b) * static_cast<std::uint32_t>(field);
      for (; i < stop; ++i, word >>= b)
        *y++ = scale * static_cast<float>(static_cast<std::int32_t>(word & mask) - zero);
    }
  }
}

// Elements [first, first + o.size()) in C order of [out, inn]: each output row's inputs from
// this thread's strip of its rows, a run of one group at a time (its scale and zero read
// once), or for act-order input by input with its group's.
void gptq_decode(const GptqLayout& L, std::int64_t first, std::span<float> o) {
  if (o.empty()) return;
  const std::int64_t inn = L.inn, last = first + static_cast<std::int64_t>(o.size());
  const bool strips =
      L.words <= kStripMaxBytes / (kGptqStripRows * 4) && L.groups <= kStripMaxBytes / (kGptqStripRows * 8);
  float* y = o.data();
  for (std::int64_t idx = first; idx < last;) {
    const std::int64_t r = idx / inn, i0 = idx % inn, row_end = std::min(inn, i0 + (last - idx));
    if (!strips) {
      gptq_row_direct(L, r, i0, row_end, y);
    } else {
      const WordStrip& s = gptq_strip(L, r);
      const std::int64_t j = r - s.first_row;
      const auto* w = reinterpret_cast<const std::byte*>(s.words.data() + j * L.words);
      const float* sc = s.scales.data() + j * L.groups;
      const std::int32_t* z = s.zeros.data() + j * L.groups;
      if (L.act_order) {
        packed_grouped(w, L.bits, i0, row_end - i0, L.group_of.data(), sc, z, y);
      } else {
        packed_runs(w, L.bits, i0, row_end - i0, L.group_of.data(), L.run_end_of.data(), sc, z, y);
      }
    }
    y += row_end - i0;
    idx += row_end - i0;
  }
}

}  // namespace

float read_scale(const std::byte* base, std::int64_t k, int kind) {  // kind: 0 F32, 1 F16, 2 BF16
  if (kind == 0) {
    float v;
    std::memcpy(&v, base + 4 * k, 4);
    return v;
  }
  std::uint16_t h;
  std::memcpy(&h, base + 2 * k, 2);
  return kind == 1 ? half_to_float(h) : bfloat16_to_float(h);  // exact, as float16_to_double is
}

int scale_kind(const SchemeInput& in, const std::string& logical, const TensorEntry& s, std::string_view scheme) {
  if (s.stored_type == "F16") return 1;
  if (s.stored_type == "BF16") return 2;
  if (s.stored_type == "F32") return 0;
  in.fail(logical, s.name, scheme, "dtype " + s.stored_type + ", not F16, BF16 or F32");
}

std::int64_t config_int(const SchemeInput& in, const char* key, std::int64_t fallback) {
  if (!in.config || !in.config->contains(key)) return fallback;
  const nlohmann::json& v = (*in.config)[key];
  if (!v.is_number_integer()) in.fail_config(key, v.dump() + " is not an integer");
  return v.get<std::int64_t>();
}

namespace {

std::optional<LogicalTensor> build(const SchemeInput& in, const std::string& prefix) {
  const std::string logical = prefix + ".weight";
  if (!in.config) {  // without a config: qweight, qzeros and scales, qweight holding every output (AWQ packs them)
    const TensorEntry* w = in.find(prefix + ".qweight");
    const TensorEntry* s = in.find(prefix + ".scales");
    if (!w || !s || !in.find(prefix + ".qzeros") || w->shape.size() != 2 || s->shape.size() != 2 ||
        w->shape[1] != s->shape[1])
      return std::nullopt;
  }
  const TensorEntry& qw = in.part(logical, prefix + ".qweight", kName);
  const TensorEntry& qz = in.part(logical, prefix + ".qzeros", kName);
  const TensorEntry& sc = in.part(logical, prefix + ".scales", kName);
  const TensorEntry* gi = in.find(prefix + ".g_idx");
  for (const TensorEntry* p : {&qw, &qz})
    if (p->stored_type != "I32" || p->shape.size() != 2)
      in.fail(logical, p->name, kName, "dtype " + p->stored_type + " shape " + shape_text(p->shape) + ", not 2-D I32");
  const int kind = scale_kind(in, logical, sc, kName);
  if (sc.shape.size() != 2)
    in.fail(logical, sc.name, kName, "shape " + shape_text(sc.shape) + " is not 2-D [groups, out]");
  const std::int64_t groups = sc.shape[0], out = sc.shape[1];
  if (qw.shape[1] != out)
    in.fail(logical, qw.name, kName,
            "shape " + shape_text(qw.shape) + " has not the " + std::to_string(out) + " outputs of scales");
  // Bits: from config.json, else from qzeros' packing of the outputs.
  std::int64_t bits = config_int(in, "bits", 0);
  if (bits == 0) {
    if (qz.shape[1] == 0 || out > INT64_MAX / 32 || (out * 32) % qz.shape[1] != 0 ||
        out * 32 / qz.shape[1] < 1)
      in.fail(logical, qz.name, kName,
              "shape " + shape_text(qz.shape) + " does not pack " + std::to_string(out) + " outputs");
    bits = qz.shape[1] * 32 / out;  // qzeros [groups, out*bits/32]
  }
  if (bits != 2 && bits != 4 && bits != 8) {
    if (in.config && in.config->contains("bits"))
      in.fail_config("bits", std::to_string(bits) + " is not 2, 4 or 8 (3-bit GPTQ is not decoded)");
    in.fail(logical, qz.name, kName, "packs " + std::to_string(bits) + "-bit zeros; only 2, 4 and 8 bits are decoded");
  }
  const std::int64_t pack = 32 / bits, inn = in.scaled(logical, qw, kName, qw.shape[0], pack);
  if (out % pack != 0 || qz.shape != Shape{groups, out / pack})
    in.fail(logical, qz.name, kName,
            "shape " + shape_text(qz.shape) + ", but " + std::to_string(groups) + " groups of " + std::to_string(out) +
                " " + std::to_string(bits) + "-bit zeros need " + shape_text(Shape{groups, out / pack}));
  std::int64_t group_size = config_int(in, "group_size", 0);
  if (group_size == -1 || (group_size == 0 && groups == 1)) group_size = inn;  // -1: one group over all inputs
  if (group_size == 0) {
    if (groups == 0 || inn % groups != 0)
      in.fail(logical, sc.name, kName,
              std::to_string(groups) + " groups do not divide " + std::to_string(inn) +
                  " inputs (no config.json group_size)");
    group_size = inn / groups;
  }
  if (group_size < 1) in.fail_config("group_size", std::to_string(group_size) + " is not positive or -1");
  if (!gi && (inn + group_size - 1) / group_size != groups)
    in.fail(logical, sc.name, kName,
            std::to_string(groups) + " groups, but " + std::to_string(inn) + " inputs in groups of " +
                std::to_string(group_size) + " make " + std::to_string((inn + group_size - 1) / group_size));
  if (gi && (gi->stored_type != "I32" || gi->shape != Shape{inn}))
    in.fail(
        logical, gi->name, kName,
        "dtype " + gi->stored_type + " shape " + shape_text(gi->shape) + ", not I32 (" + std::to_string(inn) + ",)");
  bool v2 = false, assumed = !in.config;
  if (in.config && in.config->contains("checkpoint_format")) {
    const nlohmann::json& f = (*in.config)["checkpoint_format"];
    if (f != "gptq" && f != "gptq_v2")
      in.fail_config("checkpoint_format", f.dump() + " is neither \"gptq\" nor \"gptq_v2\"");
    v2 = f == "gptq_v2";
  }
  std::vector<const TensorEntry*> parts{&qw, &qz, &sc};
  std::vector<std::string> roles{"qweight", "qzeros", "scales"};
  if (gi) parts.push_back(gi), roles.push_back("g_idx");
  const auto wf = part_file(in, logical, qw, kName), zf = part_file(in, logical, qz, kName),
             sf = part_file(in, logical, sc, kName);
  const auto gf = gi ? part_file(in, logical, *gi, kName) : nullptr;
  LogicalTensor lt;
  for (const TensorEntry* p : parts) lt.parts.push_back(p->name);
  TensorEntry& e = lt.entry;
  e.name = logical;
  e.dtype = DType::Float32;
  e.shape = Shape{out, inn};
  e.stored_type = "gptq int" + std::to_string(bits) + ", groups of " + std::to_string(group_size) +
                  (gi ? ", g_idx" : "") + (v2 ? ", zeros as stored (gptq_v2)" : ", zeros stored - 1 (gptq)");
  set_stored(e, parts, roles);
  if (assumed) e.note += "; zero-point convention assumed gptq: no config.json";
  // qlinear_cuda_old.py's scales * (weight - zeros) is in the scales' dtype (F16 as
  // AutoGPTQ and GPTQModel save them).
  set_producer_dtype(e, "AutoGPTQ", scale_dtype_name(sc));
  const std::uint64_t wo = qw.offset, wn = qw.nbytes, zo = qz.offset, zn = qz.nbytes, so = sc.offset, sn = sc.nbytes;
  const std::uint64_t go = gi ? gi->offset : 0, gn = gi ? gi->nbytes : 0;
  const std::string g_name = gi ? gi->name : std::string(), file_name = in.file;
  const std::int64_t words = qw.shape[0];
  e.details_for_write().loader = [=, label = "dequantize gptq '" + logical + "'"]() {
    auto L = std::make_shared<GptqLayout>();
    L->wf = wf, L->zf = zf, L->sf = sf, L->wo = wo, L->zo = zo, L->so = so;
    L->out = out, L->inn = inn, L->groups = groups, L->words = words;
    L->bits = static_cast<int>(bits), L->kind = kind, L->v2 = v2;
    L->owner = new_strip_owner();
    // The group of each input row, checked once when the tensor is opened.
    std::vector<std::int32_t>& group_of = L->group_of;
    group_of.resize(static_cast<std::size_t>(inn));
    if (gf) {
      gf->fetch(go, gn);
      std::memcpy(group_of.data(), gf->bytes().data() + go, static_cast<std::size_t>(gn));
      for (std::int64_t i = 0; i < inn; ++i)
        if (group_of[static_cast<std::size_t>(i)] < 0 || group_of[static_cast<std::size_t>(i)] >= groups)
          throw Error(ErrorCode::BadFile, file_name + ": tensor '" + logical + "': part '" + g_name +
                                              "' (gptq): g_idx[" + std::to_string(i) +
                                              "] = " + std::to_string(group_of[static_cast<std::size_t>(i)]) +
                                              " is not a group of 0.." + std::to_string(groups - 1));
    } else {
      for (std::int64_t i = 0; i < inn; ++i)
        group_of[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i / group_size);
    }
    // Where each input's run of one group ends (the next input of another group, or inn), so a
    // decode finds its runs without comparing every input's group.
    std::vector<std::int64_t>& run_end_of = L->run_end_of;
    run_end_of.resize(static_cast<std::size_t>(inn));
    std::int64_t runs = 0;
    for (std::int64_t i = inn - 1; i >= 0; --i) {
      const auto k = static_cast<std::size_t>(i);
      const bool joins = i + 1 < inn && group_of[k + 1] == group_of[k];
      run_end_of[k] = joins ? run_end_of[k + 1] : i + 1;
      runs += joins ? 0 : 1;
    }
    L->act_order = runs * kGptqLongRun > inn;
    RangeDecode decode = [L](std::int64_t first, std::span<float> o) { gptq_decode(*L, first, o); };
    return decoded_tensor(label, Shape{out, inn}, std::move(decode), [=] {
      wf->fetch(wo, wn);
      zf->fetch(zo, zn);
      sf->fetch(so, sn);
    }, release_in_slabs(wf, wo, wn, out * inn, 1));
  };
  return lt;
}

}  // namespace

SchemeRow scheme_gptq() {
  SchemeRow r;
  r.name = kName;
  r.quant_methods = {"gptq"};
  r.key_suffix = ".qweight";
  r.build = build;
  r.orphan = [](const TensorEntry& e) -> std::optional<std::string> {
    for (const char* part : {".qzeros", ".scales", ".g_idx"})
      if (e.name.ends_with(part)) return e.name.substr(0, e.name.size() - std::strlen(part)) + ".qweight";
    return std::nullopt;
  };
  return r;
}

}  // namespace tensor_inspect
