"""Quantization schemes whose parts declare a huge axis beside a zero one. Such a part holds
no bytes, so its header is legal safetensors, but the logical tensor multiplies that axis by
the values each stored element packs (MXFP4: 32 per group; AWQ: 8 outputs per int32; GPTQ:
32/bits inputs per int32; NVFP4: 2 per byte). Where the product overflows int64 the run must
be exit 2 with one line naming the tensor and the part, never a shape that wrapped around
(MXFP4 blocks (0, 2**62, 2**62, 16) were listed as (0, 0, 2**62); such a shape is now refused by
the safetensors loader, so the case uses blocks (0, 1, 2**58, 16), 2**63 values).

Run: python3 tests/schemes_huge_dims.py build/tensor-inspect
"""
import os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from quant_writers import write_config, write_safetensors

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-schemes-huge-")
BIG = 1 << 62


def run(args):
  p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=60)
  return p.returncode, p.stdout, p.stderr


def folder(name, tensors, config):
  path = os.path.join(tmp, name)
  os.mkdir(path)
  write_safetensors(os.path.join(path, "model.safetensors"), tensors)
  if config:
    write_config(path, config)
  return path


cases = [
  # The stored axes multiply to 2**62 (a shape whose axes over 1 overflow int64 is refused by the
  # safetensors loader itself, zero axis or not); the 2**58 groups of 32 values make 2**63.
  ("mxfp4 (no config.json)", "e.x_blocks", folder("mxfp4", {"e.x_blocks": ("U8", (0, 1, 2**58, 16), b""),
                                                            "e.x_scales": ("U8", (0, 1, 2**58), b"")}, None)),
  ("awq gemm", "l.qweight", folder("awq", {"l.qweight": ("I32", (0, BIG), b""), "l.qzeros": ("I32", (0, BIG), b""),
                                           "l.scales": ("F16", (0, 8), b"")},
                                   {"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm"})),
  ("gptq 4-bit", "l.qweight", folder("gptq", {"l.qweight": ("I32", (BIG, 0), b""), "l.qzeros": ("I32", (1, 0), b""),
                                              "l.scales": ("F16", (1, 0), b"")},
                                     {"quant_method": "gptq", "bits": 4, "group_size": 128})),
]
for what, part, path in cases:
  for mode in (["--list"], ["--all", "--stats"]):
    rc, out, err = run([path] + mode)
    lines = err.strip().splitlines()
    tally.check(f"{what} {' '.join(mode)}: exit 2, nothing on stdout, one line naming the part and the overflow",
                rc == 2 and out == "" and len(lines) == 1 and f"part '{part}'" in lines[0] and "overflows" in lines[0],
                f"rc={rc} out={out[:300]!r} err={err[:300]!r}")

shutil.rmtree(tmp)
sys.exit(tally.summary())
