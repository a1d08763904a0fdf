// remote/content_range.cpp — the Content-Range parser (see content_range.hpp).
#include "remote/content_range.hpp"

namespace tensor_inspect {

namespace {

bool parse_range_u64(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return true;
}

}  // namespace

bool parse_content_range(std::string_view v, ContentRange& out) {
  if (v.substr(0, 6) != "bytes ") return false;
  v.remove_prefix(6);
  const std::size_t slash = v.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view span = v.substr(0, slash), total = v.substr(slash + 1);
  if (total == "*") out.size_known = false;
  else if (parse_range_u64(total, out.size)) out.size_known = true;
  else return false;
  if (span == "*") return out.unsatisfied = true, out.size_known;
  const std::size_t dash = span.find('-');
  return dash != std::string_view::npos && parse_range_u64(span.substr(0, dash), out.first) &&
         parse_range_u64(span.substr(dash + 1), out.last) && out.first <= out.last;
}

}  // namespace tensor_inspect
