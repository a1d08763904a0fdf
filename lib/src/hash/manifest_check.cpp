// hash/manifest_check.cpp — a manifest's tensors paired with the inputs' and judged
// (hash_check.hpp), as `sha256sum -c` judges files.
#include <map>

#include "tensor_inspect/hash_check.hpp"

namespace tensor_inspect {

std::vector<HashCheckRow> check_manifest(const Manifest& m, const HashInputs& in) {
  std::vector<HashCheckRow> rows;
  std::vector<TensorEntry> paired;
  std::vector<std::size_t> paired_row;
  std::vector<bool> used(in.entries.size(), false);
  const bool by_position = m.tensors.size() == 1 && in.entries.size() == 1;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < in.names.size(); ++i) index.emplace(in.names[i], i);
  for (const ManifestTensor& t : m.tensors) {
    HashCheckRow r{t.name, HashCheckStatus::Missing, &t, std::nullopt};
    const auto it = by_position ? index.begin() : index.find(t.name);
    if (it != index.end()) {
      used[it->second] = true;
      paired.push_back(in.entries[it->second]);
      paired_row.push_back(rows.size());
    }
    rows.push_back(std::move(r));
  }
  const std::vector<TensorHash> hashes = hash_tensors(paired, m.algorithm);
  for (std::size_t k = 0; k < hashes.size(); ++k) {
    HashCheckRow& r = rows[paired_row[k]];
    r.actual = hashes[k];
    const bool same = hashes[k].digest == r.expected->digest && hashes[k].type == r.expected->type &&
                      hashes[k].shape == r.expected->shape;
    r.status = same ? HashCheckStatus::Ok : HashCheckStatus::Changed;
  }
  for (std::size_t i = 0; i < in.entries.size(); ++i)
    if (!used[i]) rows.push_back(HashCheckRow{in.names[i], HashCheckStatus::Added, nullptr, std::nullopt});
  return rows;
}

}  // namespace tensor_inspect
