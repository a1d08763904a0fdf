"""ONNX models as producers write them, made with onnx itself (Debian's python3-onnx: onnx.helper
and onnx.numpy_helper), against what onnx.numpy_helper.to_array gives: initializers in raw_data
(from_array) and in the typed fields (make_tensor(raw=False): float_data, int32_data holding
float16/bfloat16/int8/uint8/int16/uint16/bool bit patterns, int64_data, double_data,
uint64_data), 0-d and empty tensors, a Constant node (no weight: not listed), an If node
whose branch has an initializer of its own; external data written by onnx.save_model
(save_as_external_data, one file and a file per tensor). Each is checked for names, dtypes,
shapes and values (text and JSON), stats, -e, diff, validate; a listing that never opens
the external file; damaged models exit 2 naming the place, and validate names the rule.

Run: python3 tests/onnx_vs_numpy_helper.py build/tensor-inspect
"""
import json, math, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from json_values import py_value

import numpy as np
import onnx  # python3-onnx: scripts/setup.sh installs it with the test packages
from onnx import TensorProto, helper, numpy_helper

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-onnx-")

# TensorProto.DataType -> the dtype name the tool lists (tinygrad's)
DTYPES = {
    TensorProto.FLOAT: "float32",
    TensorProto.FLOAT16: "float16",
    TensorProto.BFLOAT16: "bfloat16",
    TensorProto.DOUBLE: "float64",
    TensorProto.INT8: "int8",
    TensorProto.UINT8: "uint8",
    TensorProto.INT16: "int16",
    TensorProto.UINT16: "uint16",
    TensorProto.INT32: "int32",
    TensorProto.UINT32: "uint32",
    TensorProto.INT64: "int64",
    TensorProto.UINT64: "uint64",
    TensorProto.BOOL: "bool"
}


def run(args, timeout=120):
  p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=timeout)
  return p.returncode, p.stdout, p.stderr


def same(a, b):
  """Equal as JSON values, nan equal to nan."""
  return json.dumps(a) == json.dumps(b)


rng = np.random.default_rng(24)
f32 = rng.standard_normal((3, 4)).astype(np.float32)
f32[0, 0], f32[0, 1], f32[0, 2], f32[0, 3] = np.nan, np.inf, -np.inf, -0.0
raw_arrays = {
    "raw.f32": f32,
    "raw.f16": rng.standard_normal((2, 3)).astype(np.float16),
    "raw.f64": rng.standard_normal((5,)),
    "raw.i8": np.array([-128, -1, 0, 1, 127], dtype=np.int8),
    "raw.u8": np.array([[0, 255], [7, 128]], dtype=np.uint8),
    "raw.i16": np.array([-32768, 5, 32767], dtype=np.int16),
    "raw.u16": np.array([65535, 0, 1], dtype=np.uint16),
    "raw.i32": np.arange(-6, 6, dtype=np.int32).reshape(2, 2, 3),
    "raw.u32": np.array([4294967295, 0], dtype=np.uint32),
    "raw.i64": np.array([-(2**63), 2**63 - 1, 0], dtype=np.int64),
    "raw.u64": np.array([2**64 - 1, 1], dtype=np.uint64),
    "raw.bool": np.array([[True, False, True]]),
    "raw.scalar": np.array(2.5, dtype=np.float32),
    "raw.empty": np.zeros((0, 3), dtype=np.float32),
}
inits = [numpy_helper.from_array(a, name) for name, a in raw_arrays.items()]
# A bfloat16 tensor in raw_data: numpy has no bfloat16, so its bytes are the float32s' high halves.
bf_src = np.array([1.0, -2.5, 3.140625, 1e30], dtype=np.float32)
bf_raw = helper.make_tensor("raw.bf16",
                            TensorProto.BFLOAT16, [2, 2], (bf_src.view(np.uint32) >> 16).astype("<u2").tobytes(),
                            raw=True)
inits.append(bf_raw)
typed = [
    helper.make_tensor("typed.float", TensorProto.FLOAT, [2, 2], [1.5, -0.1, float("nan"), 3e38]),
    helper.make_tensor("typed.f16", TensorProto.FLOAT16, [3], np.array([0.1, -65504, 6e-8], dtype=np.float16)),
    helper.make_tensor("typed.bf16", TensorProto.BFLOAT16, [3], [1.0, -0.333, 65280.0]),
    helper.make_tensor("typed.i8", TensorProto.INT8, [4], [-128, -1, 0, 127]),
    helper.make_tensor("typed.u8", TensorProto.UINT8, [3], [0, 200, 255]),
    helper.make_tensor("typed.i16", TensorProto.INT16, [2], [-32768, 32767]),
    helper.make_tensor("typed.u16", TensorProto.UINT16, [2], [65535, 3]),
    helper.make_tensor("typed.i32", TensorProto.INT32, [2, 2], [-(2**31), 2**31 - 1, -5, 5]),
    helper.make_tensor("typed.i64", TensorProto.INT64, [3], [-(2**63), 2**63 - 1, -300]),
    helper.make_tensor("typed.bool", TensorProto.BOOL, [3], [True, False, True]),
    helper.make_tensor("typed.f64", TensorProto.DOUBLE, [2], [0.1, -1e300]),
    helper.make_tensor("typed.u32", TensorProto.UINT32, [2], [4294967295, 9]),
    helper.make_tensor("typed.u64", TensorProto.UINT64, [2], [2**64 - 1, 2**63]),
    helper.make_tensor("typed.scalar", TensorProto.INT64, [], [42]),
    helper.make_tensor("typed.empty", TensorProto.INT32, [2, 0], []),
]
inits += typed
tally.check("make_tensor(raw=False) filled the typed fields (int32_data for float16, int64_data, ...)",
            typed[1].int32_data and typed[8].int64_data and typed[0].float_data and typed[12].uint64_data and
            not any(t.raw_data for t in typed))

# A Constant node (its value is no weight) and an If whose branches hold initializers.
const = helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.ones(3, np.float32), "const.value"))
then_g = helper.make_graph([helper.make_node("Identity", ["then.w"], ["y_then"])], "then", [],
                           [helper.make_tensor_value_info("y_then", TensorProto.FLOAT, [2])],
                           [numpy_helper.from_array(np.array([7.0, 8.0], np.float32), "then.w")])
else_g = helper.make_graph([helper.make_node("Identity", ["else.w"], ["y_else"])], "else", [],
                           [helper.make_tensor_value_info("y_else", TensorProto.FLOAT, [2])],
                           [numpy_helper.from_array(np.array([-1.0, 0.5], np.float32), "else.w")])
cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
if_node = helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g)
graph = helper.make_graph([const, if_node], "every_dtype", [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], inits + [cond])
model = helper.make_model(graph, producer_name="tensor-inspect-tests", opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
main_path = os.path.join(tmp, "every_dtype.onnx")
onnx.save_model(model, main_path)

# The main graph's initializers, then the subgraphs' in file order (make_node stores attributes
# sorted by name: else_branch first).
expected = [(t.name, t) for t in inits + [cond]] + [(a.g.initializer[0].name, a.g.initializer[0])
                                                    for a in model.graph.node[1].attribute]


def want_value(t, base_dir=""):
  a = numpy_helper.to_array(t, base_dir)
  # Tensor.data() of an empty tensor is a zero-length view: tolist() is [] whatever its shape.
  return [] if a.size == 0 else py_value(a.tolist())


def check_model(label, path, expected, base_dir=""):
  rc, out, err = run([path, "--list", "--json"])
  try:
    listing = json.loads(out)
    got = [(t["name"], t["dtype"], t["shape"]) for t in listing["tensors"]]
    fmt = listing.get("format") or listing["files"][0]["format"] if "files" in listing else listing.get("format")
  except Exception as e:  # noqa: BLE001
    tally.check(f"{label}: --list --json", False, f"rc={rc} {e!r} {out[:300]} {err[:300]}")
    return
  want = [(n, DTYPES[t.data_type], list(t.dims)) for n, t in expected]
  tally.check(f"{label}: names, dtypes and shapes are the model's ({len(want)} initializers; no Constant value)",
              rc == 0 and got == want, f"rc={rc}\n got {got}\nwant {want}\n{err[:300]}")
  tally.check(f"{label}: the format is named onnx", '"onnx"' in out, out[:300])
  rc, out, err = run([path, "--all", "--json"])
  try:
    rows = {t["name"]: t for t in json.loads(out)["tensors"]}
    bad = [(n, rows[n]["tolist"], want_value(t, base_dir))
           for n, t in expected
           if not same(rows[n]["tolist"], want_value(t, base_dir))]
  except Exception as e:  # noqa: BLE001
    bad = [repr(e), out[:300], err[:300]]
  tally.check(f"{label}: every value equals numpy_helper.to_array's (JSON)", rc == 0 and not bad, f"rc={rc} {bad[:4]}")


check_model("every dtype", main_path, expected)

# Text: tolist() as Python prints it, for raw_data and typed fields alike.
for name in ("raw.f32", "raw.i64", "typed.f16", "typed.bf16", "typed.i8", "typed.u64", "raw.bf16", "typed.scalar",
             "raw.bool"):
  t = dict(expected)[name]
  a = numpy_helper.to_array(t)
  rc, out, err = run([main_path, "--name", name])
  tally.check(f"text: '{name}' prints tolist() as Python does", rc == 0 and f"tolist: {a.tolist()!r}" in out,
              f"rc={rc} want {a.tolist()!r}\n{out[-300:]} {err[:200]}")

# Stats and expressions against NumPy.
a = numpy_helper.to_array(dict(expected)["raw.f64"])
rc, out, err = run([main_path, "--name", "raw.f64", "--stats", "--json"])
try:
  s = json.loads(out)
  ok = rc == 0 and s["min"] == a.min() and s["max"] == a.max() and math.isclose(s["mean"], a.mean(),
                                                                                rel_tol=1e-12) and s["count"] == 5
except Exception as e:  # noqa: BLE001
  ok, s = False, repr(e)
tally.check("--stats of raw.f64: NumPy's min, max and mean", ok, f"rc={rc} {s} {err[:200]}")
a = numpy_helper.to_array(dict(expected)["typed.i32"])
rc, out, err = run([main_path, "--name", "typed.i32", "-e", "x.T * 2", "--json"])
try:
  ok = rc == 0 and json.loads(out)["tolist"] == (a.T * 2).tolist()
except Exception as e:  # noqa: BLE001
  ok = False
tally.check("-e 'x.T * 2' on typed.i32 (int32_data): NumPy's", ok, f"rc={rc} {out[:300]} {err[:200]}")
rc, out, err = run([main_path, "--meta", "--json"])
tally.check("--meta: producer_name and opset_import", rc == 0 and "tensor-inspect-tests" in out and
            "opset_import" in out, f"rc={rc} {out[:300]} {err[:200]}")

# validate: clean
rc, out, err = run(["validate", main_path, "--json"])
try:
  findings = json.loads(out)["files"][0]["findings"]
except Exception as e:  # noqa: BLE001
  findings = repr(e)
tally.check("validate every_dtype.onnx: clean", rc == 0 and findings == [], f"rc={rc} {findings} {err[:200]}")

# diff against an .npz of the same arrays (numpy writes it): equal; one value changed: exit 1.
npz = os.path.join(tmp, "same.npz")
np.savez(npz, **{n: numpy_helper.to_array(t) for n, t in expected if t.data_type != TensorProto.BFLOAT16})
rc, out, err = run(["diff", main_path, npz])
shared = len(expected) - 2  # the two bfloat16 tensors, which an .npz cannot hold
tally.check(f"diff model.onnx same.npz: the {shared} shared tensors are equal",
            f"0 of {shared} compared tensors differ" in out, f"rc={rc} {out[-400:]} {err[:300]}")

# ---- external data, as onnx.save_model writes it ----
ext_arrays = {f"layer{i}.weight": rng.standard_normal((64, 32)).astype(np.float32) for i in range(3)}
ext_arrays["layer0.bias"] = rng.standard_normal((32,)).astype(np.float16)
ext_arrays["tiny"] = np.array([1, 2, 3], dtype=np.int64)  # under size_threshold: stays in the model
ext_inits = [numpy_helper.from_array(a, n) for n, a in ext_arrays.items()]
ext_graph = helper.make_graph([], "ext", [], [helper.make_tensor_value_info("tiny", TensorProto.INT64, [3])], ext_inits)
for label, one_file in (("one file", True), ("a file per tensor", False)):
  d = os.path.join(tmp, "ext_one" if one_file else "ext_many")
  os.makedirs(d)
  m = helper.make_model(ext_graph)
  path = os.path.join(d, "model.onnx")
  onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=one_file, location="weights.bin",
                  size_threshold=64)
  stored = onnx.load(path, load_external_data=False)
  external = [t.name for t in stored.graph.initializer if t.data_location == TensorProto.EXTERNAL]
  tally.check(f"external ({label}): onnx wrote "
              f"{len(external)} tensors to external data",
              len(external) == 4, str(external))
  check_model(f"external ({label})", path, [(t.name, t) for t in stored.graph.initializer], d)
  rc, out, err = run(["diff", path, main_path.replace("every_dtype", "every_dtype")])
  rc, out, err = run(["validate", path])
  tally.check(f"external ({label}): validate clean", rc == 0, f"rc={rc} {out[-300:]} {err[:200]}")
  # Listing never opens the external files: it works with them gone; values say which file is missing.
  moved = d + ".moved"
  shutil.copytree(d, moved)
  for f in os.listdir(moved):
    if f != "model.onnx":
      os.remove(os.path.join(moved, f))
  rc, out, err = run([os.path.join(moved, "model.onnx"), "--list"])
  tally.check(f"external ({label}): --list without the external files works", rc == 0 and "layer1.weight" in out,
              f"rc={rc} {out[-300:]} {err[:200]}")
  rc, out, err = run([os.path.join(moved, "model.onnx"), "--name", "layer1.weight"])
  tally.check(f"external ({label}): values of a missing external file: exit 2 naming the tensor and the location",
              rc == 2 and "layer1.weight" in err and ("weights.bin" in err or "layer1.weight'" in err) and out == "",
              f"rc={rc} {out[-200:]} {err[:300]}")
  rc, out, err = run(["validate", os.path.join(moved, "model.onnx")])
  tally.check(f"external ({label}): validate "
              f"without the external files fails", rc == 1, f"rc={rc} {out[-300:]} {err[:200]}")

# diff: the model with external data against the same arrays in one file.
one = os.path.join(tmp, "ext_one", "model.onnx")
inline = os.path.join(tmp, "inline.onnx")
onnx.save_model(helper.make_model(ext_graph), inline)
rc, out, err = run(["diff", one, inline])
tally.check("diff external-data model vs the "
            "same model inline: equal (exit 0)", rc == 0, f"rc={rc} {out[-300:]} {err[:300]}")
changed = dict(ext_arrays)
changed["layer2.weight"] = changed["layer2.weight"].copy()
changed["layer2.weight"][3, 4] += 1
changed_path = os.path.join(tmp, "changed.onnx")
onnx.save_model(
    helper.make_model(helper.make_graph([], "ext", [], [],
                                        [numpy_helper.from_array(a, n) for n, a in changed.items()])), changed_path)
rc, out, err = run(["diff", one, changed_path])
tally.check("diff with one changed value: exit 1 naming layer2.weight", rc == 1 and "layer2.weight" in out,
            f"rc={rc} {out[-300:]} {err[:300]}")


# An If whose branches each hold an initializer 'w' (onnx.checker accepts it: names are scoped by
# graph): both listed, the second in file order (onnx.helper sorts a node's attributes by name, so
# else_branch comes first) under its branch's graph name, each with its own values.
def branch(graph_name, values, out):
  return helper.make_graph([helper.make_node("Identity", ["w"], [out])], graph_name, [],
                           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [2])],
                           initializer=[numpy_helper.from_array(np.array(values, np.float32), "w")])
if_model = helper.make_model(
    helper.make_graph([
        helper.make_node(
            "If", ["c"], ["y"], then_branch=branch("then", [1, 2], "o1"), else_branch=branch("else", [3, 4], "o2"))
    ], "main", [helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]))
onnx.checker.check_model(if_model, full_check=True)
if_path = os.path.join(tmp, "if_branches.onnx")
onnx.save(if_model, if_path)
rc, out, err = run([if_path, "--all", "--json"])
try:
  got = {t["name"]: t["tolist"] for t in json.loads(out)["tensors"]}
except Exception as e:  # noqa: BLE001
  got = repr(e)
tally.check("an If with a 'w' in each branch: 'w' and 'then/w', each its branch's values",
            rc == 0 and got == {"w": [3.0, 4.0], "then/w": [1.0, 2.0]}, f"rc={rc} {got} {err[:300]}")
rc, out, err = run(["validate", if_path])
tally.check("validate of that model: clean", rc == 0, f"rc={rc} {out[-300:]} {err[:200]}")

# ---- damaged models: exit 2 naming the place; validate names the rule ----
def damaged(label, data, rule, where):
  path = os.path.join(tmp, label.replace(" ", "_") + ".onnx")
  with open(path, "wb") as f:
    f.write(data)
  rc, out, err = run([path, "--list"])
  tally.check(f"damaged ({label}): --list "
              f"exits 2 naming {where!r}", rc == 2 and out == "" and where in err and path in err,
              f"rc={rc} {out[:200]} {err[:300]}")
  rc, out, err = run(["validate", path, "--json"])
  try:
    rules = [x["rule"] for x in json.loads(out)["files"][0]["findings"]]
  except Exception as e:  # noqa: BLE001
    rules = [repr(e), out[:200], err[:200]]
  tally.check(f"damaged ({label}): validate exits 1 with rule {rule}", rc == 1 and rule in rules, f"rc={rc} {rules}")


def model_with(*tensors):
  return helper.make_model(helper.make_graph([], "g", [], [], list(tensors))).SerializeToString()


good = open(main_path, "rb").read()
# Cut inside the graph: the graph's length runs past the end of the file.
damaged("truncated", good[: len(good) // 2], "onnx.structure", "byte")
t = numpy_helper.from_array(np.arange(6, dtype=np.float32), "short")
t.dims[:] = [2, 4]
damaged("raw_data size", model_with(t), "onnx.raw_data_size", "initializer 'short'")
t = helper.make_tensor("few", TensorProto.INT64, [3], [1, 2, 3])
t.dims[:] = [4]
damaged("typed count", model_with(t), "onnx.data_size", "initializer 'few'")
t = numpy_helper.from_array(np.arange(2, dtype=np.float32), "odd")
t.data_type = 99
damaged("unknown data_type", model_with(t), "onnx.data_type", "data_type 99")
t = numpy_helper.from_array(np.arange(2, dtype=np.float32), "escape")
t.ClearField("raw_data")
t.data_location = TensorProto.EXTERNAL
t.external_data.add(key="location", value="../secret.bin")
damaged("external escapes", model_with(t), "onnx.external_data", "leaves the model's folder")
a = numpy_helper.from_array(np.arange(2, dtype=np.float32), "twice")
damaged("duplicate name", model_with(a, a), "onnx.duplicate_name", "initializer 'twice'")

# Listing reads the structure only: 64 initializers of 2 MiB (a 128 MiB model) list within a
# small peak RSS. Touching each header maps the page-cache folio around it (up to 2 MiB on
# kernels with large folios: 176 MB resident to list a 500 MB model before the walk released
# them), so the bound fails if raw_data is copied or its pages are kept.
import peak_rss
big = os.path.join(tmp, "big.onnx")
onnx.save_model(helper.make_model(helper.make_graph([], "big", [], [], [
    numpy_helper.from_array(np.full((512, 1024), i, np.float32), f"w{i}") for i in range(64)])), big)
# The bound is the same binary's peak listing a tiny model plus 32 MiB, a quarter of the
# payload: an instrumented (ASan) build starts some 10 MiB higher than a Release one.
small = os.path.join(tmp, "small.onnx")
onnx.save_model(helper.make_model(helper.make_graph([], "small", [], [], [
    numpy_helper.from_array(np.zeros(4, np.float32), "w")])), small)
_, _, _, rss0 = peak_rss.run_measured(BIN, [small, "--list"], 120)
rc, out, err, rss = peak_rss.run_measured(BIN, [big, "--list"], 120)
tally.pass_details = True
tally.check("listing a 128 MiB model: peak RSS within 32 MiB of a tiny model's",
            rc == 0 and "64 tensors" in out and rss < rss0 + (32 << 20),
            f"rc={rc} peak RSS {rss / 2**20:.1f} MiB, tiny model {rss0 / 2**20:.1f} MiB {err[:200]}")
tally.pass_details = False
os.remove(big)

# A remote model (nginx on 127.0.0.1, range requests): listing fetches the headers' blocks, not
# the weights; values of a tensor in external data come from the external file beside it.
if shutil.which("nginx") or os.path.exists("/usr/sbin/nginx"):
  from nginx_server import Nginx
  www = os.path.join(tmp, "www")
  os.makedirs(www)
  onnx.save_model(helper.make_model(helper.make_graph([], "big", [], [], [
      numpy_helper.from_array(np.full((512, 1024), i, np.float32), f"w{i}") for i in range(16)])),
      os.path.join(www, "remote.onnx"))
  shutil.copytree(os.path.join(tmp, "ext_one"), os.path.join(www, "ext"))
  os.makedirs(os.path.join(tmp, "nginx"))
  server = Nginx(os.path.join(tmp, "nginx"), www)
  try:
    mark = server.mark()
    rc, out, err = run([server.url("files", "remote.onnx"), "--list"])
    fetched = server.bytes_since(mark)
    tally.check("remote: listing a 32 MiB "
                "model fetches under 4 MiB", rc == 0 and "16 tensors" in out and fetched < 4 << 20,
                f"rc={rc} fetched {fetched} {err[:200]}")
    rc, out, err = run([server.url("files", "ext/model.onnx"), "--name", "layer1.weight", "--json"])
    ok = rc == 0 and json.loads(out)["tolist"] == ext_arrays["layer1.weight"].tolist()
    tally.check("remote: a tensor in external data has onnx's values", ok, f"rc={rc} {err[:200]}")
  finally:
    server.stop()

# --format onnx on a file with another extension, and detection by content.
renamed = os.path.join(tmp, "model.bin")
shutil.copy(main_path, renamed)
rc, out, err = run([renamed, "--list"])
tally.check("a model named .bin is detected by its first bytes", rc == 0 and "raw.f32" in out, f"rc={rc} {err[:200]}")

shutil.rmtree(tmp)
sys.exit(tally.summary())
