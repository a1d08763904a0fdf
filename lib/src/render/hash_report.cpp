// render/hash_report.cpp — hash's outputs: sha256sum-style lines, the manifest, and the
// --check report (hash_check.hpp; schemas/hash.schema.json, hash_check.schema.json).
#include <map>

#include <nlohmann/json.hpp>

#include "tensor_inspect/hash_check.hpp"
#include "tensor_inspect/json_shape.hpp"

namespace tensor_inspect {
namespace {

std::string_view hash_status_word(HashCheckStatus s) {
  switch (s) {
    case HashCheckStatus::Ok: return "OK";
    case HashCheckStatus::Changed: return "FAILED";
    case HashCheckStatus::Missing: return "MISSING";
    case HashCheckStatus::Added: return "ADDED";
  }
  return "FAILED";
}

std::string_view hash_status_json(HashCheckStatus s) {
  switch (s) {
    case HashCheckStatus::Ok: return "ok";
    case HashCheckStatus::Changed: return "changed";
    case HashCheckStatus::Missing: return "missing";
    case HashCheckStatus::Added: return "added";
  }
  return "changed";
}

nlohmann::ordered_json hash_fields_json(const std::string& type, const Shape& shape, const std::string& digest) {
  return {{"dtype", type}, {"shape", shape}, {"hash", digest}};
}

std::string dump_hash_json(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace

void write_hashes(const std::vector<TensorHash>& hashes, const HashInputs& in, HashAlgorithm algo, bool json,
                  OutBuffer& out) {
  if (!json) {
    for (std::size_t i = 0; i < hashes.size(); ++i)
      out.write(hashes[i].digest + "  " + escape_untrusted(in.names[i], true) + "\n");
    return;
  }
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < hashes.size(); ++i)
    tensors.push_back({{"name", in.names[i]},
                       {"dtype", hashes[i].type},
                       {"shape", hashes[i].shape},
                       {"hash", hashes[i].digest},
                       {"stored_blocks", hashes[i].stored_blocks}});
  nlohmann::ordered_json j;
  j["schema_version"] = kSchemaVersion;
  j["kind"] = "hash";
  j["algorithm"] = std::string(hash_algorithm_name(algo));
  j["inputs"] = in.labels;
  j["tensors"] = std::move(tensors);
  out.write(dump_hash_json(j));
}

void write_hash_check(const std::vector<HashCheckRow>& rows, const Manifest& m, const std::string& manifest_path,
                      const HashInputs& in, bool quiet, bool json, OutBuffer& out) {
  std::map<HashCheckStatus, std::size_t> counts;
  for (const HashCheckRow& r : rows) ++counts[r.status];
  if (json) {
    nlohmann::ordered_json j;
    j["schema_version"] = kSchemaVersion;
    j["kind"] = "hash_check";
    j["algorithm"] = std::string(hash_algorithm_name(m.algorithm));
    j["manifest"] = manifest_path;
    j["inputs"] = in.labels;
    j["tensors"] = nlohmann::ordered_json::array();
    for (const HashCheckRow& r : rows) {
      if (quiet && r.status == HashCheckStatus::Ok) continue;
      nlohmann::ordered_json t;
      t["name"] = r.name;
      t["status"] = std::string(hash_status_json(r.status));
      t["expected"] = r.expected ? hash_fields_json(r.expected->type, r.expected->shape, r.expected->digest) : nullptr;
      t["actual"] = r.actual ? hash_fields_json(r.actual->type, r.actual->shape, r.actual->digest) : nullptr;
      j["tensors"].push_back(std::move(t));
    }
    j["summary"] = {{"ok", counts[HashCheckStatus::Ok]},
                    {"changed", counts[HashCheckStatus::Changed]},
                    {"missing", counts[HashCheckStatus::Missing]},
                    {"added", counts[HashCheckStatus::Added]}};
    out.write(dump_hash_json(j));
    return;
  }
  for (const HashCheckRow& r : rows)
    if (!quiet || r.status != HashCheckStatus::Ok)
      out.write(escape_untrusted(r.name, true) + ": " + std::string(hash_status_word(r.status)) + "\n");
  out.write(std::to_string(rows.size()) + (rows.size() == 1 ? " tensor: " : " tensors: ") +
            std::to_string(counts[HashCheckStatus::Ok]) + " OK, " + std::to_string(counts[HashCheckStatus::Changed]) +
            " changed, " + std::to_string(counts[HashCheckStatus::Missing]) + " missing, " +
            std::to_string(counts[HashCheckStatus::Added]) + " added\n");
}

}  // namespace tensor_inspect
