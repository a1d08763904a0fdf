// validate/index.cpp — the rules of a sharded safetensors index (model.safetensors.index.json):
// its JSON, weight_map, every shard it names, and metadata.total_size against the shards.
// A pytorch_model.bin.index.json is the same JSON over torch.save shards, checked as such.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "loaders/formats.hpp"
#include "loaders/json_document.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

// The same file as one of `paths`, by what the file system says (a folder's shards are
// named "dir/x.safetensors", a shard given alone maybe "./dir/x.safetensors").
bool among(const std::filesystem::path& shard, const std::vector<std::string>& paths) {
  std::error_code ec;
  for (const std::string& p : paths)
    if (std::filesystem::equivalent(shard, p, ec)) return true;
  return false;
}

// metadata.total_size, as transformers writes it: save_pretrained takes it from
// huggingface_hub's split_torch_state_dict_into_shards (serialization/_base.py), which
// adds get_torch_storage_size(tensor) (serialization/_torch.py: the storage's nbytes, that
// is numel * element size for the contiguous tensors safetensors saves) once per storage;
// tied tensors are dropped before saving, so every stored tensor counts once. The sum of
// the shards' tensor byte sizes (data_offsets end - begin) must equal it. An index without
// the key (older writers) is not faulted.
void check_total_size(const nlohmann::json& index, std::uint64_t stored, Findings& f) {
  if (!index.contains("metadata") || !index["metadata"].is_object() || !index["metadata"].contains("total_size"))
    return;
  const nlohmann::json& v = index["metadata"]["total_size"];
  std::optional<std::uint64_t> total;
  if (v.is_number_unsigned()) total = v.get<std::uint64_t>();
  else if (v.is_number_float() && v.get<double>() >= 0 && std::floor(v.get<double>()) == v.get<double>() &&
           v.get<double>() < 1.8e19)
    total = static_cast<std::uint64_t>(v.get<double>());  // 1.5e9 as some writers spell it
  if (!total) {
    f.error("total_size", "key 'metadata.total_size'", std::nullopt,
            "total_size is " + v.dump() + ", not a byte count");
    return;
  }
  if (*total != stored)
    f.error("total_size", "key 'metadata.total_size'", std::nullopt,
            "total_size is " + std::to_string(*total) + ", but the shards' tensors hold " + std::to_string(stored) +
                " bytes (the sum of their data_offsets spans, as transformers adds them)");
}

}  // namespace

std::set<std::string> check_index(const std::shared_ptr<const MappedFile>& file, const ValidateScope& scope,
                                  Findings& f) {
  std::set<std::string> left_to_shards;
  const std::string_view text(reinterpret_cast<const char*>(file->bytes().data()), file->size());
  if (text.size() > 100'000'000) {
    f.error("size", "index", std::nullopt,
            "the index is " + std::to_string(text.size()) + " bytes, over the limit of 100000000");
    return left_to_shards;
  }
  if (const int depth = json_nesting(text); depth > 16) {
    f.error("depth", "index", std::nullopt,
            "the index nests " + std::to_string(depth) + " levels deep (an index has 3)");
    return left_to_shards;
  }
  // Duplicate keys: Python's json (transformers) keeps the last mapping silently, the
  // loader refuses the index; a weight_map that names a tensor twice says two things.
  JsonFaults faults{[&](const JsonDuplicate& d) {
    const std::string first = " (first at byte " + std::to_string(d.first) + ")";
    if (d.object.empty())
      f.error("duplicate_key", "key '" + d.key + "'", d.again,
              "key '" + d.key + "' appears again in the index" + first);
    else if (d.object == "weight_map")
      f.error("duplicate_key", "tensor '" + d.key + "'", d.again,
              "tensor '" + d.key + "' appears again in weight_map" + first + "; json.load keeps the last shard named");
    else
      f.error("duplicate_key", "'" + d.object + "' key '" + d.key + "'", d.again,
              "key '" + d.key + "' appears again in '" + d.object + "'" + first);
  }};
  const std::optional<nlohmann::json> read = JsonDocument(text, file->name(), 0).collect(faults);
  if (!read) {
    f.error("json", "index", faults.fault->offset, "the index is not valid JSON: " + faults.fault->what);
    return left_to_shards;
  }
  const nlohmann::json& index = *read;
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object()) {
    f.error("weight_map", "index", std::nullopt, "the index has no \"weight_map\" object");
    return left_to_shards;
  }
  std::map<std::string, std::set<std::string>> by_shard;
  for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
    if (!it.value().is_string()) {
      f.error("weight_map", "tensor '" + it.key() + "'", std::nullopt, "the shard name is not a string");
      continue;
    }
    const std::string shard = it.value().get<std::string>();
    // The loader's rule (loaders/index_shard.cpp), so validate passes what loading opens.
    if (const std::string fault = index_shard_name_fault(shard); !fault.empty())
      f.error("shard_name", "tensor '" + it.key() + "'", std::nullopt, "shard name '" + shard + "' " + fault);
    else by_shard[shard].insert(it.key());
  }
  // Beside the index as it was opened (a URL with its credentials), never as name() shows it.
  const std::filesystem::path dir =
      std::filesystem::path(file->location().empty() ? file->name() : file->location()).parent_path();
  // total_size is checked when every shard was read and holds what the index maps to it.
  bool sizes_known = true;
  std::uint64_t stored = 0;
  for (const auto& [shard, names] : by_shard) {
    const std::string place = "shard '" + shard + "'";
    // A shard this run validates on its own has its faults in its own report: here it is
    // checked for what only the index can say (the mapping, the sizes), once per run.
    const bool elsewhere = among(dir / shard, scope.also_validated);
    std::shared_ptr<MappedFile> sf;
    try {
      sf = MappedFile::open((dir / shard).string());
    } catch (const Error& e) {
      sizes_known = false;
      if (elsewhere) {
        left_to_shards.insert(names.begin(), names.end());
        continue;
      }
      const std::string tensors = std::to_string(names.size()) + (names.size() == 1 ? " tensor" : " tensors");
      f.error("missing_shard", place, std::nullopt, "the shard of " + tensors + " cannot be read (" + e.what() + ")");
      continue;
    }
    std::vector<Finding> aside;  // the shard's own findings, when its report has them
    // A pytorch_model.bin.index.json names torch.save shards: each is checked as what it is.
    const bool pytorch = index_shard_is_pytorch(shard, sf->bytes().first(std::min<std::size_t>(sf->size(), 64)));
    Findings inner(elsewhere ? aside : f.all(), pytorch ? "pytorch" : "safetensors", place);
    const std::size_t before = inner.errors();
    inner.checked([&] {
      if (pytorch) check_pytorch(sf, inner);
      else check_safetensors(sf->bytes(), inner);
    });
    if (inner.errors() != before) {
      sizes_known = false;
      if (elsewhere) left_to_shards.insert(names.begin(), names.end());
      continue;
    }
    try {
      const LoadedFile part = pytorch ? open_pytorch(sf) : open_safetensors(sf);
      std::set<std::string> held;
      for (const TensorEntry& e : part.tensors) {
        held.insert(e.name);
        if (!names.count(e.name))
          f.error("unmapped", place + ": tensor '" + e.name + "'", std::nullopt,
                  "the shard holds a tensor the index does not map to it");
        else stored += e.nbytes;
      }
      for (const std::string& n : names)
        if (!held.count(n)) {
          sizes_known = false;
          f.error("unmapped", "tensor '" + n + "'", std::nullopt,
                  "the index maps it to " + place + ", which does not hold it");
        }
    } catch (const Error& e) {
      sizes_known = false;
      if (!elsewhere) f.error("loader", place, std::nullopt, e.what());
      else left_to_shards.insert(names.begin(), names.end());
    }
  }
  if (sizes_known && f.errors() == 0) check_total_size(index, stored, f);
  return left_to_shards;
}

}  // namespace tensor_inspect::validate
