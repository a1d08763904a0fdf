#!/usr/bin/python3
"""The tree's size budgets, checked in CI: every source file under 400 lines, every line
within 120 columns (issue "architecture", part 6: one concept per file, and a line a reader
takes in at once).

    python3 scripts/check_budgets.py            # lists each file or line over; exit 1 if any
    python3 scripts/check_budgets.py --wrap     # rewraps the long lines only: C++ with clang-format-14
                                                # (.clang-format), Python with wrap_python.py (yapf3)

Source files are the C++ of lib/, app/, fuzz/ and tests/unit/, and the Python and shell of
tests/, scripts/ and bench/, as git lists them. Data (samples/, golden outputs, the IQ grid
tables in lib/src/decode/ggml_grids_*.cpp, which are ggml's tables as numbers) is not source.
Columns count characters, not bytes: a line of UTF-8 prose is as wide as it looks.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wrap_python  # noqa: E402

MAX_LINES = 400
MAX_COLUMNS = 120
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CXX = (".cpp", ".hpp", ".h", ".cc")
SCRIPT = (".py", ".sh")
# Files whose length is data, not code: each line of a grid table is one row of ggml's table.
DATA = ("lib/src/decode/ggml_grids_",)


def sources():
    listed = subprocess.run(["git", "ls-files", "lib", "app", "fuzz", "tests", "scripts", "bench"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for path in listed:
        if path.startswith(DATA) or "/golden/" in path:
            continue
        if path.endswith(CXX) and (path.startswith(("lib/", "app/", "fuzz/", "tests/unit/"))):
            yield path
        elif path.endswith(SCRIPT) and path.startswith(("tests/", "scripts/", "bench/")):
            yield path


def long_lines(text):
    return [n for n, line in enumerate(text.split("\n"), 1) if len(line) > MAX_COLUMNS]


def wrap(path, lines):
    args = ["clang-format-14", "-i", "--style=file"] + [f"--lines={n}:{n}" for n in lines] + [path]
    subprocess.run(args, cwd=ROOT, check=True)


def main():
    fix = "--wrap" in sys.argv[1:]
    over = 0
    for path in sources():
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        lines = long_lines(text)
        if fix and lines and (path.endswith(CXX) or path.endswith(".py")):
            if path.endswith(CXX):
                wrap(path, lines)
            else:
                wrap_python.wrap_file(os.path.join(ROOT, path))
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                text = f.read()
            lines = long_lines(text)
        count = text.count("\n")
        if count > MAX_LINES:
            print(f"{path}: {count} lines (budget {MAX_LINES}): split it by concept")
            over += 1
        for n in lines:
            print(f"{path}:{n}: {len(text.split(chr(10))[n - 1])} columns (budget {MAX_COLUMNS})")
            over += 1
    print(f"{over} over budget" if over else "every source file within 400 lines and 120 columns")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
