// compare/diff_judge.cpp — what a pair of diff is (diff.hpp): a shape or dtype mismatch,
// or the same or different by its values (streamed through compare_tensors), or by its
// stored bytes where values are not decoded.
#include <tuple>

#include "compare/names_hf_gguf.hpp"
#include "compare/quant_error.hpp"
#include "tensor_inspect/diff.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/tensor_errors.hpp"

namespace tensor_inspect {
namespace {

constexpr const char* kDiffStatusText[] = {"same",      "differs",   "shape mismatch", "dtype mismatch",
                                           "only in A", "only in B", "not comparable"};
constexpr const char* kDiffStatusJson[] = {"same",      "differs",   "shape_mismatch", "dtype_mismatch",
                                           "only_in_a", "only_in_b", "not_comparable"};
static_assert(std::size(kDiffStatusText) == kDiffStatusCount && std::size(kDiffStatusJson) == kDiffStatusCount);

// How messages name one side's tensor: "a.safetensors: tensor 'w'", a literal as written.
std::string side_label(const DiffInput& in, const TensorEntry& e) {
  return in.file ? tensor_label(in.label, e.name) : in.label;
}

// A pair where a side's values cannot be decoded (r.a or r.b has no dtype) but their shapes
// agree. Two tensors of one stored type are compared by their stored bytes: equal bytes
// are an equal tensor, different bytes a difference without figures (nothing decoded to
// measure it by). A decoded tensor against an undecoded one, or two stored types, is a
// dtype mismatch. Where a side's bytes do not lie in its file as the tensor's (a strided or
// deflated PyTorch storage, one of a type of unknown size), the pair is not comparable: the
// run goes on with the other pairs, and exits 1, as h5diff does for objects it cannot compare.
void compare_undecoded(DiffRow& r, const std::string& label_a, const std::string& label_b, std::size_t index,
                       std::size_t count, const DiffProgress& progress) {
  const std::string undecoded = !r.a->dtype && !r.b->dtype ? "A's and B's" : !r.a->dtype ? "A's" : "B's";
  if (r.a->dtype || r.b->dtype || r.a->stored_type != r.b->stored_type) {
    r.status = DiffStatus::DTypeMismatch;
    r.note =
        undecoded + " values (" + (r.a->dtype ? r.b->stored_type : r.a->stored_type) + ") are not decoded by this tool";
    return;
  }
  if (!has_stored_bytes(*r.a) || !has_stored_bytes(*r.b)) {
    const TensorEntry& without = has_stored_bytes(*r.a) ? *r.b : *r.a;
    const std::string side = !has_stored_bytes(*r.a) && !has_stored_bytes(*r.b) ? "A's and B's"
                             : &without == r.a                                  ? "A's"
                                                                                : "B's";
    // The loader's note says how the tensor lies over its storage (strides, deflated, big-endian).
    const std::string why = !without.note.empty() ? without.note : "a storage type of unknown element size";
    r.status = DiffStatus::NotComparable;
    r.note = r.a->stored_type + " values are not decoded by this tool, and " + side +
             " stored bytes are not the tensor's in order (" + why + "): not compared";
    return;
  }
  auto bytes_done = [&](std::uint64_t done) {
    if (progress) progress(index, count, done, r.a->nbytes, "stored bytes");
  };
  const std::optional<std::uint64_t> at =
      for_pair(label_a, label_b, [&] { return first_differing_byte(*r.a, *r.b, bytes_done); });
  r.bytes_compared = true;
  r.status = at ? DiffStatus::Differs : DiffStatus::Same;
  r.note = r.a->stored_type + " values are not decoded by this tool: stored bytes " +
           (at ? "differ, first at byte " + std::to_string(*at) + " of " + std::to_string(r.a->nbytes)
               : std::string("equal"));
}

}  // namespace

const char* diff_status_text(DiffStatus s) { return kDiffStatusText[static_cast<std::size_t>(s)]; }

const char* diff_status_json(DiffStatus s) { return kDiffStatusJson[static_cast<std::size_t>(s)]; }

void compare_pair(DiffRow& r, std::size_t index, std::size_t count, const DiffInput& a, const DiffInput& b,
                  const DiffOptions& o, const DiffProgress& progress) {
  if (!r.a || !r.b) return;
  const std::string label_a = side_label(a, *r.a), label_b = side_label(b, *r.b);
  // An entry whose values cannot be shown says why when loaded: a tensor in a missing shard
  // is trouble (its shape is unknown, not ()), a dtype tinygrad lacks still gets its shape
  // compared and then its stored bytes (compare_undecoded).
  for (const TensorEntry* e : {r.a, r.b})
    if (!e->dtype) {
      try {
        (void)for_tensor(e == r.a ? label_a : label_b, [e] { return e->load(); });
      } catch (const Error& err) {
        if (!cannot_show(err)) throw;
      }
    }
  if (r.a->shape != r.b->shape) {
    r.status = DiffStatus::ShapeMismatch;
    return;
  }
  if (!r.a->dtype || !r.b->dtype) {
    compare_undecoded(r, label_a, label_b, index, count, progress);
    return;
  }
  // Every element is compared, so every byte is read: what a whole read checks is checked.
  for (const TensorEntry* e : {r.a, r.b})
    if (e->details().check_whole) for_tensor(e == r.a ? label_a : label_b, e->details().check_whole);
  const Tensor ta = for_tensor(label_a, [&] { return r.a->load(); });
  Tensor tb = for_tensor(label_b, [&] { return r.b->load(); });
  CompareOptions copt;
  copt.rtol = o.rtol;
  copt.atol = o.atol;
  copt.nan_equal = !o.nan_differs;
  copt.exact = o.exact;
  if (o.tolerance == "torch") std::tie(copt.rtol, copt.atol) = torch_tolerance(*r.a, *r.b);
  r.rtol = o.exact ? 0 : copt.rtol;  // --exact compares bits: no tolerance
  r.atol = o.exact ? 0 : copt.atol;
  if (o.names_map == "hf-gguf" && !align_gguf_to_hf(r, *b.file, tb, label_b)) return;
  auto elements_done = [&](std::int64_t done) {
    if (progress)
      progress(index, count, static_cast<std::uint64_t>(done), static_cast<std::uint64_t>(ta.numel()), "elements");
  };
  // Both stream through one pass: what fails there is named by the pair.
  r.cmp = for_pair(label_a, label_b, [&] { return compare_tensors(ta, tb, copt, elements_done); });
  if (commit_dtype(ta.dtype()) != commit_dtype(tb.dtype()) && !o.ignore_dtype)
    r.status = DiffStatus::DTypeMismatch;
  else
    r.status = r.cmp->mismatched ? DiffStatus::Differs : DiffStatus::Same;
}

std::vector<DiffRow> diff_tensors(const DiffInput& a, const DiffInput& b, const DiffOptions& o,
                                  const std::function<void(const DiffRow&)>& on_row, const DiffProgress& progress) {
  std::vector<DiffRow> rows = pair_tensors(a, b, o);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    compare_pair(rows[i], i, rows.size(), a, b, o, progress);
    if (on_row) on_row(rows[i]);
  }
  return rows;
}

bool diff_found_difference(const std::vector<DiffRow>& rows) {
  for (const DiffRow& r : rows)
    if (r.status != DiffStatus::Same) return true;
  return false;
}

}  // namespace tensor_inspect
