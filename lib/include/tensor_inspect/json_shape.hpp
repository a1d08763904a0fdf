// tensor_inspect/json_shape.hpp — the one versioned JSON shape. Every object the tool writes opens
// with "schema_version" and "kind" and then has keys fixed by its kind (never by what a
// file holds); schemas/<kind>.schema.json describes each kind and the tests validate
// real outputs against them. Bump kSchemaVersion when a key changes meaning or goes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

/// The version every JSON object carries as "schema_version".
inline constexpr int kSchemaVersion = 1;

/// `"schema_version": 1, "kind": "<kind>", ` — the opening members of every object.
inline std::string json_head(std::string_view kind) {
  return "\"schema_version\": " + std::to_string(kSchemaVersion) + ", \"kind\": \"" + std::string(kind) + "\", ";
}

/// A JSON string, or null when absent (a literal has no file, a lone .npy no name).
inline std::string json_string_or_null(const std::optional<std::string>& s) { return s ? json_string(*s) : "null"; }

/// The opening members of a tensor object: schema_version, kind, file, name.
inline std::string tensor_json_head(const std::optional<std::string>& file, const std::optional<std::string>& name) {
  return json_head("tensor") + "\"file\": " + json_string_or_null(file) + ", \"name\": " + json_string_or_null(name) +
         ", ";
}

}  // namespace tensor_inspect
