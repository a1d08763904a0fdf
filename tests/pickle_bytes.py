"""Pickles written opcode by opcode (CPython Lib/pickletools.py) for torch.save archives made
by hand, and CPython's own unpickler with torch's globals stubbed, which says what a pickle
holds without torch: user_faults_load.py's finding 1 checks the tool's names against it.
"""
import collections, pickle, struct, zipfile

import numpy as np


def u(s):  # BINUNICODE
  return b"X" + struct.pack("<I", len(s.encode())) + s.encode()


def g(module, name):  # GLOBAL
  return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def tensor(key, size, numel=1):
  """torch._utils._rebuild_tensor_v2(('storage', FloatStorage, key, 'cpu', numel), 0, size, (1,)...)."""
  return (g("torch._utils", "_rebuild_tensor_v2") + b"((" + u("storage") + g("torch", "FloatStorage") + u(key) +
          u("cpu") + b"J" + struct.pack("<i", numel) + b"tQK\x00(" +
          b"".join(b"J" + struct.pack("<i", n) for n in size) + b"t(K\x01t\x89" + g("collections", "OrderedDict") +
          b")RtR")


def write_pt(path, pkl, storages):
  """A torch.save archive of `pkl` and float32 storages {key: values}."""
  with zipfile.ZipFile(path, "w") as z:
    z.writestr("archive/data.pkl", pkl)
    for key, values in storages.items():
      z.writestr(f"archive/data/{key}", np.asarray(values, "<f4").tobytes())
    z.writestr("archive/version", "3\n")


class StubUnpickler(pickle.Unpickler):
  """CPython's unpickler with torch's globals as plain callables: a tensor is ('tensor', storage key)."""

  def find_class(self, module, name):
    if (module, name) == ("collections", "OrderedDict"):
      return collections.OrderedDict
    if name == "_rebuild_tensor_v2":
      return lambda storage, offset, size, *rest: ("tensor", storage)
    return lambda *args: (module, name)

  def persistent_load(self, pid):
    return pid[2]


def key_name(k):
  """How the tool names a dict key (its text for str, int, bool, None)."""
  return k if isinstance(k, str) else repr(k) if isinstance(k, (bool, int, type(None))) else f"<{type(k).__name__}>"


def flat(d, prefix=""):
  """CPython's dict as the tool's names: [(dotted name, storage key)] in dict order."""
  out = []
  for k, v in d.items():
    name = prefix + key_name(k)
    out += flat(v, name + ".") if isinstance(v, dict) else [(name, v[1])]
  return out
