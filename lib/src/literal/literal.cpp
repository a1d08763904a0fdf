// literal.cpp — a recursive-descent parser for the Python literals users write as tensors.
// Scalars go straight into one flat list in element order (24 bytes each); a list keeps
// only its shape while it is read, so memory is a few times the literal's own text,
// not a tree node per element. Errors keep their order: syntax first (the whole text is
// read), then tinygrad's inhomogeneous shape (the first in the order get_shape recurses),
// then None, then values a dtype cannot hold.
#include "tensor_inspect/literal.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "literal/literal_parser.hpp"
#include "tensor/late_fold.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {
namespace {

using literal_syntax::Item;
using literal_syntax::Leaf;
using literal_syntax::LitValue;
using literal_syntax::Parser;

// dtypes.as_const followed by truncate[dtype]: Python's int()/float()/bool() then the
// dtype's wrap or rounding.
Scalar convert(const LitValue& v, DType dtype, const Parser& p, std::size_t column) {
  const DKind kind = dtype_info(dtype).kind;
  switch (v.kind) {
    case LitValue::Bool: return cast_scalar(Scalar::from_bool(v.b), dtype);
    case LitValue::Int:
      if (kind == DKind::Bool) return Scalar::from_bool(v.nonzero);
      if (kind == DKind::Float) return cast_scalar(Scalar::from_float(v.f), dtype);
      return cast_scalar(Scalar::from_uint(v.bits), dtype);
    case LitValue::Float:
      if ((kind == DKind::Signed || kind == DKind::Unsigned) && !std::isfinite(v.f))
        p.fail(column, std::string("cannot convert float ") + (std::isnan(v.f) ? "NaN" : "infinity") + " to integer");
      return cast_scalar(Scalar::from_float(v.f), dtype);
    case LitValue::None: return cast_scalar(Scalar::from_float(0.0), dtype);
  }
  return Scalar{};
}

// The exact value of a 0-d int literal beyond 64 bits (Python keeps it; a CONST holds it up
// to 2**120, tensor/const_fold.hpp): signs, then decimal digits with '_' separators. Nullopt
// for any other spelling, which keeps the value modulo 2**64.
std::optional<Scalar::Wide> wide_int_text(std::string_view text) {
  __extension__ using U = unsigned __int128;
  std::size_t at = 0;
  bool negative = false;
  const auto blank = [&] {
    while (at < text.size() && std::string_view(" \t\n\r").find(text[at]) != std::string_view::npos) ++at;
  };
  blank();
  while (at < text.size() && (text[at] == '-' || text[at] == '+')) {
    negative ^= text[at++] == '-';
    blank();
  }
  U v = 0;
  bool any = false;
  for (; at < text.size() && (std::isdigit(static_cast<unsigned char>(text[at])) || text[at] == '_'); ++at) {
    if (text[at] == '_') continue;
    v = v * 10 + static_cast<U>(text[at] - '0');
    if (v > (U{1} << 120)) return std::nullopt;
    any = true;
  }
  blank();
  if (!any || at != text.size()) return std::nullopt;
  const auto w = static_cast<Scalar::Wide>(v);
  return negative ? -w : w;
}

}  // namespace

bool may_begin_literal(std::string_view text) {
  const std::size_t at = text.find_first_not_of(" \t\n\r");  // the parser's blanks
  if (at == std::string_view::npos) return true;
  if (std::string_view("[(-+.0123456789").find(text[at]) != std::string_view::npos) return true;
  const std::string_view rest = text.substr(at);
  for (const std::string_view word : {"True", "False", "None", "float"})
    if (rest.substr(0, word.size()) == word.substr(0, rest.size())) return true;
  return false;
}

Tensor tensor_from_literal(std::string_view text, std::optional<DType> dtype, const Defaults& defaults) {
  if (text.size() > limits().literal_bytes)
    throw limit_error("literal_bytes", "literal: " + std::to_string(text.size()) + " bytes, more than the " +
                                           std::to_string(limits().literal_bytes) + " of text a literal may hold" +
                                           limit_hint("literal_bytes"));
  if (text.size() > UINT32_MAX)
    throw Error(ErrorCode::BadLiteral,
                "literal: " + std::to_string(text.size()) + " bytes; a literal holds at most 4 GiB of text");
  Parser parser(text);
  const Item root = parser.parse();
  const Shape& shape = root.shape;
  const std::vector<Leaf>& leaves = parser.leaves();
  DType d;
  if (!root.is_list) {
    switch (leaves.back().kind) {
      case LitValue::Bool: d = DType::Bool; break;
      case LitValue::Int: d = DType::WeakInt; break;
      default: d = DType::WeakFloat; break;
    }
  } else {
    int rank = leaves.empty() ? 2 : 0;  // [] is the default float
    for (const Leaf& l : leaves) {
      if (l.kind == LitValue::None) parser.fail(l.column, "Could not infer dtype of None");
      rank = std::max(rank, l.kind == LitValue::Bool ? 0 : l.kind == LitValue::Int ? 1 : 2);
    }
    d = rank == 0 ? DType::Bool : rank == 1 ? defaults.int_dtype : defaults.float_dtype;
  }
  if (dtype) d = *dtype;
  for (const Leaf& l : leaves)
    if (l.kind == LitValue::None && root.is_list) parser.fail(l.column, "Could not infer dtype of None");
  if (!root.is_list) {
    // A 0-d tensor of a Python scalar is a CONST in tinygrad, its int value unwrapped (stores
    // wrap it) and folded with the ops over it (tensor/const_fold.hpp).
    const Leaf& l = leaves.back();
    Scalar v = convert(l, d, parser, l.column);
    const DKind kind = dtype_info(d).kind;
    if ((kind == DKind::Signed || kind == DKind::Unsigned) && l.kind == LitValue::Int) {
      // The exact int when it has 64 bits: the double it rounds to is the one `bits` gives.
      if (static_cast<double>(static_cast<std::int64_t>(l.bits)) == l.f)
        v = Scalar::from_int(static_cast<std::int64_t>(l.bits));
      else if (static_cast<double>(l.bits) == l.f) v = Scalar::from_uint(l.bits);
      else if (const std::optional<Scalar::Wide> w = wide_int_text(text)) v = Scalar::from_wide(*w);
    } else if ((kind == DKind::Signed || kind == DKind::Unsigned) && l.kind == LitValue::Float &&
               std::fabs(l.f) < 9.2e18) {
      v = Scalar::from_int(static_cast<std::int64_t>(l.f));  // int(x): truncation, unwrapped
    }
    Tensor t = Tensor::full({}, v, d);
    if (is_weak(d)) late_fold::note_weak_literal(t);
    return t;
  }
  const std::size_t isz = dtype_info(d).itemsize;
  auto buf = Buffer::cpu(leaves.size() * isz);
  std::byte* dst = buf->mutable_bytes().data();
  for (std::size_t i = 0; i < leaves.size(); ++i)
    store_scalar(d, convert(leaves[i], d, parser, leaves[i].column), dst + i * isz);
  return Tensor::from_buffer(buf, d, shape);
}

}  // namespace tensor_inspect
