// float_repr.cpp — the public, out-of-line face of render/float_repr.hpp.
#include "render/float_repr.hpp"

#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

std::size_t float_repr(double v, char* out) {
  return static_cast<std::size_t>(render::write_float_repr(v, out) - out);
}

std::string float_repr(double v) {
  char buf[render::kMaxFloatRepr];
  return std::string(buf, float_repr(v, buf));
}

}  // namespace tensor_inspect
