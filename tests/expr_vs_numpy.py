#!/usr/bin/python3
"""Checks expressions of tensor-inspect against NumPy (and CPython for Python scalars).

Usage: /usr/bin/python3 tests/expr_vs_numpy.py BUILD/tensor-inspect

Each case runs `tensor-inspect --json LITERAL --dtype DTYPE -e EXPR` (or `-e EXPR` alone) and
compares the result's dtype, tensor shape and tolist() with what NumPy computes on the
same values, independently of the tool: tinygrad's isnan/isinf/isfinite/any/all are
NumPy's isnan, isposinf|isneginf, isfinite, any, all (bool results; any of nothing is
False, all of nothing True); comparisons and maximum/minimum with a Python int outside
the dtype's range compare the exact values, as tinygrad does. Error cases check the exit
status (2), an empty stdout and a stderr line containing the expected words.
Exit status 0 when every case agrees, 1 otherwise.
"""
import json
import math
import subprocess
import sys

import numpy as np

NAN, INF = float("nan"), float("inf")
MIXED = [[1.0, NAN, INF], [-INF, 0.0, -0.0]]
MIXED_LIT = "[[1.0, float('nan'), float('inf')], [float('-inf'), 0.0, -0.0]]"


def arr(values, dtype):
    return np.array(values, dtype=dtype)


def isinf_tg(a, pos=True, neg=True):
    # tinygrad: (x == inf) * detect_positive + (x == -inf) * detect_negative
    return (np.isposinf(a) & pos) | (np.isneginf(a) & neg)


# (literal or None, --dtype or None, expression, expected dtype, NumPy result)
CASES = [
    (MIXED_LIT, None, "x.isnan()", "bool", np.isnan(arr(MIXED, np.float32))),
    (MIXED_LIT, None, "x.isinf()", "bool", isinf_tg(arr(MIXED, np.float32))),
    (MIXED_LIT, None, "x.isinf(detect_positive=False)", "bool", isinf_tg(arr(MIXED, np.float32), pos=False)),
    (MIXED_LIT, None, "x.isinf(detect_negative=False)", "bool", isinf_tg(arr(MIXED, np.float32), neg=False)),
    (MIXED_LIT, None, "x.isinf(False, False)", "bool", isinf_tg(arr(MIXED, np.float32), False, False)),
    (MIXED_LIT, None, "x.isfinite()", "bool", np.isfinite(arr(MIXED, np.float32))),
    (MIXED_LIT, "float16", "(x * 40000).isinf()", "bool", np.isinf(arr(MIXED, np.float16) * np.float16(40000))),
    (MIXED_LIT, "float64", "x.isfinite().all(axis=1)", "bool", np.isfinite(arr(MIXED, np.float64)).all(axis=1)),
    ("[1, -2, 0]", "int32", "x.isnan()", "bool", np.isnan(arr([1, -2, 0], np.float64))),
    ("[1, 255, 0]", "uint8", "x.isinf()", "bool", np.isinf(arr([1, 255, 0], np.float64))),
    ("[True, False]", None, "x.isfinite()", "bool", np.isfinite(arr([1, 0], np.float64))),
    # any/all: nan is true, -0.0 is false
    (MIXED_LIT, None, "x.any()", "bool", arr(MIXED, np.float32).any()),
    (MIXED_LIT, None, "x.all()", "bool", arr(MIXED, np.float32).all()),
    (MIXED_LIT, None, "x.any(axis=1)", "bool", arr(MIXED, np.float32).any(axis=1)),
    (MIXED_LIT, None, "x.all(axis=0)", "bool", arr(MIXED, np.float32).all(axis=0)),
    (MIXED_LIT, None, "x.all(axis=-1, keepdim=True)", "bool", arr(MIXED, np.float32).all(axis=-1, keepdims=True)),
    (MIXED_LIT, None, "x.any((0, 1), True)", "bool", arr(MIXED, np.float32).any(axis=(0, 1), keepdims=True)),
    ("[[0, 0], [0, 3]]", "int8", "x.any(axis=0)", "bool", arr([[0, 0], [0, 3]], np.int8).any(axis=0)),
    ("[[0, 0], [0, 3]]", "uint64", "x.all(axis=1)", "bool", arr([[0, 0], [0, 3]], np.uint64).all(axis=1)),
    ("[True, False, True]", None, "x.all()", "bool", arr([1, 0, 1], np.bool_).all()),
    ("[0.0, -0.0]", None, "x.any()", "bool", arr([0.0, -0.0], np.float32).any()),
    ("[]", None, "x.any()", "bool", np.zeros(0).any()),
    ("[]", None, "x.all()", "bool", np.zeros(0).all()),
    (None, None, "Tensor.zeros(0, 3).all(axis=0)", "bool", np.zeros((0, 3)).all(axis=0)),
    (None, None, "Tensor.zeros(0, 3).any(axis=0)", "bool", np.zeros((0, 3)).any(axis=0)),
    (None, None, "Tensor.zeros(2, 0).all(axis=1, keepdim=True)", "bool", np.zeros((2, 0)).all(axis=1, keepdims=True)),
    ("5", None, "x.all()", "bool", np.array(5).all()),
    ("[1.5, 2.5]", None, "(x.abs() < 100).all()", "bool", (np.abs(arr([1.5, 2.5], np.float32)) < 100).all()),
    ("[1.5, 2.5]", None, "x.isnan().any() == False", "bool", ~np.isnan(arr([1.5, 2.5], np.float32)).any()),
    # issue 9 fault 24: the exact maximum/minimum in int64, then cast to uint8 as where() casts
    ("[0, 1, 255]", "uint8", "x.maximum(-1)", "uint8", np.maximum(arr([0, 1, 255], np.int64), -1).astype(np.uint8)),
    ("[0, 1, 255]", "uint8", "x.minimum(300)", "uint8", np.minimum(arr([0, 1, 255], np.int64), 300).astype(np.uint8)),
    ("[0, 1, 255]", "uint8", "x.maximum(300)", "uint8", np.maximum(arr([0, 1, 255], np.int64), 300).astype(np.uint8)),
    ("[0, 1, 255]", "uint8", "x.minimum(-1)", "uint8", np.minimum(arr([0, 1, 255], np.int64), -1).astype(np.uint8)),
    ("[-128, 0, 127]", "int8", "x.clip(-1000, 1000)", "int8", np.clip(arr([-128, 0, 127], np.int64), -1000,
                                                                      1000).astype(np.int8)),
    ("[0, 1, 255]", "uint8", "x > -1", "bool", arr([0, 1, 255], np.int64) > -1),
    ("[0, 1, 255]", "uint8", "x == 257", "bool", arr([0, 1, 255], np.int64) == 257),
    ("[1.5, -2.0]", None, "x.maximum(0)", "float32", np.maximum(arr([1.5, -2.0], np.float32), 0)),
    ("[[1, 2], [3, 4]]", None, "x.T.clone()", "int32", arr([[1, 2], [3, 4]], np.int32).T.copy()),
]

# Python int arithmetic folded before it meets a tensor (issue 9 fault 1: shifts by 64 or
# more, signed overflow, INT_MIN // -1, % by 0). CPython's own eval gives the expected
# value; with --default-int int64 a result in int64 prints as is, a result outside
# [-2**63, 2**64) is refused, and ZeroDivisionError is refused.
SCALARS = [
    "0 << 64", "0 << 10**18", "1 << 62", "-1 << 63", "3 >> 64", "-3 >> 200", "-(2**62) >> 63",
    "1 << 65", "(-5) << 64", "2**63 * 2**63", "(2**63-1) * -2", "(-2**63) * -1 - 1",
    "(2**63-1) // -2", "(2**63-1) % -2", "-2**63 // 1", "-2**63 % -1", "-2**63 // -1 - 1",
    "(-2**63) // 3", "(-2**63) % 3", "7 % 0", "7 // 0", "-7 // 0.0", "(-2)**63", "(-3)**40", "2**-2",
    "-(-2**63) - 1", "~(-2**63)", "9223372036854775807 + 1 - 1", "abs(-2**63 + 1)",
    "18446744073709551615 // 3", "18446744073709551615 == 18446744073709551614",
    "9223372036854775808 > 9223372036854775807", "18446744073709551615 & 255",
]

ERRORS = [
    (MIXED_LIT, None, "x.isinf(detect_sign=True)", "unexpected keyword argument 'detect_sign'"),
    (MIXED_LIT, None, "x.any(axis=2)", "dim=2 out of range [-2, 1]"),
    (MIXED_LIT, None, "x.isnan(1)", "isnan() takes at most 0 arguments (1 given)"),
]


def same(expected, got, where):
    """Differences between a NumPy tolist() value and the tool's JSON value."""
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            return [f"{where}: expected {expected!r}, got {got!r}"]
        out = []
        for i, (e, g) in enumerate(zip(expected, got)):
            out += same(e, g, f"{where}[{i}]")
        return out
    if isinstance(expected, bool):
        return [] if got is expected else [f"{where}: expected {expected!r}, got {got!r}"]
    if isinstance(expected, int):
        ok = isinstance(got, int) and not isinstance(got, bool) and got == expected
        return [] if ok else [f"{where}: expected {expected!r}, got {got!r}"]
    if isinstance(expected, float):
        if math.isnan(expected):
            ok = got == "nan"
        elif math.isinf(expected):
            ok = got == ("inf" if expected > 0 else "-inf")
        else:
            ok = (isinstance(got, (int, float)) and not isinstance(got, bool) and float(got) == expected
                  and math.copysign(1.0, float(got)) == math.copysign(1.0, expected))
        return [] if ok else [f"{where}: expected {expected!r}, got {got!r}"]
    return [f"{where}: unexpected value type {type(expected).__name__}"]


def command(binary, literal, dtype, expr):
    cmd = [binary, "--json"]
    if literal is not None:
        cmd.append(literal)
    if dtype is not None:
        cmd += ["--dtype", dtype]
    return cmd + ["-e", expr]


def check_scalar(binary, expr):
    """The tool's folding of a Python scalar expression against CPython's eval."""
    run = subprocess.run([binary, "--json", "--default-int", "int64", "-e", expr], capture_output=True, text=True)
    try:
        want = eval(expr)  # noqa: S307 (our own constant expressions)
    except ZeroDivisionError:
        want = None
    if want is None or (isinstance(want, int) and not isinstance(want, bool) and not -2**63 <= want < 2**64):
        ok = run.returncode == 2 and not run.stdout and run.stderr.count("\n") == 1
        return [] if ok else [f"-e {expr!r}: expected exit 2 (CPython: {want!r}), got {run.returncode} {run.stdout!r}"]
    if run.returncode != 0:
        return [f"-e {expr!r}: exit {run.returncode}: {run.stderr.strip()} (CPython: {want!r})"]
    if isinstance(want, int) and not isinstance(want, bool) and want >= 2**63:
        want -= 2**64  # committed to int64, a Python int above it wraps like a C cast
    return same(want, json.loads(run.stdout)["tolist"], f"-e {expr!r}")


def main():
    binary = sys.argv[1]
    failures = []
    for literal, dtype, expr, want_dtype, want in CASES:
        where = f"{literal} {dtype or ''} -e {expr!r}"
        run = subprocess.run(command(binary, literal, dtype, expr), capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"{where}: exit {run.returncode}: {run.stderr.strip()}")
            continue
        got = json.loads(run.stdout)
        want = np.asarray(want)
        if got["dtype"] != want_dtype:
            failures.append(f"{where}: dtype {got['dtype']}, expected {want_dtype}")
        if got["tensor_shape"] != list(want.shape):
            failures.append(f"{where}: shape {got['tensor_shape']}, expected {list(want.shape)}")
        if want.size > 0:
            failures += same(want.tolist(), got["tolist"], where)
    for literal, dtype, expr, words in ERRORS:
        where = f"{literal} {dtype or ''} -e {expr!r}"
        text_mode = [binary] + command(binary, literal, dtype, expr)[2:]  # without --json
        run = subprocess.run(text_mode, capture_output=True, text=True)
        if run.returncode != 2 or run.stdout or words not in run.stderr or run.stderr.count("\n") != 1:
            failures.append(f"{where}: exit {run.returncode}, stdout {run.stdout!r}, "
                            f"stderr {run.stderr!r}; expected 2 and {words!r}")
    for expr in SCALARS:
        failures += check_scalar(binary, expr)
    for f in failures:
        print(f)
    total = len(CASES) + len(ERRORS) + len(SCALARS)
    print(f"{total - len(failures)} of {total} expression cases agree with NumPy and CPython")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
