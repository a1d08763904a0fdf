"""Values as the tool's JSON writes them, for tests that compare its output with NumPy or torch."""
import math


def py_value(v):
  """A tolist() value as the tool's JSON has it: non-finite floats are the strings "nan",
  "inf" and "-inf"; lists element by element; everything else unchanged."""
  if isinstance(v, list):
    return [py_value(x) for x in v]
  if isinstance(v, float) and not math.isfinite(v):
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
  return v
