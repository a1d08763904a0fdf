// loaders/json_document.hpp: a JSON value read by the in-place cursor into a document (an
// index's "metadata"). Expected values are what Python's json module and nlohmann keep for
// the same text (ints as ints while they fit 64 bits, else floats); bytes are counted by
// hand from `base`.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "loaders/json_document.hpp"
#include "tensor_inspect/error.hpp"

namespace ti = tensor_inspect;

TEST_CASE("JsonDocument: values, nesting and numbers as nlohmann keeps them") {
  const nlohmann::json v = ti::JsonDocument(R"({"s": "a\u00e9", "n": null, "t": [true, false, {}], "o": {"k": []},
    "u": 18446744073709551615, "i": -9223372036854775808, "big": 18446744073709551616, "f": -1.5e3})",
                                            "x.json", 0)
                               .read(1, "metadata");
  CHECK(v["s"] == "a\xc3\xa9");
  CHECK(v["n"].is_null());
  CHECK(v["t"] == nlohmann::json::array({true, false, nlohmann::json::object()}));
  CHECK(v["o"]["k"] == nlohmann::json::array());
  CHECK(v["u"].is_number_unsigned());
  CHECK(v["u"].get<std::uint64_t>() == UINT64_MAX);
  CHECK(v["i"].is_number_integer());
  CHECK(v["i"].get<std::int64_t>() == INT64_MIN);
  CHECK(v["big"].is_number_float());
  CHECK(v["big"].get<double>() == 18446744073709551616.0);
  CHECK(v["f"].get<double>() == -1500.0);
}

TEST_CASE("JsonDocument: a key given twice names its object; faults name the file byte") {
  // The top-level object is named by the caller, a nested one by the key it stands under.
  CHECK_THROWS_WITH_AS(ti::JsonDocument(R"({"total_size": 1, "total_size": 2})", "x.json", 0).read(1, "metadata"),
                       "x.json: key 'total_size' appears twice in header object 'metadata'", ti::Error);
  CHECK_THROWS_WITH_AS(ti::JsonDocument(R"({"a": {"b": 1, "b": 2}})", "x.json", 0).read(1, "metadata"),
                       "x.json: key 'b' appears twice in header object 'a'", ti::Error);
  // 't' of "tru" is index 6 of the text, which starts at file byte 100.
  CHECK_THROWS_WITH_AS(ti::JsonDocument(R"({"a": tru})", "x.json", 100).read(1, "metadata"),
                       "x.json: header is not valid JSON (expected a value, found 't') at byte 106", ti::Error);
  // A number beyond a double (Python's json reads it as inf; nlohmann refuses it): index 6.
  CHECK_THROWS_WITH_AS(ti::JsonDocument(R"({"a": 1e999})", "x.json", 100).read(1, "metadata"),
                       "x.json: header is not valid JSON (number overflow parsing '1e999') at byte 106", ti::Error);
  // An array left open: the end of the text (index 9) where ',' or ']' must come.
  CHECK_THROWS_WITH_AS(ti::JsonDocument(R"({"a": [1 )", "x.json", 0).read(1, "metadata"),
                       "x.json: header is not valid JSON (expected ',' or ']', found the end of the header) at byte 9",
                       ti::Error);
}
