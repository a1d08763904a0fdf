// loaders/json_sax.hpp — the base of the project's nlohmann SAX passes that look only at a
// document's structure (its objects, arrays and keys): every value is accepted as read.
// A pass overrides the container and key events it cares about, and parse_error.
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

namespace tensor_inspect {

class StructureSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
};

}  // namespace tensor_inspect
