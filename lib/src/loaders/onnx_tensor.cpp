// loaders/onnx_tensor.cpp — one TensorProto (onnx/onnx, onnx/onnx.proto, message
// TensorProto): its fields located, then checked against what onnx.proto says of them
// (one data field, of the data type's kind, holding what dims ask for; external data
// named by a location inside the model's folder).
#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

#include "loaders/onnx_model.hpp"
#include "loaders/onnx_types.hpp"
#include "loaders/onnx_wire.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

namespace {

/// The walk over one TensorProto's fields, reporting to `faults`.
struct OnnxTensorWalk {
  std::span<const std::byte> bytes;
  const OnnxFaults& faults;
  OnnxTensor& t;
  bool ok = true;

  std::string place() const {
    return t.name.empty() ? "initializer at byte " + std::to_string(t.at) : "initializer '" + t.name + "'";
  }
  void fault(std::string rule, std::uint64_t at, std::string message, std::string limit = {}) {
    ok = false;
    faults({std::move(rule), place(), at, std::move(message), false, std::move(limit)});
  }
  bool wire_is(const WireField& f, WireType want, std::string_view field) {
    if (f.wire_type == want) return true;
    fault("structure", f.at,
          std::string(field) + " has wire type " + std::to_string(static_cast<int>(f.wire_type)) + ", not the " +
              std::to_string(static_cast<int>(want)) + " onnx.proto declares");
    return false;
  }
  std::string text(const WireField& f, std::string_view field) {
    if (f.end - f.begin > limits().onnx_string_bytes) {
      fault("limit", f.at,
            std::string(field) + " of " + std::to_string(f.end - f.begin) + " bytes exceeds the limit of " +
                std::to_string(limits().onnx_string_bytes) + limit_hint("onnx_string_bytes"),
            "onnx_string_bytes");
      return {};
    }
    return wire_string(bytes, f);
  }

  void dims(const WireField& f) {
    const auto push = [&](std::uint64_t v) {
      if (t.dims.size() == limits().onnx_dims)
        return fault("limit", f.at,
                     "more than " + std::to_string(limits().onnx_dims) + " dims" + limit_hint("onnx_dims"),
                     "onnx_dims");
      t.dims.push_back(static_cast<std::int64_t>(v));
    };
    if (f.wire_type == WireType::Varint) return push(f.value);
    if (!wire_is(f, WireType::Bytes, "dims")) return;
    std::vector<std::uint64_t> packed(static_cast<std::size_t>(
        std::min<std::uint64_t>(wire_count_varints(bytes, f.begin, f.end), limits().onnx_dims + 1)));
    if (packed.size() > limits().onnx_dims)
      return fault("limit", f.at,
                   "more than " + std::to_string(limits().onnx_dims) + " dims" + limit_hint("onnx_dims"),
                   "onnx_dims");
    wire_decode_varints(bytes, f.begin, f.end, packed);
    for (std::uint64_t v : packed) push(v);
  }

  void typed(const WireField& f) {
    const std::string_view name = onnx_typed_field_name(f.number);
    if (t.typed_field != 0 && t.typed_field != f.number) {
      fault("data_field", f.at,
            std::string(name) + " is set beside " + std::string(onnx_typed_field_name(t.typed_field)) +
                ": one field holds a tensor's elements");
      return;
    }
    t.typed_field = f.number;
    OnnxRun run;
    const bool varints = f.number == kOnnxInt32Data || f.number == kOnnxInt64Data || f.number == kOnnxUint64Data;
    const std::uint64_t width = f.number == kOnnxFloatData ? 4 : f.number == kOnnxDoubleData ? 8 : 0;
    if (f.wire_type == WireType::Bytes && f.number != kOnnxStringData) {
      run.packed = true;
      run.begin = f.begin;
      run.end = f.end;
      if (varints) {
        run.count = wire_count_varints(bytes, f.begin, f.end);
      } else {
        if ((f.end - f.begin) % width != 0)
          return fault("structure", f.at,
                       "packed " + std::string(name) + " of " + std::to_string(f.end - f.begin) +
                           " bytes is no whole number of " + std::to_string(width) + "-byte values");
        run.count = (f.end - f.begin) / width;
      }
    } else {
      const WireType want = f.number == kOnnxStringData ? WireType::Bytes
                            : varints                   ? WireType::Varint
                            : width == 4                ? WireType::Fixed32
                                                        : WireType::Fixed64;
      if (!wire_is(f, want, name)) return;
      run.count = 1;
      run.value = f.value;
    }
    t.typed_count += run.count;
    t.typed.push_back(run);
  }

  void external_entry(const WireField& entry) {
    std::string key, value;
    WireReader r(bytes, entry.begin, entry.end);
    for (WireField f; r.next(f);) {
      if ((f.number == 1 || f.number == 2) &&
          wire_is(f, WireType::Bytes, f.number == 1 ? "external_data key" : "external_data value"))
        (f.number == 1 ? key : value) = text(f, "external_data string");
    }
    const auto number = [&](std::uint64_t& out) {
      const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
      if (value.empty() || ec != std::errc() || p != value.data() + value.size())
        fault("external_data", entry.at, "external_data '" + key + "' is '" + value + "', not a non-negative integer");
    };
    if (key == "location")
      t.location = value;
    else if (key == "offset")
      number(t.external_offset);
    else if (key == "length")
      number(t.external_length.emplace());
  }

  void field(const WireField& f) {
    switch (f.number) {
      case 1: return dims(f);
      case 2:
        if (wire_is(f, WireType::Varint, "data_type")) t.data_type = static_cast<std::int32_t>(f.value);
        return;
      case 3: t.segment = true; return;
      case kOnnxFloatData:
      case kOnnxInt32Data:
      case kOnnxStringData:
      case kOnnxInt64Data:
      case kOnnxDoubleData:
      case kOnnxUint64Data: return typed(f);
      case 8:
        if (wire_is(f, WireType::Bytes, "name")) t.name = text(f, "name");
        return;
      case 9:
        if (!wire_is(f, WireType::Bytes, "raw_data")) return;
        t.has_raw = true;
        t.raw_begin = f.begin;
        t.raw_end = f.end;
        return;
      case 13:
        if (wire_is(f, WireType::Bytes, "external_data")) external_entry(f);
        return;
      case 14:
        if (wire_is(f, WireType::Varint, "data_location")) t.external = f.value == 1;
        return;
      default: return;  // doc_string and fields of later onnx.proto versions
    }
  }

  void check_external() {
    if (t.location.empty())
      return fault("external_data", t.at, "data_location is EXTERNAL but external_data names no location");
    // onnx's checker: a POSIX path relative to the model's folder, never leaving it.
    if (t.location.front() == '/')
      return fault("external_data", t.at, "external data location '" + t.location + "' is an absolute path");
    for (std::size_t from = 0; from <= t.location.size();) {
      const std::size_t slash = std::min(t.location.find('/', from), t.location.size());
      if (std::string_view(t.location).substr(from, slash - from) == "..")
        return fault("external_data", t.at, "external data location '" + t.location + "' leaves the model's folder");
      from = slash + 1;
    }
    if (t.location.find('\0') != std::string::npos)
      return fault("external_data", t.at, "external data location holds a NUL byte");
    if (t.has_raw || t.typed_field)
      fault("data_field", t.at, "data_location is EXTERNAL, but the tensor holds data of its own too");
    if (t.external_length && *t.external_length != t.nbytes)
      fault("external_data", t.at,
            "external_data length " + std::to_string(*t.external_length) + " is not the " + std::to_string(t.nbytes) +
                " bytes dims " + shape_repr(Shape(t.dims.begin(), t.dims.end())) + " need");
  }

  void check() {
    const OnnxType* type = onnx_type(t.data_type);
    if (t.name.empty()) fault("name", t.at, "an initializer has no name");
    if (!type)
      return fault("data_type", t.at, "data_type " + std::to_string(t.data_type) + " is no TensorProto.DataType");
    std::uint64_t numel = 1;
    for (std::int64_t d : t.dims) {
      if (d < 0)
        return fault("dims", t.at, "dims " + shape_repr(Shape(t.dims.begin(), t.dims.end())) + " has a negative dim");
      const auto u = static_cast<std::uint64_t>(d);
      if (u != 0 && numel > (std::uint64_t{1} << 62) / u)
        return fault("dims", t.at,
                     "element count of dims " + shape_repr(Shape(t.dims.begin(), t.dims.end())) + " overflows");
      numel *= u;
    }
    t.numel = numel;
    t.nbytes = (numel * type->bits + 7) / 8;
    const std::string shape = shape_repr(Shape(t.dims.begin(), t.dims.end()));
    if (t.external) return check_external();
    if (t.has_raw && t.typed_field)
      return fault("data_field", t.at,
                   "raw_data and " + std::string(onnx_typed_field_name(t.typed_field)) + " are both set");
    if (t.has_raw) {
      if (type->typed_field == kOnnxStringData)
        return fault("data_field", t.raw_begin, "raw_data holds a STRING tensor, which onnx.proto forbids");
      if (t.raw_end - t.raw_begin != t.nbytes)
        fault("raw_data_size", t.raw_begin,
              "raw_data holds " + std::to_string(t.raw_end - t.raw_begin) + " bytes, but dims " + shape + " of " +
                  std::string(type->name) + " need " + std::to_string(t.nbytes));
      return;
    }
    if (t.typed_field && t.typed_field != type->typed_field)
      return fault("data_field", t.at,
                   std::string(onnx_typed_field_name(t.typed_field)) + " holds " + std::string(type->name) +
                       " elements, which onnx.proto keeps in " + std::string(onnx_typed_field_name(type->typed_field)));
    // COMPLEX64 and COMPLEX128 take two values an element.
    const std::uint64_t per = (t.data_type == 14 || t.data_type == 15) ? 2 : 1;
    if (t.typed_count != numel * per)
      fault("data_size", t.at,
            std::string(onnx_typed_field_name(type->typed_field)) + " holds " + std::to_string(t.typed_count) +
                " values, but dims " + shape + " of " + std::string(type->name) + " need " +
                std::to_string(numel * per));
  }
};

}  // namespace

OnnxTensor parse_onnx_tensor(std::span<const std::byte> bytes, std::uint64_t at, std::uint64_t begin, std::uint64_t end,
                             const OnnxFaults& faults) {
  OnnxTensor t;
  t.at = at;
  OnnxTensorWalk walk{bytes, faults, t};
  try {
    WireReader r(bytes, begin, end);
    for (WireField f; r.next(f);) walk.field(f);
  } catch (const WireError& e) {
    walk.fault("structure", e.at, e.message);
    return t;
  }
  if (walk.ok) walk.check();
  t.usable = walk.ok;
  return t;
}

}  // namespace tensor_inspect
