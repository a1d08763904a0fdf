"""validate knows every dtype tag of the safetensors format that the loader knows. F8_E8M0
and F4 (which the loader decodes to float32) were "unknown dtype tag" errors, so a file every
other mode opens failed validate with exit 1; C64, F6_E2M3 and F8_E4M3FNUZ, which the loader
lists and refuses, are notes (safetensors.unsupported: what this tool cannot decode, never a
fault of the file), exit 0 even with --strict. Sizes follow the tags' bit sizes (F4: 4 bits,
two per byte; F6: 6 bits), and an F4 count that does not fill whole bytes stays an error.

Run: python3 tests/validate_safetensors_tags.py build/tensor-inspect
"""
import json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from quant_writers import write_safetensors

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-validate-tags-")


def validate(path, *extra):
  p = subprocess.run([BIN, "validate", path, "--json", *extra], capture_output=True, text=True)
  try:
    return p.returncode, json.loads(p.stdout)["files"][0]["findings"], p.stderr
  except (ValueError, KeyError, IndexError):
    return p.returncode, None, p.stderr + p.stdout


decoded = os.path.join(tmp, "decoded.safetensors")
write_safetensors(decoded, {
    "e8": ("F8_E8M0", (3,), bytes([127, 128, 255])),
    "f4": ("F4", (2, 3), bytes([0x21, 0x43, 0x65]))
})
rc, findings, err = validate(decoded, "--strict")
tally.check("F8_E8M0 and F4 of the right sizes: "
            "clean, exit 0 with --strict", rc == 0 and findings == [], f"{rc} {findings} {err}")

unshown = os.path.join(tmp, "unshown.safetensors")
write_safetensors(unshown, {"c": ("C64", (2,), bytes(16)), "f6": ("F6_E2M3", (4,), bytes(3)),
                            "z": ("F8_E4M3FNUZ", (2,), bytes(2))})
rc, findings, err = validate(unshown, "--strict")
tally.check("C64, F6_E2M3 (4 x 6 bits = 3 bytes), F8_E4M3FNUZ: one note each, no error, exit 0 with --strict",
            rc == 0 and findings is not None and sorted((x["severity"], x["rule"]) for x in findings) ==
            [("note", "safetensors.unsupported")] * 3, f"{rc} {findings} {err}")

odd = os.path.join(tmp, "odd.safetensors")
write_safetensors(odd, {"f4": ("F4", (3,), bytes(2))})
rc, findings, err = validate(odd)
tally.check(
    "3 elements of F4: an error naming the tag (they do not fill whole bytes)", rc == 1 and findings is not None and
    any(x["severity"] == "error" and "F4" in x["message"] for x in findings), f"{rc} {findings} {err}")

wrong = os.path.join(tmp, "wrong.safetensors")
write_safetensors(wrong, {"f4": ("F4", (4,), bytes(4))})  # 4 x 4 bits need 2 bytes
rc, findings, err = validate(wrong)
tally.check(
    "4 elements of F4 in 4 bytes: a size error saying 2 are needed", rc == 1 and findings is not None and
    any(x["severity"] == "error" and "needs 2" in x["message"] for x in findings), f"{rc} {findings} {err}")

shutil.rmtree(tmp)
sys.exit(tally.summary())
