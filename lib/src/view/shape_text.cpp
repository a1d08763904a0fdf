// view/shape_text.cpp — a shape as users write it on a command line (view.hpp's parse_shape).
#include <exception>
#include <sstream>
#include <stdexcept>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

Shape parse_shape(const std::string& text, const char* what) {
  Shape s;
  std::string t;
  for (char c : text)
    if (c != '(' && c != ')' && c != ' ') t += c;
  std::stringstream ss(t);
  std::string part;
  // "2," is the 1-tuple (2,) (getline yields no part after the last comma); an empty
  // part anywhere else ("2,,2", ",2") is a typo, not a shape.
  while (std::getline(ss, part, ',')) {
    if (part.empty())
      throw Error(ErrorCode::Usage,
                  std::string(what) + ": '" + text + "' has an empty dimension (a shape is like 2,3)");
    try {
      std::size_t used = 0;
      long long v = std::stoll(part, &used);
      if (used != part.size() || v < 0) throw std::invalid_argument("bad");
      s.push_back(v);
    } catch (const std::exception&) {
      throw Error(ErrorCode::Usage, std::string(what) + ": '" + text + "' is not a shape like 2,3");
    }
  }
  return s;
}

}  // namespace tensor_inspect
