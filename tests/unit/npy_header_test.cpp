// .npy's one header parser under its two policies (loaders/npy_header.cpp): loading stops at
// the first fault, validate collects every one, and both name the same file byte. Headers
// are written out in full here; each expected byte is 10 (magic 6, version 2, length 2)
// plus the index of the field in the header text, counted by hand and re-checked with
// Python's str.index.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "loaders/formats.hpp"
#include "loaders/npy_header.hpp"
#include "test_util.hpp"
#include "validate/findings.hpp"

namespace ti = tensor_inspect;

namespace {

// Findings of validate's .npy checker, errors and warnings alike.
std::vector<ti::Finding> validate_npy(const std::string& file) {
  std::vector<ti::Finding> out;
  ti::validate::Findings f(out, "npy");
  const std::vector<std::byte> b = test_util::bytes_of(file);
  ti::validate::check_npy(b, 0, f);
  return out;
}

std::string load_error(const std::string& file) {
  try {
    (void)ti::open_npy(ti::MappedFile::from_bytes(test_util::bytes_of(file), "x.npy"));
  } catch (const ti::Error& e) {
    return e.what();
  }
  return "no error";
}

// `text` padded with spaces and ended by '\n' so the data starts at a multiple of 64.
std::string padded(std::string text) {
  while ((10 + text.size() + 1) % 64 != 0) text += ' ';
  return text + '\n';
}

}  // namespace

TEST_CASE("npy header: a header with two faults: loading stops at the first, validate collects both, same bytes") {
  // 'no' starts at index 34 of the text (byte 44); -1 at index 53 (byte 63).
  const std::string file = test_util::npy(padded("{'descr': '<f4', 'fortran_order': 'no', 'shape': (2, -1), }"));
  CHECK(load_error(file) == "x.npy: header: 'fortran_order' must be True or False, not 'no' at byte 44");
  const std::vector<ti::Finding> found = validate_npy(file);
  REQUIRE(found.size() == 2);
  CHECK(found[0].rule == "npy.fortran_order");
  CHECK(found[0].offset == 44);
  CHECK(found[0].message == "fortran_order is not True or False");
  CHECK(found[1].rule == "npy.shape");
  CHECK(found[1].place == "key 'shape'");
  CHECK(found[1].offset == 63);
  CHECK(found[1].message == "shape holds '-1', not a size >= 0");

  // The same parser over the same bytes, called directly: stop throws, collect reads on.
  const std::vector<std::byte> b = test_util::bytes_of(file);
  std::vector<ti::NpyFault> faults;
  const ti::NpyFaults collect("x.npy", [&faults](const ti::NpyFault& x) { faults.push_back(x); });
  const ti::NpyPrefix p = ti::read_npy_prefix(b, 0, collect);
  CHECK(p.read);
  CHECK(p.header_pos == 10);
  CHECK(p.data_pos == 128);
  const ti::NpyHeader h = ti::read_npy_dict(b, 0, p, collect);
  CHECK(h.read);
  CHECK_FALSE(h.shape_ok);
  REQUIRE(faults.size() == 2);
  CHECK(faults[1].loading == "header: 'shape' (2, -1) has a negative dimension");
  const ti::NpyFaults stop("x.npy");
  CHECK_THROWS_WITH_AS(ti::read_npy_dict(b, 0, p, stop),
                       "x.npy: header: 'fortran_order' must be True or False, not 'no' at byte 44", ti::Error);
}

TEST_CASE("npy header: a key given twice and an unknown key: the literal's reader reads past both when collecting") {
  // The second 'descr' starts at index 17 (byte 27), 'x' at index 72 (byte 82).
  const std::string file =
      test_util::npy(padded("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"),
                     std::string(8, '\0'));
  CHECK(load_error(file) == "x.npy: header: duplicate key 'descr' at byte 27");
  const std::vector<ti::Finding> found = validate_npy(file);
  REQUIRE(found.size() == 2);
  CHECK(found[0].rule == "npy.keys");
  CHECK(found[0].offset == 27);
  CHECK(found[0].message == "key 'descr' appears twice");
  CHECK(found[1].rule == "npy.keys");
  CHECK(found[1].offset == 82);
  CHECK(found[1].message == "unexpected key 'x' (allowed: descr, fortran_order, shape)");
}

TEST_CASE("npy header: a syntax fault ends both walks at the same byte; the prefix's rules still hold") {
  // No '}' after (2,): the reader skips the '\n' and finds the end of the header where it
  // expects ',' or '}', at index 55 (byte 65). 55 header bytes make the data start at byte
  // 65, no multiple of 64: validate also warns on the alignment.
  const std::string text = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)\n";
  const std::string file = test_util::npy(text);
  CHECK(load_error(file) == "x.npy: header: expected ',' or '}', found end of header at byte 65");
  const std::vector<ti::Finding> found = validate_npy(file);
  REQUIRE(found.size() == 2);
  CHECK(found[0].rule == "npy.alignment");
  CHECK(found[0].severity == ti::Severity::Warning);
  CHECK(found[1].rule == "npy.header");
  CHECK(found[1].offset == 65);
  CHECK(found[1].message == "the header is not a Python dict literal: expected ',' or '}', found end of header");
}

TEST_CASE("npy header: a 3.0 header's invalid UTF-8 is one finding at the byte loading names, then read on") {
  // Version 3.0: a 4-byte length, so the text starts at byte 12. The key '\xff\xfe' starts at
  // index 56 (byte 68), its first byte, which is no UTF-8, at index 57: loading names byte 69.
  std::string text = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), '\xff\xfe': 1}";
  while ((12 + text.size() + 1) % 64 != 0) text += ' ';
  const std::string file = test_util::npy(text + '\n', std::string(8, '\0'), 3);
  CHECK(load_error(file) == "x.npy: header: invalid UTF-8 in a string at byte 69");
  const std::vector<ti::Finding> found = validate_npy(file);
  REQUIRE(found.size() == 2);
  CHECK(found[0].rule == "npy.utf8");
  CHECK(found[0].offset == 69);
  CHECK(found[1].rule == "npy.keys");
  CHECK(found[1].offset == 68);
  CHECK(found[1].message == "unexpected key '\xff\xfe' (allowed: descr, fortran_order, shape)");
}

TEST_CASE("npy header: the header length past the end names the header's first byte in both policies") {
  // Length 0x1388 = 5000, 8 bytes follow the length field (which ends at byte 10).
  const std::string file = std::string("\x93NUMPY\x01\x00\x88\x13", 10) + "{'descr'";
  CHECK(load_error(file) == "x.npy: truncated header: needs 5000 bytes, 8 left at byte 10");
  const std::vector<ti::Finding> found = validate_npy(file);
  REQUIRE(found.size() == 1);
  CHECK(found[0].rule == "npy.header_length");
  CHECK(found[0].offset == 10);
  CHECK(found[0].message == "header length 5000 runs past the end (8 bytes left)");
}
