// render/display_width.cpp — see display_width.hpp.
#include "tensor_inspect/display_width.hpp"

#include <algorithm>
#include <cwchar>

#include <locale.h>

namespace tensor_inspect {

std::size_t display_width(std::string_view s) {
  if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return s.size();
  static const locale_t utf8 = ::newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  if (!utf8) return s.size();
  const locale_t old = ::uselocale(utf8);
  std::size_t width = 0;
  std::mbstate_t state{};
  for (std::size_t i = 0; i < s.size();) {
    wchar_t wc = 0;
    const std::size_t n = std::mbrtowc(&wc, s.data() + i, s.size() - i, &state);
    if (n == 0 || n > s.size() - i) {  // invalid or cut short: one column per byte
      state = {};
      ++width;
      ++i;
      continue;
    }
    const int w = ::wcwidth(wc);
    width += w < 0 ? 1 : static_cast<std::size_t>(w);
    i += n;
  }
  ::uselocale(old);
  return width;
}

}  // namespace tensor_inspect
