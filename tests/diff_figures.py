"""The figures NumPy gives for a pair of tensors, as `tensor-inspect diff` reports them: max_abs,
max_rel, rmse, cosine (float64) and the count numpy.isclose calls mismatched. Used by
diff_pairs.py; each check goes through tally.
"""
import math

import numpy as np

import tally


def check(what, ok, detail=""):
  return tally.check(what, ok, detail)


def close(x, y):
  if isinstance(x, str):  # strict JSON spells non-finite figures "inf", "-inf", "nan"
    x = float(x)
  if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
    return True
  if x is None or y is None:
    return x == y
  return x == y or abs(x - y) <= 1e-12 * max(abs(x), abs(y))


def expect_figures(what, row, a, b, rtol=1e-05, atol=1e-08):
  """The figures NumPy gives for a vs b (float64), with allclose's rule for the count."""
  a = np.asarray(a, np.float64).ravel()
  b = np.asarray(b, np.float64).ravel()
  d = np.abs(a - b)
  np.seterr(divide="ignore", invalid="ignore")
  bad = ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
  want = {
    "max_abs": float(d.max()) if d.size else 0.0,
    "max_rel": float(np.max(np.where(d == 0, 0.0, d / np.abs(b)))) if d.size else 0.0,
    "rmse": float(np.sqrt(np.mean(d * d))) if d.size else 0.0,
    "cosine": float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))),
    "mismatched": int(bad.sum()),
  }
  for k, v in want.items():
    check(f"{what}: {k}", row is not None and close(row[k], v), f"got {row and row[k]}, NumPy {v}")
  first = int(np.argmax(bad)) if bad.any() else None
  return first
