// tinygrad's movement ops with its argument conventions (negative axes, -1 sizes, None
// ranges), and the compositions of them: repeat, cat, stack.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "internal.hpp"
#include "tensor/const_fold.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect::tg {

using namespace detail;

namespace {

Shape resolve_reshape(const Tensor& t, const Shape& shape) {
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) shape_error("only one dimension can be inferred using -1, getting " + ints_repr(shape));
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      shape_error("reshape: negative size in " + ints_repr(shape));
    } else {
      known = (shape[i] != 0 && known > max_elements() / shape[i]) ? max_elements() + 1 : known * shape[i];
    }
  }
  Shape out = shape;
  if (infer >= 0) {
    if (known == 0 || t.numel() % known != 0)
      shape_error("cannot reshape " + shape_repr(t.shape()) + " to " + ints_repr(shape));
    out[uz(infer)] = t.numel() / known;
  }
  check_shape(out, "reshape");
  if (tensor_inspect::prod(out) != t.numel())
    shape_error("cannot reshape " + shape_repr(t.shape()) + " to " + ints_repr(shape));
  return out;
}


}  // namespace

// ---------------------------------------------------------------------------- movement

Tensor reshape(const Tensor& t, const Shape& shape) {
  Shape s = resolve_reshape(t, shape);
  return s == t.shape() ? t : t.reshape(s);
}

Tensor permute(const Tensor& t, const std::vector<std::int64_t>& order) {
  std::int64_t nd = sz(t.ndim());
  std::vector<std::int64_t> r;
  std::vector<bool> seen(t.ndim(), false);
  bool ok = sz(order.size()) == nd;
  for (std::int64_t a : order) {
    if (a < -std::max<std::int64_t>(nd, 1) || a >= std::max<std::int64_t>(nd, 1)) { ok = false; break; }
    std::int64_t x = a < 0 ? a + nd : a;
    if (x < 0 || x >= nd || seen[uz(x)]) { ok = false; break; }
    seen[uz(x)] = true;
    r.push_back(x);
  }
  if (!ok) shape_error("order is not a valid permutation, getting " + ints_repr(order));
  bool identity = true;
  for (std::size_t i = 0; i < r.size(); ++i) identity = identity && r[i] == sz(i);
  return identity ? t : t.permute(r);
}

Tensor transpose(const Tensor& t, std::int64_t dim0, std::int64_t dim1) {
  std::int64_t nd = sz(t.ndim());
  // tinygrad swaps two items of the Python list range(ndim): each dim indexes that list,
  // so it must lie in [-ndim, ndim) (a 1-d transpose(-1, 0) is allowed; no 0-d one is).
  // tinygrad says only "IndexError: list index out of range".
  auto call = [&] {
    return "transpose(" + std::to_string(dim0) + ", " + std::to_string(dim1) + ") of shape " + shape_repr(t.shape());
  };
  if (nd == 0) shape_error(call() + ": a 0-d tensor has no dims to swap");
  for (std::int64_t d : {dim0, dim1})
    if (d < -nd || d >= nd)
      shape_error(call() + ": no dim " + std::to_string(d) + " (dims are " + std::to_string(-nd) + " to " +
                  std::to_string(nd - 1) + ")");
  std::int64_t a = resolve_dim(dim0, nd), b = resolve_dim(dim1, nd);
  std::vector<std::int64_t> order;
  for (std::int64_t i = 0; i < nd; ++i) order.push_back(i);
  std::swap(order[uz(a)], order[uz(b)]);
  return permute(t, order);
}

Tensor expand(const Tensor& t, const Shape& shape) {
  if (shape.size() < t.ndim())
    shape_error("cannot broadcast " + shape_repr(t.shape()) + " to new_shape=" + ints_repr(shape));
  std::size_t lead = shape.size() - t.ndim();
  Shape target = shape;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (i < lead) shape_error("cannot broadcast " + shape_repr(t.shape()) + " to new_shape=" + ints_repr(shape));
      target[i] = t.shape()[i - lead];
    } else if (shape[i] < 0) {
      shape_error("cannot broadcast " + shape_repr(t.shape()) + " to new_shape=" + ints_repr(shape));
    } else if (i >= lead && t.shape()[i - lead] != shape[i] && t.shape()[i - lead] != 1) {
      shape_error("cannot broadcast " + shape_repr(t.shape()) + " to new_shape=" + ints_repr(shape));
    }
  }
  return broadcast_to(t, target);
}

Tensor shrink(const Tensor& t, const std::vector<OptRange>& arg) {
  Ranges r;
  bool ok = arg.size() == t.ndim();
  bool identity = true;
  for (std::size_t i = 0; ok && i < arg.size(); ++i) {
    std::pair<std::int64_t, std::int64_t> p = arg[i] ? *arg[i] : std::pair<std::int64_t, std::int64_t>{0, t.shape()[i]};
    if (p.first < 0 || p.first > p.second || p.second > t.shape()[i]) ok = false;
    identity = identity && p.first == 0 && p.second == t.shape()[i];
    r.push_back(p);
  }
  if (!ok) {
    std::ostringstream os;
    os << "invalid shrink (";
    for (std::size_t i = 0; i < arg.size(); ++i) {
      if (i) os << ", ";
      if (arg[i]) os << "(" << arg[i]->first << ", " << arg[i]->second << ")";
      else os << "None";
    }
    os << (arg.size() == 1 ? ",)" : ")") << " for " << shape_repr(t.shape());
    shape_error(os.str());
  }
  return identity ? t : t.shrink(r);
}

Tensor pad(const Tensor& t, const std::vector<OptRange>& arg, const Scalar& value) {
  if (arg.size() != t.ndim())
    shape_error("padding length " + std::to_string(arg.size()) + " does not match a " + std::to_string(t.ndim()) +
                "-d tensor " + shape_repr(t.shape()));
  // Negative amounts crop first, then the positive ones pad.
  std::vector<OptRange> crop(t.ndim());
  Ranges grow(t.ndim(), {0, 0});
  bool any_grow = false;
  const std::int64_t most = max_elements();
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (!arg[i]) continue;
    auto [before, after] = *arg[i];
    if (std::max(std::abs(std::max(before, -most)), std::abs(std::max(after, -most))) >= most)
      shape_error("padding (" + std::to_string(before) + ", " + std::to_string(after) + ") is out of range");
    std::int64_t b = std::max<std::int64_t>(-before, 0), e = t.shape()[i] - std::max<std::int64_t>(-after, 0);
    if (b > e)
      shape_error("padding " + std::to_string(before) + ", " + std::to_string(after) + " crops more than axis " +
                  std::to_string(i) + " of " + shape_repr(t.shape()) + " holds");
    crop[i] = std::pair{b, e};
    grow[i] = {std::max<std::int64_t>(before, 0), std::max<std::int64_t>(after, 0)};
    any_grow = any_grow || grow[i].first > 0 || grow[i].second > 0;
  }
  Tensor c = shrink(t, crop);
  if (!any_grow) return c;
  Shape out = c.shape();
  for (std::size_t i = 0; i < out.size(); ++i) out[i] += grow[i].first + grow[i].second;
  check_shape(out, "pad");
  Tensor p = c.pad(grow);
  // tinygrad's _pad_constant (mixin/op.py) tests `value == 0`, which -0.0 passes: it pads with +0.0.
  bool zero = value.kind == DKind::Float ? value.f == 0.0 : value.as_bits() == 0;
  if (zero) return p;
  // A pad of an empty tensor is all pad region: tinygrad's scheduler makes every node with a 0 in its
  // shape a CONST 0 (schedule/rangeify.py, "handle size 0"), the mask's expand of True among them, so
  // the where folds to its value and the padded tensor is that constant (`x / x` of it is nan/nan).
  // An op it cannot run below still reaches its verifier (realize/schedule.cpp refuses it).
  if (c.numel() == 0 && runnable(c))
    return broadcast_to(scalar_tensor(value, least_upper_dtype(p.dtype(), python_dtype(value))), out);
  Tensor inside = scalar_tensor(Scalar::from_bool(true), DType::Bool);
  inside = broadcast_to(inside, c.shape()).pad(grow);
  return where(inside, p, value);
}

Tensor pad_flat(const Tensor& t, const std::vector<std::int64_t>& flat, const Scalar& value) {
  if (flat.size() % 2 != 0 || flat.size() > 2 * t.ndim())
    shape_error("flat padding " + ints_repr(flat) + " must have an even length of at most " +
                std::to_string(2 * t.ndim()));
  std::vector<OptRange> arg(t.ndim());
  for (std::size_t k = 0; k < flat.size() / 2; ++k) arg[t.ndim() - 1 - k] = std::pair{flat[2 * k], flat[2 * k + 1]};
  return pad(t, arg, value);
}

Tensor flip(const Tensor& t, const std::vector<std::int64_t>& axes) {
  std::vector<std::int64_t> r;
  for (std::int64_t a : axes) {
    std::int64_t x = resolve_dim(a, sz(t.ndim()));
    if (std::find(r.begin(), r.end(), x) != r.end())
      shape_error("dim " + std::to_string(a) + " appears multiple times in flip");
    if (t.ndim() > 0) r.push_back(x);
  }
  std::sort(r.begin(), r.end());
  return r.empty() ? t : t.flip(r);
}

Tensor flatten(const Tensor& t, std::int64_t start_dim, std::int64_t end_dim) {
  if (t.ndim() == 0) return t.reshape({1});
  std::int64_t nd = sz(t.ndim());
  std::int64_t s = resolve_dim(start_dim, nd), e = resolve_dim(end_dim, nd);
  if (s > e) return t;
  Shape out(t.shape().begin(), t.shape().begin() + s);
  std::int64_t n = 1;
  for (std::int64_t i = s; i <= e; ++i) n *= t.shape()[uz(i)];
  out.push_back(n);
  out.insert(out.end(), t.shape().begin() + e + 1, t.shape().end());
  return reshape(t, out);
}

Tensor unflatten(const Tensor& t, std::int64_t dim, const Shape& sizes) {
  std::int64_t d = resolve_dim(dim, sz(t.ndim()));
  if (t.ndim() == 0) shape_error("unflatten of a 0-d tensor");
  Shape out(t.shape().begin(), t.shape().begin() + d);
  out.insert(out.end(), sizes.begin(), sizes.end());
  out.insert(out.end(), t.shape().begin() + d + 1, t.shape().end());
  // -1 is resolved against the whole tensor, which is the same as against axis `d`.
  return reshape(t, out);
}

Tensor squeeze(const Tensor& t, std::optional<std::int64_t> dim) {
  Shape out;
  if (!dim) {
    for (std::int64_t d : t.shape())
      if (d != 1) out.push_back(d);
  } else {
    if (t.ndim() == 0) {
      resolve_dim(*dim, 0);
      return t;
    }
    std::int64_t a = resolve_dim(*dim, sz(t.ndim()));
    for (std::size_t i = 0; i < t.ndim(); ++i)
      if (sz(i) != a || t.shape()[i] != 1) out.push_back(t.shape()[i]);
  }
  return reshape(t, out);
}

Tensor unsqueeze(const Tensor& t, std::int64_t dim) {
  std::int64_t d = resolve_dim(dim, sz(t.ndim()) + 1);
  Shape out = t.shape();
  out.insert(out.begin() + d, 1);
  return t.reshape(out);
}


Tensor repeat(const Tensor& t, const Shape& repeats) {
  // tinygrad: reshape to interleave a size-1 axis before each axis, expand it to the
  // repeat count, and merge each pair.
  if (repeats.size() < t.ndim())
    shape_error("repeat needs at least " + std::to_string(t.ndim()) + " counts for shape " + shape_repr(t.shape()));
  for (std::int64_t r : repeats)
    if (r < 0) shape_error("repeat counts must be >= 0, got " + shape_repr(repeats));
  Shape base(repeats.size() - t.ndim(), 1);
  base.insert(base.end(), t.shape().begin(), t.shape().end());
  Shape interleaved, expanded, final_shape;
  for (std::size_t i = 0; i < base.size(); ++i) {
    interleaved.insert(interleaved.end(), {1, base[i]});
    expanded.insert(expanded.end(), {repeats[i], base[i]});
    std::int64_t n = 0;
    if (__builtin_mul_overflow(repeats[i], base[i], &n) || n > max_elements())
      throw limit_error("expression_elements", "repeat " + shape_repr(repeats) + " of shape " + shape_repr(t.shape()) +
                                                   " has more than " + std::to_string(max_elements()) + " elements" +
                                                   limit_hint("expression_elements"));
    final_shape.push_back(n);
  }
  check_shape(final_shape, "repeat");
  return reshape(expand(reshape(t, interleaved), expanded), final_shape);
}


namespace {

// The constant all pieces are, of one dtype, length along `axis` and value bits, or nullopt.
std::optional<Scalar> uniform_pieces(const std::vector<Tensor>& ts, std::size_t axis) {
  const std::optional<Scalar> c = const_fold::constant_of(ts[0]);
  if (!c) return std::nullopt;
  const auto same = [](const Scalar& x, const Scalar& y) {  // a float's bits; an int's whole value
    if (x.kind != y.kind) return false;
    return x.kind == DKind::Float ? std::bit_cast<std::uint64_t>(x.f) == std::bit_cast<std::uint64_t>(y.f)
                                  : x.as_wide() == y.as_wide();
  };
  for (const Tensor& t : ts) {
    const std::optional<Scalar> v = const_fold::constant_of(t);
    if (!v || t.dtype() != ts[0].dtype() || t.shape()[axis] != ts[0].shape()[axis] || !same(*v, *c))
      return std::nullopt;
  }
  return c;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& ts, std::int64_t dim) {
  if (ts.empty()) shape_error("cat needs at least one tensor");
  const Tensor& first = ts[0];
  if (first.ndim() == 0) shape_error("zero-dimensional tensor cannot be concatenated");
  const std::int64_t ax = resolve_axes(first, std::vector<std::int64_t>{dim})[0];
  const auto uax = static_cast<std::size_t>(ax);
  DType d = first.dtype();
  std::int64_t total = 0;
  for (const Tensor& t : ts) {
    Shape a = t.shape(), b = first.shape();
    if (a.size() != b.size()) shape_error("cat: shapes " + shape_repr(b) + " and " + shape_repr(a) + " differ in ndim");
    a[uax] = b[uax] = 0;
    if (a != b)
      shape_error("cat: shapes " + shape_repr(first.shape()) + " and " + shape_repr(t.shape()) + " differ off axis " +
                  std::to_string(ax));
    d = least_upper_dtype(d, t.dtype());
    total += t.shape()[uax];
  }
  // A stack, and a cat of pieces of one length, is an Ops.STACK in tinygrad, which its
  // constant folding reads as constants (uop/symbolic.py const_folding_pat): pieces that are
  // one constant give that constant, unwrapped (int8 255 stacked is still 255 to a cast).
  if (auto c = uniform_pieces(ts, uax)) {
    Shape out_shape = first.shape();
    out_shape[uax] = total;
    return Tensor::full(out_shape, *c, d);
  }
  // tinygrad's cat: pad each piece to the full length along the axis and add them up.
  // Floats are added as their bits (x + 0 would turn -0.0 into 0.0), so every value,
  // -0.0 and nan payloads included, comes through unchanged.
  const bool as_bits = is_float(d) && !is_weak(d);
  const std::size_t isz = dtype_info(d).itemsize;
  const DType bits = isz == 1 ? DType::UInt8 : isz == 2 ? DType::UInt16 : isz == 4 ? DType::UInt32 : DType::UInt64;
  std::optional<Tensor> out;
  std::int64_t offset = 0;
  for (const Tensor& t : ts) {
    std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> padding(t.ndim());
    const std::int64_t n = t.shape()[uax];
    padding[uax] = std::pair<std::int64_t, std::int64_t>{offset, total - offset - n};
    Tensor piece = cast_to(t, d);
    piece = pad(as_bits ? piece.bitcast(bits) : piece, padding);
    out = out ? add(*out, piece) : piece;
    offset += n;
  }
  return as_bits ? out->bitcast(d) : *out;
}

Tensor stack(const std::vector<Tensor>& ts, std::int64_t dim) {
  if (ts.empty()) shape_error("stack needs at least one tensor");
  std::vector<Tensor> lifted;
  for (const Tensor& t : ts) {
    if (t.shape() != ts[0].shape())
      shape_error("stack: shapes " + shape_repr(ts[0].shape()) + " and " + shape_repr(t.shape()) + " differ");
    lifted.push_back(unsqueeze(t, dim));
  }
  return cat(lifted, dim);
}

Tensor contiguous(const Tensor& t) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  // Only a literal's value beyond its int dtype is told apart: a constant the tool folded from
  // ops (x - x) is no CONST in tinygrad's Tensor, whose contiguous() realizes it.
  if (n->op == Op::Const && !int_fits(std::get<Scalar>(n->arg), n->dtype)) return t;
  return t.contiguous();
}

}  // namespace tensor_inspect::tg
