#!/usr/bin/python3
"""`validate` checks quantization schemes (issue 22): a model folder or file whose scheme
parts are missing or disagree in shape or dtype, or whose config.json is broken, gets error
findings (exit 1) naming the tensor and the part, with the facts the loader's exit-2 message
gives (rule safetensors.scheme / safetensors.scheme_config); every broken group is reported,
not only the first; a sharded model is checked through its index, parts in any shard; parts
that are consistent but not decodable without config.json are a note.

Usage: /usr/bin/python3 tests/validate_schemes.py BUILD/tensor-inspect
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
tally.passes = False
import quant_writers as qw  # noqa: E402

BIN = sys.argv[1]


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


def validate(path):
    """(exit status, findings of every file) of `validate --json`."""
    out = run("validate", path, "--json")
    if out.returncode not in (0, 1):
        return out.returncode, [{"message": out.stderr.strip()}]
    return out.returncode, [x for f in json.loads(out.stdout)["files"] for x in f["findings"]]


def zeros(tag, shape):
    size = {"F32": 4, "BF16": 2, "U8": 1, "U32": 4, "F8_E4M3": 1, "F16": 2}[tag]
    return (tag, shape, bytes(int(np.prod(shape, dtype=np.int64)) * size))


FP8 = {"quant_method": "fp8", "weight_block_size": [128, 128]}
L0, L1 = "model.layers.0.mlp.down_proj", "model.layers.1.mlp.down_proj"


def model(folder, tensors, config=None, raw_config=None):
    os.mkdir(folder)
    qw.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    if config is not None:
        qw.write_config(folder, config)
    if raw_config is not None:
        with open(os.path.join(folder, "config.json"), "w") as f:
            f.write(raw_config)
    return folder


with tempfile.TemporaryDirectory() as tmp:
    good = {L0 + ".weight": zeros("F8_E4M3", (256, 128)), L0 + ".weight_scale_inv": zeros("F32", (2, 1)),
            L1 + ".weight": zeros("F8_E4M3", (256, 128)), L1 + ".weight_scale_inv": zeros("F32", (2, 1))}

    # A whole fp8 model: clean.
    code, found = validate(model(os.path.join(tmp, "good"), good, FP8))
    tally.check(f"clean fp8 model: exit {code} {found}", code == 0 and found == [])

    # A scale missing (config.json names fp8) and another of the wrong shape: two errors, each
    # naming its tensor and part; the loader's exit-2 message says the first the same way.
    broken = dict(good)
    del broken[L0 + ".weight_scale_inv"]
    broken[L1 + ".weight_scale_inv"] = zeros("F32", (3, 1))
    folder = model(os.path.join(tmp, "broken"), broken, FP8)
    code, found = validate(folder)
    rules = [(x["rule"], x["place"]) for x in found]
    tally.check(
        f"broken fp8 model: exit {code} {found}", code == 1 and
        rules == [("safetensors.scheme", f"tensor '{L1}.weight'"), ("safetensors.scheme", f"tensor '{L0}.weight'")])
    if len(found) == 2:
        shape_fault, missing = found
        tally.check(f"shape finding: {shape_fault}",
                    f"part '{L1}.weight_scale_inv'" in shape_fault["message"] and "(3, 1)" in shape_fault["message"] and
                    "(2, 1)" in shape_fault["message"] and shape_fault["offset"] is not None)
        tally.check(f"missing finding: {missing}",
                    f"part '{L0}.weight_scale_inv'" in missing["message"] and "missing" in missing["message"])
        loader = run(folder, "--list")
        tally.check(f"the loader says the same: {loader.stderr.strip()} / {shape_fault['message']}",
                    loader.returncode == 2 and shape_fault["message"] in loader.stderr)
        text = run("validate", folder)
        tally.check(
            f"text: {text.stdout}", text.returncode == 1 and f"error: tensor '{L0}.weight'" in text.stdout and
            "[safetensors.scheme]" in text.stdout)

    # The same file given alone (config.json beside it applies, as opening the folder reads it).
    code, found = validate(os.path.join(folder, "model.safetensors"))
    tally.check(f"file in the broken folder: exit {code} {found}", code == 1 and len(found) == 2)

    # A part of the wrong dtype without config.json: detected by name, refused the same way.
    wrong = dict(good)
    wrong[L0 + ".weight_scale_inv"] = zeros("U8", (2, 1))
    code, found = validate(model(os.path.join(tmp, "wrong_dtype"), wrong))
    tally.check(
        f"wrong dtype: exit {code} {found}", code == 1 and len(found) == 1 and "U8" in found[0]["message"] and
        f"part '{L0}.weight_scale_inv'" in found[0]["message"])

    # Broken config.json: not JSON; quantization_config not an object; a key of the wrong type.
    code, found = validate(model(os.path.join(tmp, "not_json"), good, raw_config="{\"quantization_config\": "))
    tally.check(
        f"config not JSON: exit {code} {found}", code == 1 and
        [x["rule"] for x in found] == ["safetensors.scheme_config"] and "not JSON" in found[0]["message"])
    code, found = validate(model(os.path.join(tmp, "not_object"), good, raw_config='{"quantization_config": [1]}'))
    tally.check(
        f"config not an object: exit {code} {found}", code == 1 and
        [x["rule"] for x in found] == ["safetensors.scheme_config"] and "quantization_config" in found[0]["message"])
    code, found = validate(model(os.path.join(tmp, "bad_method"), good, {"quant_method": 8}))
    tally.check(f"quant_method not a string: exit {code} {found}",
                code == 1 and [x["rule"] for x in found] == ["safetensors.scheme_config"] and
                "quantization_config.quant_method" in found[0]["message"])

    # MLX's config without bits: one finding for the key (not one per module), named under
    # MLX's "quantization".
    mlx = {}
    for p in (L0, L1):
        mlx.update({
            p + ".biases": zeros("F16", (4, 2)),
            p + ".scales": zeros("F16", (4, 2)),
            p + ".weight": zeros("U32", (4, 16))
        })
    folder = model(os.path.join(tmp, "mlx"), mlx)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"quantization": {"group_size": 64}}, f)
    code, found = validate(folder)
    tally.check(f"mlx config without bits: exit {code} {found}",
                code == 1 and len(found) == 1 and found[0]["rule"] == "safetensors.scheme_config" and
                "quantization.bits: missing" in found[0]["message"])

    # A quant_method this tool does not decode: a note, the file is clean.
    code, found = validate(model(os.path.join(tmp, "hqq"), good, {"quant_method": "hqq"}))
    tally.check(f"undecoded quant_method: exit {code} {found}",
                code == 0 and [(x["severity"], x["rule"]) for x in found] == [("note", "safetensors.unsupported")])

    # Sharded: L0's weight in shard 1, its scale in shard 2. The folder is clean (the index sees
    # both parts; each shard is left to it); a scale missing from every shard is an error once.
    def sharded(name, drop=None):
        folder = os.path.join(tmp, name)
        os.mkdir(folder)
        shards = [{L0 + ".weight": good[L0 + ".weight"]},
                  {k: v for k, v in good.items() if k != L0 + ".weight" and k != drop}]
        weight_map = {}
        for i, tensors in enumerate(shards):
            shard = f"model-0000{i + 1}-of-00002.safetensors"
            qw.write_safetensors(os.path.join(folder, shard), tensors)
            weight_map.update({k: shard for k in tensors})
        total = sum(len(v[2]) for t in shards for v in t.values())
        with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f)
        qw.write_config(folder, FP8)
        return folder
    code, found = validate(sharded("sharded"))
    tally.check(f"sharded fp8 model: exit {code} {found}", code == 0 and found == [])
    code, found = validate(sharded("sharded_missing", drop=L1 + ".weight_scale_inv"))
    tally.check(
        f"sharded, a scale missing: exit {code} {found}", code == 1 and
        [(x["rule"], x["place"]) for x in found] == [("safetensors-index.scheme", f"tensor '{L1}.weight'")])

sys.exit(tally.summary())
