// loaders/hdf5_dtype.cpp — an HDF5 datatype as the dtype h5py hands back (h5py/_hl/
// dataset.py and h5py/h5t.pyx, py_create / dtype conversion): integers of 1, 2, 4 and 8
// bytes signed or not, IEEE floats of 2, 4 and 8 bytes (h5py writes numpy's float16 as a
// custom 16-bit float: sign bit 15, exponent bits 10-14 with bias 15, mantissa bits 0-9),
// either byte order; numpy's bool, which h5py writes as an enum over int8 of FALSE = 0 and
// TRUE = 1; any other enum reads as its base integer, as h5py gives it. Compound (complex
// numbers among them), strings, variable-length, array, opaque, reference, bitfield and
// time types have no tinygrad dtype: the dataset is listed and its values refused.
#include <cstring>

#include "loaders/hdf5_walk.hpp"

namespace tensor_inspect {

namespace {

std::string hdf5_class_name(H5T_class_t c) {
  switch (c) {
    case H5T_COMPOUND:
      return "compound";
    case H5T_STRING:
      return "string";
    case H5T_VLEN:
      return "vlen";
    case H5T_ARRAY:
      return "array";
    case H5T_OPAQUE:
      return "opaque";
    case H5T_REFERENCE:
      return "reference";
    case H5T_BITFIELD:
      return "bitfield";
    case H5T_TIME:
      return "time";
    case H5T_ENUM:
      return "enum";
    case H5T_INTEGER:
      return "integer";
    case H5T_FLOAT:
      return "float";
    default:
      return "unknown";
  }
}

/// numpy's byte-order character: '|' for one byte, else '<' or '>'.
char hdf5_order_char(hid_t type, std::size_t size) {
  if (size == 1) return '|';
  return H5Tget_order(type) == H5T_ORDER_BE ? '>' : '<';
}

Hdf5Type hdf5_integer_type(hid_t type) {
  Hdf5Type out;
  const std::size_t size = H5Tget_size(type);
  const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
  out.descr = std::string(1, hdf5_order_char(type, size)) + (is_signed ? "i" : "u") + std::to_string(size);
  if ((size != 1 && size != 2 && size != 4 && size != 8) || H5Tget_precision(type) != 8 * size ||
      H5Tget_offset(type) != 0) {
    out.descr = "integer of " + std::to_string(H5Tget_precision(type)) + " bits in " + std::to_string(size) + " bytes";
    out.unsupported = "an " + out.descr + " has no dtype";
    return out;
  }
  static constexpr DType kSigned[] = {DType::Int8, DType::Int16, DType::Int32, DType::Int64};
  static constexpr DType kUnsigned[] = {DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64};
  const std::size_t row = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
  out.dtype = is_signed ? kSigned[row] : kUnsigned[row];
  out.big_endian = size > 1 && H5Tget_order(type) == H5T_ORDER_BE;
  return out;
}

Hdf5Type hdf5_float_type(hid_t type) {
  Hdf5Type out;
  const std::size_t size = H5Tget_size(type);
  std::size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
  H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize);
  const std::size_t bias = H5Tget_ebias(type);
  struct Ieee {
    std::size_t size, spos, epos, esize, msize, bias;
    DType dtype;
  };
  static constexpr Ieee kIeee[] = {{2, 15, 10, 5, 10, 15, DType::Float16},
                                   {4, 31, 23, 8, 23, 127, DType::Float32},
                                   {8, 63, 52, 11, 52, 1023, DType::Float64}};
  for (const Ieee& f : kIeee)
    if (size == f.size && spos == f.spos && epos == f.epos && esize == f.esize && mpos == 0 && msize == f.msize &&
        bias == f.bias && H5Tget_offset(type) == 0 && H5Tget_precision(type) == 8 * size) {
      out.descr = std::string(1, hdf5_order_char(type, size)) + "f" + std::to_string(size);
      out.dtype = f.dtype;
      out.big_endian = H5Tget_order(type) == H5T_ORDER_BE;
      return out;
    }
  out.descr = "float of " + std::to_string(size) + " bytes (sign bit " + std::to_string(spos) + ", " +
              std::to_string(esize) + "-bit exponent, " + std::to_string(msize) + "-bit mantissa)";
  out.unsupported = "a " + out.descr + " is no IEEE float16, float32 or float64";
  return out;
}

/// h5py's bool: an enum of two members FALSE = 0 and TRUE = 1 over a 1-byte integer.
bool is_h5py_bool(hid_t type, hid_t base) {
  if (H5Tget_size(base) != 1 || H5Tget_nmembers(type) != 2) return false;
  bool ok = true;
  for (unsigned i = 0; i < 2 && ok; ++i) {
    char* name = H5Tget_member_name(type, i);
    std::int8_t value = -1;
    ok = name && H5Tget_member_value(type, i, &value) >= 0 &&
         ((std::strcmp(name, "FALSE") == 0 && value == 0) || (std::strcmp(name, "TRUE") == 0 && value == 1));
    if (name) H5free_memory(name);
  }
  return ok;
}

}  // namespace

Hdf5Type hdf5_type(hid_t type) {
  const H5T_class_t c = H5Tget_class(type);
  if (c == H5T_INTEGER) return hdf5_integer_type(type);
  if (c == H5T_FLOAT) return hdf5_float_type(type);
  if (c == H5T_ENUM) {
    Hdf5Id base(H5Tget_super(type), H5Tclose);
    if (!base.ok() || H5Tget_class(base.get()) != H5T_INTEGER)
      return {"enum", std::nullopt, false, "an enum over no integer"};
    if (is_h5py_bool(type, base.get())) return {"|b1", DType::Bool, false, {}};
    Hdf5Type out = hdf5_integer_type(base.get());  // h5py reads any other enum as its integers
    return out;
  }
  const std::string name = hdf5_class_name(c);
  std::string why = "an HDF5 " + name + " type has no tinygrad dtype";
  if (c == H5T_COMPOUND) why += " (h5py writes complex numbers and structured arrays so)";
  return {name, std::nullopt, false, why};
}

}  // namespace tensor_inspect
