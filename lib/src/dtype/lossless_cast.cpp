// dtype/lossless_cast.cpp — can_lossless_cast (see dtype.hpp), tinygrad's table in dtype.py.
#include <algorithm>
#include <initializer_list>

#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect {

bool can_lossless_cast(DType from, DType to) {
  using D = DType;
  if (from == to || from == D::Bool) return true;
  const auto in = [from](std::initializer_list<D> l) { return std::find(l.begin(), l.end(), from) != l.end(); };
  switch (to) {
    case D::WeakInt: return is_int(from) && !is_weak(from);
    case D::Float64: return in({D::Float32, D::Float16, D::BFloat16, D::FP8E4M3, D::FP8E5M2, D::UInt32, D::UInt16,
                                D::UInt8, D::Int32, D::Int16, D::Int8});
    case D::Float32:
      return in({D::Float16, D::BFloat16, D::FP8E4M3, D::FP8E5M2, D::UInt16, D::UInt8, D::Int16, D::Int8});
    case D::Float16: return in({D::FP8E4M3, D::FP8E5M2, D::UInt8, D::Int8});
    case D::UInt64: return in({D::UInt32, D::UInt16, D::UInt8});
    case D::UInt32: return in({D::UInt16, D::UInt8});
    case D::UInt16: return in({D::UInt8});
    case D::Int64: return in({D::UInt32, D::UInt16, D::UInt8, D::Int32, D::Int16, D::Int8});
    case D::Int32: return in({D::UInt16, D::UInt8, D::Int16, D::Int8});
    case D::Int16: return in({D::UInt8, D::Int8});
    default: return false;
  }
}

}  // namespace tensor_inspect
