// loaders/npy_header.cpp — the one parser of a .npy header (see npy_header.hpp).
#include "loaders/npy_header.hpp"

#include <cstring>
#include <utility>

#include "loaders/byte_reader.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

constexpr unsigned char kNpyMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kNpyMaxDims = 64;  // NPY_MAXDIMS in numpy 2

// The keys a header holds, in validate's words and in loading's.
void check_npy_keys(const NpyHeader& h, const NpyFaults& faults) {
  for (std::size_t i = 0; i < h.dict.items.size(); i += 2) {
    const PyValue& key = h.dict.items[i];
    if (key.kind != PyValue::Kind::Str) continue;  // the literal's reader said so
    if (key.str != "descr" && key.str != "fortran_order" && key.str != "shape")
      faults({"keys", "key '" + key.str + "'", key.at,
              "unexpected key '" + key.str + "' (allowed: descr, fortran_order, shape)",
              "header: unexpected key " + py_str_repr(key.str) + " (allowed: 'descr', 'fortran_order', 'shape')"});
  }
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (!h.find(key))
      faults({"keys", "header", h.dict.at, std::string("the header has no '") + key + "'",
              "header: missing key '" + std::string(key) + "'"});
}

// 'shape': a tuple of ints >= 0. Fills h.shape; the first bad dimension ends the walk.
void read_npy_shape(NpyHeader& h, const PyValue& v, const NpyFaults& faults) {
  if (v.kind != PyValue::Kind::Tuple) {
    faults({"shape", "key 'shape'", v.at, "shape is not a tuple",
            "header: 'shape' must be a tuple of ints, not " + py_repr(v)});
    return;
  }
  if (!faults.collecting() && v.items.size() > kNpyMaxDims)
    faults({"shape", "key 'shape'", v.at, "",
            "header: 'shape' has " + std::to_string(v.items.size()) + " dimensions, more than " +
                std::to_string(kNpyMaxDims)});
  for (const PyValue& dim : v.items) {
    if (dim.kind != PyValue::Kind::Int || dim.integer < 0) {
      const std::string text = dim.kind == PyValue::Kind::Str ? dim.str : py_repr(dim);
      faults({"shape", "key 'shape'", dim.at, "shape holds '" + text + "', not a size >= 0",
              dim.kind != PyValue::Kind::Int ? "header: 'shape' must be a tuple of ints, not " + py_repr(v)
                                             : "header: 'shape' " + py_repr(v) + " has a negative dimension"});
      h.shape.clear();
      return;
    }
    h.shape.push_back(dim.integer);
  }
  h.shape_ok = true;
}

}  // namespace

NpyPrefix read_npy_prefix(std::span<const std::byte> bytes, std::uint64_t base, const NpyFaults& faults) {
  ByteReader r(bytes, faults.name(), base);
  NpyPrefix p;
  const auto magic = r.bytes(sizeof kNpyMagic, "magic");
  if (std::memcmp(magic.data(), kNpyMagic, sizeof kNpyMagic) != 0) {
    faults({"magic", "header", base, "the data does not start with the .npy magic (byte 0x93, then NUMPY)",
            "bad magic: not a .npy file"});
    return p;
  }
  const std::uint8_t major = r.u8("major version"), minor = r.u8("minor version");
  if (major < 1 || major > 3 || minor != 0) {
    const std::string v = std::to_string(major) + "." + std::to_string(minor);
    faults({"version", "header", base + 6, "version " + v + " (NEP 1 defines 1.0, 2.0 and 3.0)",
            "unknown version " + v + " (known: 1.0, 2.0, 3.0)"});
    return p;
  }
  p.major = major;
  p.header_len = major == 1 ? r.u16le("header length") : r.u32le("header length");
  p.header_pos = r.pos();
  if (!faults.collecting() && p.header_len > limits().npy_header_bytes)
    r.fail("header length " + std::to_string(p.header_len) + " exceeds the limit of " +
               std::to_string(limits().npy_header_bytes) + limit_hint("npy_header_bytes"),
           "npy_header_bytes");
  if (p.header_len > r.remaining()) {
    const std::string left = std::to_string(r.remaining());
    faults({"header_length", "header", r.offset(),
            "header length " + std::to_string(p.header_len) + " runs past the end (" + left + " bytes left)",
            "truncated header: needs " + std::to_string(p.header_len) + " bytes, " + left + " left"});
    return p;
  }
  r.skip(p.header_len, "header");  // a remote file's header bytes arrive here
  p.data_pos = r.pos();
  p.read = true;
  return p;
}

NpyHeader read_npy_dict(std::span<const std::byte> bytes, std::uint64_t base, const NpyPrefix& prefix,
                        const NpyFaults& faults) {
  NpyHeader h;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + prefix.header_pos,
                              static_cast<std::size_t>(prefix.header_len));
  PyLiteralSink sink;
  bool utf8_said = false;  // one finding for the header, as its rule is about the whole text
  if (faults.collecting())
    sink = [&faults, &utf8_said](const PyLiteralFault& x) {
      using Kind = PyLiteralFault::Kind;
      if (x.kind == Kind::Syntax)
        faults({"header", "header", x.at, "the header is not a Python dict literal: " + x.what, "header: " + x.what});
      else if (x.kind == Kind::InvalidUtf8 && !std::exchange(utf8_said, true))
        faults({"utf8", "header", x.at, "a version 3.0 header must be UTF-8", "header: " + x.what});
      else if (x.kind == Kind::InvalidUtf8)
        return;
      else if (x.kind == Kind::KeyNotString)
        faults({"keys", "key '<not a string>'", x.at,
                "unexpected key '<not a string>' (allowed: descr, fortran_order, shape)", "header: " + x.what});
      else
        faults({"keys", "key '" + x.key + "'", x.at, "key '" + x.key + "' appears twice", "header: " + x.what});
    };
  try {
    h.dict = parse_py_literal(text, faults.name(), base + prefix.header_pos, prefix.major, sink);
  } catch (const Error&) {
    if (!faults.collecting()) throw;
    return h;  // the sink has the syntax fault
  }
  if (h.dict.kind != PyValue::Kind::Dict) {
    faults({"header", "header", h.dict.at, "the header is not a dict",
            "header: expected a dict, found a " + py_type_name(h.dict)});
    return h;
  }
  h.read = true;
  check_npy_keys(h, faults);
  if (const PyValue* v = h.find("fortran_order")) {
    if (v->kind != PyValue::Kind::Bool)
      faults({"fortran_order", "key 'fortran_order'", v->at, "fortran_order is not True or False",
              "header: 'fortran_order' must be True or False, not " + py_repr(*v)});
    else
      h.fortran_order = v->boolean;
  }
  if (const PyValue* v = h.find("shape")) read_npy_shape(h, *v, faults);
  return h;
}

}  // namespace tensor_inspect
