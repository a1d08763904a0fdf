// app/commands/hash/hash_check.cpp — `hash --check MANIFEST INPUT...`: the inputs' tensors hashed
// with the manifest's algorithm and compared with it by name (a manifest and an input of
// one tensor each: whatever their names), each reported as sha256sum -c reports a file.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands/hash/hash_inputs.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {
namespace {

// What became of one tensor.
enum class Status { Ok, Changed, Missing, Added };

std::string_view status_word(Status s) {
  switch (s) {
    case Status::Ok: return "OK";
    case Status::Changed: return "FAILED";
    case Status::Missing: return "MISSING";
    case Status::Added: return "ADDED";
  }
  return "FAILED";
}

std::string_view status_json(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::Changed: return "changed";
    case Status::Missing: return "missing";
    case Status::Added: return "added";
  }
  return "changed";
}

struct Row {
  std::string name;
  Status status = Status::Ok;
  const ManifestTensor* expected = nullptr;
  std::optional<TensorHash> actual;
};

Manifest read_manifest(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > limits().manifest_bytes)
    throw limit_error("manifest_bytes", path + ": manifest of " + std::to_string(size) + " bytes is larger than " +
                                            std::to_string(limits().manifest_bytes) + limit_hint("manifest_bytes"),
                      path);
  std::ifstream f(path, std::ios::binary);
  if (!f || std::filesystem::is_directory(path, ec)) throw Error(ErrorCode::Io, path + ": cannot read the manifest");
  std::ostringstream text;
  text << f.rdbuf();
  if (f.bad()) throw Error(ErrorCode::Io, path + ": cannot read the manifest");
  return parse_manifest(text.str(), path);
}

nlohmann::ordered_json hash_json(const std::string& type, const Shape& shape, const std::string& digest) {
  return {{"dtype", type}, {"shape", shape}, {"hash", digest}};
}

}  // namespace

int run_hash_check(const HashOptions& o) {
  const Manifest m = read_manifest(*o.check);
  if (o.algo && *o.algo != hash_algorithm_name(m.algorithm))
    throw Error(ErrorCode::Usage, "hash: --algo " + *o.algo + " contradicts the manifest's algorithm (" +
                                      std::string(hash_algorithm_name(m.algorithm)) + "): --check uses the manifest's");
  const HashInputs in = open_hash_inputs(o.inputs);
  // Pair the manifest's tensors with the inputs' entries.
  std::vector<Row> rows;
  std::vector<TensorEntry> paired;
  std::vector<std::size_t> paired_row;
  std::vector<bool> used(in.entries.size(), false);
  const bool by_position = m.tensors.size() == 1 && in.entries.size() == 1;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < in.names.size(); ++i) index.emplace(in.names[i], i);
  for (const ManifestTensor& t : m.tensors) {
    Row r{t.name, Status::Missing, &t, std::nullopt};
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
    Row& r = rows[paired_row[k]];
    r.actual = hashes[k];
    const bool same = hashes[k].digest == r.expected->digest && hashes[k].type == r.expected->type && hashes[k].shape == r.expected->shape;
    r.status = same ? Status::Ok : Status::Changed;
  }
  for (std::size_t i = 0; i < in.entries.size(); ++i)
    if (!used[i]) rows.push_back(Row{in.names[i], Status::Added, nullptr, std::nullopt});
  std::map<Status, std::size_t> counts;
  for (const Row& r : rows) ++counts[r.status];
  OutBuffer out(stdout);
  if (o.json) {
    nlohmann::ordered_json j;
    j["schema_version"] = kSchemaVersion;
    j["kind"] = "hash_check";
    j["algorithm"] = std::string(hash_algorithm_name(m.algorithm));
    j["manifest"] = *o.check;
    j["inputs"] = in.labels;
    j["tensors"] = nlohmann::ordered_json::array();
    for (const Row& r : rows) {
      if (o.quiet && r.status == Status::Ok) continue;
      nlohmann::ordered_json t;
      t["name"] = r.name;
      t["status"] = std::string(status_json(r.status));
      t["expected"] = r.expected ? hash_json(r.expected->type, r.expected->shape, r.expected->digest) : nullptr;
      t["actual"] = r.actual ? hash_json(r.actual->type, r.actual->shape, r.actual->digest) : nullptr;
      j["tensors"].push_back(std::move(t));
    }
    j["summary"] = {{"ok", counts[Status::Ok]}, {"changed", counts[Status::Changed]},
                    {"missing", counts[Status::Missing]}, {"added", counts[Status::Added]}};
    out.write(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  } else {
    for (const Row& r : rows)
      if (!o.quiet || r.status != Status::Ok) out.write(escape_untrusted(r.name, true) + ": " + std::string(status_word(r.status)) + "\n");
    out.write(std::to_string(rows.size()) + (rows.size() == 1 ? " tensor: " : " tensors: ") + std::to_string(counts[Status::Ok]) + " OK, " +
              std::to_string(counts[Status::Changed]) + " changed, " + std::to_string(counts[Status::Missing]) + " missing, " +
              std::to_string(counts[Status::Added]) + " added\n");
  }
  out.flush();
  warn_of_inputs(in);
  return rows.size() == counts[Status::Ok] ? 0 : 1;
}

}  // namespace tensor_inspect::app
