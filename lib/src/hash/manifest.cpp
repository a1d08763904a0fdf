// hash/manifest.cpp — reading a hash manifest (schemas/hash.schema.json) back: every field
// checked, the first fault named, as the loaders treat their headers (untrusted input).
#include <set>

#include <nlohmann/json.hpp>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/hash.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {
namespace {

using Json = nlohmann::json;

[[noreturn]] void fault(const std::string& name, const std::string& what) {
  throw Error(ErrorCode::BadFile, name + ": not a hash manifest: " + what);
}

const Json& field(const Json& object, const char* key, Json::value_t type, const std::string& name,
                  const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end()) fault(name, where + "has no \"" + key + "\"");
  const bool ok = type == Json::value_t::number_unsigned ? it->is_number_unsigned() : it->type() == type;
  if (!ok) fault(name, where + "\"" + key + "\" is " + std::string(it->type_name()));
  return *it;
}

std::size_t digest_digits(HashAlgorithm a) { return a == HashAlgorithm::Sha256 ? 64 : 32; }

}  // namespace

Manifest parse_manifest(std::string_view text, const std::string& name) {
  if (text.size() > limits().manifest_bytes)
    throw limit_error("manifest_bytes",
                      name + ": manifest of " + std::to_string(text.size()) + " bytes is larger than " +
                          std::to_string(limits().manifest_bytes) + limit_hint("manifest_bytes"),
                      name);
  Json j;
  try {
    // Depth is bounded by the parser's callback: a manifest is 4 levels deep.
    const auto depth_cap = static_cast<int>(limits().json_depth);
    j = Json::parse(text, [&](int depth, Json::parse_event_t, Json&) {
      if (depth > depth_cap)
        throw limit_error("json_depth", name + ": JSON nested deeper than " + std::to_string(depth_cap) + " levels" +
                                            limit_hint("json_depth"),
                          name);
      return true;
    });
  } catch (const Json::exception& e) {
    fault(name, std::string("malformed JSON (") + e.what() + ")");
  }
  if (!j.is_object()) fault(name, "the top level is " + std::string(j.type_name()) + ", not an object");
  if (field(j, "kind", Json::value_t::string, name, "") != "hash") fault(name, "\"kind\" is not \"hash\"");
  if (field(j, "schema_version", Json::value_t::number_unsigned, name, "") != 1)
    fault(name, "\"schema_version\" is not 1");
  Manifest m;
  const std::string algo = field(j, "algorithm", Json::value_t::string, name, "").get<std::string>();
  const auto a = hash_algorithm_from_name(algo);
  if (!a) fault(name, "unknown \"algorithm\" (xxh3-128 or sha256)");
  m.algorithm = *a;
  for (const Json& in : field(j, "inputs", Json::value_t::array, name, "")) {
    if (!in.is_string()) fault(name, "an input is " + std::string(in.type_name()) + ", not a string");
    m.inputs.push_back(in.get<std::string>());
  }
  std::set<std::string> seen;
  const Json& tensors = field(j, "tensors", Json::value_t::array, name, "");
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Json& t = tensors[i];
    const std::string where = "tensors[" + std::to_string(i) + "]: ";
    if (!t.is_object()) fault(name, where + "is " + std::string(t.type_name()) + ", not an object");
    ManifestTensor mt;
    mt.name = field(t, "name", Json::value_t::string, name, where).get<std::string>();
    mt.type = field(t, "dtype", Json::value_t::string, name, where).get<std::string>();
    for (const Json& dim : field(t, "shape", Json::value_t::array, name, where)) {
      if (!dim.is_number_unsigned() || dim.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        fault(name, where + "\"shape\" holds " + dim.dump() + ", not a size");
      mt.shape.push_back(dim.get<std::int64_t>());
    }
    mt.digest = field(t, "hash", Json::value_t::string, name, where).get<std::string>();
    if (mt.digest.size() != digest_digits(m.algorithm) ||
        mt.digest.find_first_not_of("0123456789abcdef") != std::string::npos)
      fault(name, where + "\"hash\" is not " + std::to_string(digest_digits(m.algorithm)) + " lower-case hex digits");
    if (!seen.insert(mt.name).second) fault(name, where + "tensor '" + mt.name + "' is listed twice");
    m.tensors.push_back(std::move(mt));
  }
  return m;
}

}  // namespace tensor_inspect
