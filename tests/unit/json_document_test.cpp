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

namespace {

// The file byte a loading read names ("... at byte N"), and the one a collecting read keeps.
std::uint64_t json_loading_byte(const std::string& text) {
  try {
    (void)ti::JsonDocument(text, "x.json", 8).read(0, "");
  } catch (const ti::Error& e) {
    const std::string m = e.what();
    return std::stoull(m.substr(m.rfind(' ') + 1));
  }
  return 0;
}
ti::JsonFault json_collecting_fault(const std::string& text) {
  ti::JsonFaults faults;
  if (ti::JsonDocument(text, "x.json", 8).collect(faults)) return {0, "no fault"};
  return *faults.fault;
}

}  // namespace

TEST_CASE("JsonDocument: loading and collecting name the same byte for a fault inside a token or at one byte") {
  // Each text with the byte, counted by hand from base 8, and validate's words for it.
  struct Case {
    const char* text;
    std::uint64_t at;
    const char* what;
  };
  for (const Case& c : {
           Case{R"({"a":)", 8 + 5, "the text ends before the JSON value is complete"},
           Case{R"({"a": ]})", 8 + 6, "unexpected ']'"},
           Case{R"({"a",})", 8 + 4, "unexpected ','"},
           Case{R"({"a": tru})", 8 + 6, "a malformed number or literal 'tru'"},
           Case{R"({"a": 1.})", 8 + 6, "a malformed number or literal '1.'"},
           Case{R"({"a": -x})", 8 + 6, "a malformed number or literal '-'"},
           Case{"{\"a\n\": 1}", 8 + 3,
                "a malformed string (a control character, a bad escape or invalid UTF-8 at byte 0x0a)"},
           // The escape letter, the first bad hex digit, the digit ending a lone surrogate.
           Case{R"({"a\q": 1})", 8 + 4,
                "a malformed string (a control character, a bad escape or invalid UTF-8 at 'q')"},
           Case{R"({"a\u12x4": 1})", 8 + 7,
                "a malformed string (a control character, a bad escape or invalid UTF-8 at 'x')"},
           Case{R"({"\udc00": 1})", 8 + 7,
                "a malformed string (a control character, a bad escape or invalid UTF-8 at '0')"},
           Case{R"({"\ud800x": 1})", 8 + 8,
                "a malformed string (a control character, a bad escape or invalid UTF-8 at 'x')"},
           // UTF-8: the first byte out of its range (ed a0 would encode a surrogate).
           Case{"{\"\xed\xa0\x80\": 1}", 8 + 3,
                "a malformed string (a control character, a bad escape or invalid UTF-8 at byte 0xa0)"},
           Case{"{\"\xff\": 1}", 8 + 2,
                "a malformed string (a control character, a bad escape or invalid UTF-8 at byte 0xff)"},
       }) {
    CAPTURE(c.text);
    const ti::JsonFault f = json_collecting_fault(c.text);
    CHECK(f.what == c.what);
    CHECK(f.offset == c.at);
    CHECK(json_loading_byte(c.text) == c.at);
  }
  // A well-formed number or literal in the wrong place: both name its first byte.
  CHECK(json_loading_byte(R"({"a" 12})") == 8 + 5);
  CHECK(json_collecting_fault(R"({"a" 12})").offset == 8 + 5);
  CHECK(json_collecting_fault(R"({"a" 12})").what == "a malformed number or literal '1'");
  // A well-formed string in the wrong place: loading names its opening quote, validate the
  // closing one, where its read stops (validate's words and bytes as they always were).
  CHECK(json_loading_byte(R"({"a" "b"})") == 8 + 5);
  CHECK(json_collecting_fault(R"({"a" "b"})").offset == 8 + 7);
  CHECK(json_collecting_fault(R"({"a": 1} x)").what == "unexpected 'x'");
  CHECK(json_collecting_fault("\xef\xbb\xbf{}").what == "no fault");  // a byte order mark, as RFC 8259 allows
}
