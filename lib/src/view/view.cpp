// view.cpp — View: shape, strides, offset and mask over a buffer (tinygrad's View).
#include "tensor_inspect/view.hpp"

#include <algorithm>
#include <cassert>

namespace tensor_inspect {

std::int64_t prod(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::vector<std::int64_t> strides_for_shape(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 0);
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = shape[i] == 1 ? 0 : acc;
    acc *= shape[i];
  }
  return strides;
}

std::string shape_repr(const Shape& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

View View::make(Shape shape, std::vector<std::int64_t> strides, std::int64_t offset, std::optional<Ranges> mask) {
  View v;
  if (strides.empty() && !shape.empty()) strides = strides_for_shape(shape);
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1) strides[i] = 0;
  if (mask) {
    bool all = true;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      auto [b, e] = (*mask)[i];
      if (b != 0 || e != shape[i]) all = false;
    }
    if (all) mask.reset();
  }
  v.contiguous = offset == 0 && !mask && strides == strides_for_shape(shape);
  v.shape = std::move(shape);
  v.strides = std::move(strides);
  v.offset = offset;
  v.mask = std::move(mask);
  return v;
}

std::optional<View> View::reshape(const Shape& new_shape) const {
  assert(prod(new_shape) == prod(shape));
  if (new_shape == shape) return *this;
  if (prod(shape) == 0) return View::make(new_shape);
  if (contiguous) return View::make(new_shape);
  if (mask) return std::nullopt;
  // NumPy's _attempt_nocopy_reshape: merge runs of old axes into new axes when each run is
  // itself laid out contiguously.
  Shape old_dims;
  std::vector<std::int64_t> old_strides;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1) {
      old_dims.push_back(shape[i]);
      old_strides.push_back(strides[i]);
    }
  std::vector<std::int64_t> new_strides(new_shape.size(), 0);
  std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
  const std::size_t oldnd = old_dims.size(), newnd = new_shape.size();
  while (ni < newnd && oi < oldnd) {
    std::int64_t np = new_shape[ni], op = old_dims[oi];
    while (np != op) {
      if (np < op) {
        if (nj >= newnd) return std::nullopt;
        np *= new_shape[nj++];
      } else {
        if (oj >= oldnd) return std::nullopt;
        op *= old_dims[oj++];
      }
    }
    for (std::size_t ok = oi; ok + 1 < oj; ++ok)
      if (old_strides[ok] != old_dims[ok + 1] * old_strides[ok + 1]) return std::nullopt;
    new_strides[nj - 1] = old_strides[oj - 1];
    for (std::size_t nk = nj - 1; nk > ni; --nk) new_strides[nk - 1] = new_strides[nk] * new_shape[nk];
    ni = nj++;
    oi = oj++;
  }
  return View::make(new_shape, new_strides, offset);
}

View View::permute(const std::vector<std::int64_t>& order) const {
  Shape s;
  std::vector<std::int64_t> st;
  std::optional<Ranges> m;
  if (mask) m.emplace();
  for (auto o : order) {
    auto i = static_cast<std::size_t>(o);
    s.push_back(shape[i]);
    st.push_back(strides[i]);
    if (mask) m->push_back((*mask)[i]);
  }
  return View::make(s, st, offset, m);
}

View View::expand(const Shape& new_shape) const {
  std::vector<std::int64_t> st = strides;
  std::optional<Ranges> m = mask;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != new_shape[i]) {
      st[i] = 0;
      if (m) (*m)[i] = (*m)[i].first < (*m)[i].second ? std::pair<std::int64_t, std::int64_t>{0, new_shape[i]}
                                                      : std::pair<std::int64_t, std::int64_t>{0, 0};
    }
  return View::make(new_shape, st, offset, m);
}

View View::shrink(const Ranges& ranges) const {
  Shape s;
  std::int64_t off = offset;
  std::optional<Ranges> m;
  if (mask) m.emplace();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    auto [b, e] = ranges[i];
    s.push_back(e - b);
    off += b * strides[i];
    if (mask) {
      auto [mb, me] = (*mask)[i];
      std::int64_t nb = std::clamp(mb - b, std::int64_t{0}, e - b), ne = std::clamp(me - b, std::int64_t{0}, e - b);
      m->push_back({nb, std::max(nb, ne)});
    }
  }
  return View::make(s, strides, off, m);
}

View View::pad(const Ranges& padding) const {
  Shape s;
  std::int64_t off = offset;
  Ranges m;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    auto [before, after] = padding[i];
    s.push_back(shape[i] + before + after);
    off -= before * strides[i];
    auto [mb, me] = mask ? (*mask)[i] : std::pair<std::int64_t, std::int64_t>{0, shape[i]};
    m.push_back({mb + before, me + before});
  }
  return View::make(s, strides, off, m);
}

View View::flip(const std::vector<bool>& axes) const {
  std::vector<std::int64_t> st = strides;
  std::int64_t off = offset;
  std::optional<Ranges> m = mask;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (axes[i] && shape[i] > 0) {
      off += (shape[i] - 1) * strides[i];
      st[i] = -strides[i];
      if (m) (*m)[i] = {shape[i] - (*m)[i].second, shape[i] - (*m)[i].first};
    }
  return View::make(shape, st, off, m);
}

std::int64_t View::index_of(const std::vector<std::int64_t>& idx) const {
  std::int64_t r = offset;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (mask && (idx[i] < (*mask)[i].first || idx[i] >= (*mask)[i].second)) return -1;
    r += idx[i] * strides[i];
  }
  return r;
}

}  // namespace tensor_inspect
