// schemes/awq.cpp — AWQ GEMM 4-bit (config {"quant_method": "awq", "bits": 4, "group_size",
// "zero_point", "version": "gemm"}).
//
//   parts  `P.qweight` I32 [in, out/8]: 4-bit codes packed along the output axis in AWQ's
//          interleaved order; `P.qzeros` I32 [in/group, out/8], packed the same way;
//          `P.scales` F16 [in/group, out]
//   decode output c of word c / 8 is field AWQ_REVERSE_ORDER[c % 8] = [0, 4, 1, 5, 2, 6, 3, 7]
//          (the packer wrote fields in AWQ_ORDER [0, 2, 4, 6, 1, 3, 5, 7]);
//          w[c, i] = (q(i, c) - z(i / group, c)) * scales[i / group, c], no zero offset
//   (casper-hansen/AutoAWQ awq/utils/packing_utils.py: unpack_awq, reverse_awq_order,
//   dequantize_gemm, which gives [in, out]; transformers' nn.Linear layout is [out, in].)
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "decode/packed_int.hpp"
#include "decode/scaled_runs.hpp"
#include "decode/word_strips.hpp"
#include "loaders/decoded_tensor.hpp"
#include "schemes/scheme.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kName = "awq";
constexpr int kReverseOrder[8] = {0, 4, 1, 5, 2, 6, 3, 7};
// Logical rows a strip holds: 64 outputs are 8 words, 32 bytes of a qweight row.
constexpr std::int64_t kAwqStripRows = 64;

// What a decode of one AWQ tensor reads, fixed when the tensor is opened.
struct AwqLayout {
  std::shared_ptr<const MappedFile> wf, zf, sf;  // qweight, qzeros, scales
  std::uint64_t wo = 0, zo = 0, so = 0;
  std::int64_t out = 0, inn = 0, groups = 0, group_size = 1;
  int kind = 1;
  std::uint64_t owner = 0;  // new_strip_owner()
};

// This thread's strip of the logical rows around c: the qweight words of their eight-output
// columns copied out in the part's stored order ([column][input]), with each row's scale and
// zero of every group ([row][group]).
const WordStrip& awq_strip(const AwqLayout& L, std::int64_t c) {
  const std::int64_t row0 = c / kAwqStripRows * kAwqStripRows, cols = L.out / 8;
  WordStrip& s = thread_strip(L.owner, row0);
  if (s.owner == L.owner && s.first_row == row0) return s;
  const std::int64_t rows = std::min(kAwqStripRows, L.out - row0);
  const std::byte* qzb = L.zf->bytes().data() + L.zo;
  const std::byte* scb = L.sf->bytes().data() + L.so;
  s.owner = 0;
  s.words.resize(static_cast<std::size_t>(rows / 8 * L.inn));
  copy_word_columns(L.wf->bytes().data() + L.wo, L.inn, cols, row0 / 8, rows / 8, s.words.data());
  s.scales.resize(static_cast<std::size_t>(rows * L.groups));
  s.zeros.resize(static_cast<std::size_t>(rows * L.groups));
  for (std::int64_t g = 0; g < L.groups; ++g)
    for (std::int64_t j = 0; j < rows; ++j) {
      const std::int64_t r = row0 + j;
      const auto at = static_cast<std::size_t>(j * L.groups + g);
      s.scales[at] = read_scale(scb, g * L.out + r, L.kind);
      s.zeros[at] = static_cast<std::int32_t>(packed_field(qzb, g * cols + r / 8, 4, kReverseOrder[r % 8]));
    }
  s.owner = L.owner;
  s.first_row = row0;
  return s;
}

// Elements [first, first + o.size()) in C order of [out, inn]: each output row's inputs from
// this thread's strip of its rows, a group at a time; element by element from the part itself
// when a strip would be too wide to keep.
void awq_decode(const AwqLayout& L, std::int64_t first, std::span<float> o) {
  if (o.empty()) return;
  const std::int64_t inn = L.inn, out = L.out, gs = L.group_size, last = first + static_cast<std::int64_t>(o.size());
  const bool strips =
      inn <= kStripMaxBytes / (kAwqStripRows / 8 * 4) && L.groups <= kStripMaxBytes / (kAwqStripRows * 8);
  if (!strips) {
    const std::byte* qwb = L.wf->bytes().data() + L.wo;
    const std::byte* qzb = L.zf->bytes().data() + L.zo;
    const std::byte* scb = L.sf->bytes().data() + L.so;
    for (std::size_t k = 0; k < o.size(); ++k) {
      const std::int64_t idx = first + static_cast<std::int64_t>(k), c = idx / inn, i = idx % inn, g = i / gs;
      const int field = kReverseOrder[c % 8];
      const auto q = static_cast<std::int32_t>(packed_field(qwb, i * (out / 8) + c / 8, 4, field));
      const auto z = static_cast<std::int32_t>(packed_field(qzb, g * (out / 8) + c / 8, 4, field));
      o[k] = static_cast<float>(q - z) * read_scale(scb, g * out + c, L.kind);
    }
    return;
  }
  float* y = o.data();
  for (std::int64_t idx = first; idx < last;) {
    const std::int64_t c = idx / inn, i0 = idx % inn, row_end = std::min(inn, i0 + (last - idx));
    const WordStrip& s = awq_strip(L, c);
    const std::int64_t j = c - s.first_row;
    const auto* w = reinterpret_cast<const std::byte*>(s.words.data() + j / 8 * inn);
    const int shift = 4 * kReverseOrder[c % 8];
    for (std::int64_t i = i0; i < row_end;) {
      const std::int64_t g = i / gs, end = std::min(row_end, (g + 1) * gs);
      const auto at = static_cast<std::size_t>(j * L.groups + g);
      field_scaled(w + 4 * i, shift, 4, end - i, s.zeros[at], s.scales[at], y + (i - i0));
      i = end;
    }
    y += row_end - i0;
    idx += row_end - i0;
  }
}

std::optional<LogicalTensor> build(const SchemeInput& in, const std::string& prefix) {
  const std::string logical = prefix + ".weight";
  if (!in.config) {  // without a config: qweight packing 8 outputs a word beside scales of every output
    const TensorEntry* w = in.find(prefix + ".qweight");
    const TensorEntry* s = in.find(prefix + ".scales");
    if (!w || !s || !in.find(prefix + ".qzeros") || w->shape.size() != 2 || s->shape.size() != 2 ||
        w->shape[1] > INT64_MAX / 8 || w->shape[1] * 8 != s->shape[1] || in.find(prefix + ".g_idx"))
      return std::nullopt;
  }
  if (config_int(in, "bits", 4) != 4) in.fail_config("bits", "AWQ GEMM is decoded for 4 bits only");
  const TensorEntry& qw = in.part(logical, prefix + ".qweight", kName);
  const TensorEntry& qz = in.part(logical, prefix + ".qzeros", kName);
  const TensorEntry& sc = in.part(logical, prefix + ".scales", kName);
  for (const TensorEntry* p : {&qw, &qz})
    if (p->stored_type != "I32" || p->shape.size() != 2)
      in.fail(logical, p->name, kName, "dtype " + p->stored_type + " shape " + shape_text(p->shape) + ", not 2-D I32");
  const int kind = scale_kind(in, logical, sc, kName);
  if (sc.shape.size() != 2)
    in.fail(logical, sc.name, kName, "shape " + shape_text(sc.shape) + " is not 2-D [groups, out]");
  const std::int64_t inn = qw.shape[0], out = in.scaled(logical, qw, kName, qw.shape[1], 8), groups = sc.shape[0];
  if (sc.shape[1] != out)
    in.fail(logical, sc.name, kName,
            "shape " + shape_text(sc.shape) + ", but qweight " + shape_text(qw.shape) + " packs " +
                std::to_string(out) + " outputs");
  std::int64_t group_size = config_int(in, "group_size", 0);
  if (group_size == -1) group_size = inn;
  if (group_size == 0) {
    if (groups == 0 || inn % groups != 0)
      in.fail(logical, sc.name, kName,
              std::to_string(groups) + " groups do not divide " + std::to_string(inn) +
                  " inputs (no config.json group_size)");
    group_size = inn / groups;
  }
  if (group_size < 1) in.fail_config("group_size", std::to_string(group_size) + " is not positive or -1");
  if (inn % group_size != 0 || inn / group_size != groups)
    in.fail(logical, sc.name, kName,
            std::to_string(groups) + " groups, but " + std::to_string(inn) + " inputs in groups of " +
                std::to_string(group_size) + " make " + std::to_string(inn / group_size));
  if (qz.shape != Shape{groups, out / 8})
    in.fail(logical, qz.name, kName, "shape " + shape_text(qz.shape) + ", not " + shape_text(Shape{groups, out / 8}));
  const auto wf = part_file(in, logical, qw, kName), zf = part_file(in, logical, qz, kName),
             sf = part_file(in, logical, sc, kName);
  LogicalTensor lt;
  lt.parts = {qw.name, qz.name, sc.name};
  TensorEntry& e = lt.entry;
  e.name = logical;
  e.dtype = DType::Float32;
  e.shape = Shape{out, inn};
  e.stored_type = "awq gemm int4, groups of " + std::to_string(group_size);
  set_stored(e, {&qw, &qz, &sc}, {"qweight", "qzeros", "scales"});
  // dequantize_gemm's (iweight - izeros) * scales is in the scales' dtype (F16 as AutoAWQ saves them).
  set_producer_dtype(e, "AutoAWQ", scale_dtype_name(sc));
  const std::uint64_t wo = qw.offset, wn = qw.nbytes, zo = qz.offset, zn = qz.nbytes, so = sc.offset, sn = sc.nbytes;
  e.details_for_write().loader = [=, label = "dequantize awq '" + logical + "'"]() {
    auto L = std::make_shared<AwqLayout>();
    L->wf = wf, L->zf = zf, L->sf = sf, L->wo = wo, L->zo = zo, L->so = so;
    L->out = out, L->inn = inn, L->groups = groups, L->group_size = group_size, L->kind = kind;
    L->owner = new_strip_owner();
    RangeDecode decode = [L](std::int64_t first, std::span<float> o) { awq_decode(*L, first, o); };
    return decoded_tensor(label, Shape{out, inn}, std::move(decode), [=] {
      wf->fetch(wo, wn);
      zf->fetch(zo, zn);
      sf->fetch(so, sn);
    }, release_in_slabs(wf, wo, wn, out * inn, 1));
  };
  return lt;
}

}  // namespace

SchemeRow scheme_awq() {
  SchemeRow r;
  r.name = kName;
  r.quant_methods = {"awq"};
  r.key_suffix = ".qweight";
  // AWQ's GEMM layout only (GEMV and Marlin pack otherwise); a config without "version" is GEMM.
  r.selects = [](const nlohmann::json& q) {
    return !q.contains("version") || q["version"] == "gemm" || q["version"] == "GEMM";
  };
  r.build = build;
  r.orphan = [](const TensorEntry& e) -> std::optional<std::string> {
    for (std::string_view part : {std::string_view(".qzeros"), std::string_view(".scales")})
      if (e.name.ends_with(part)) return e.name.substr(0, e.name.size() - part.size()) + ".qweight";
    return std::nullopt;
  };
  return r;
}

}  // namespace tensor_inspect
